import { expect } from 'chai';
import fc from 'fast-check';
import { FakeClock, ItemExponentialFailureRateLimiter, WorkQueue } from '../index.js';

type Op =
  | { op: 'add'; key: string }
  | { op: 'addAfter'; key: string; ms: number }
  | { op: 'get' }
  | { op: 'done'; pick: number }
  | { op: 'remove'; key: string }
  | { op: 'advance'; ms: number };

const key = fc.constantFrom('a', 'b', 'c', 'd');
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('add' as const), key }),
  fc.record({ op: fc.constant('addAfter' as const), key, ms: fc.integer({ min: 0, max: 50 }) }),
  fc.record({ op: fc.constant('get' as const) }),
  fc.record({ op: fc.constant('done' as const), pick: fc.nat() }),
  fc.record({ op: fc.constant('remove' as const), key }),
  fc.record({ op: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 60 }) }),
);

/** The client-go semantics written the obvious (slow) way. */
class Model {
  queued: string[] = [];
  processing = new Set<string>();
  followUp = new Set<string>();
  delayed = new Map<string, { at: number; seq: number }>();
  now = 0;
  seq = 0;

  add(k: string): void {
    if (this.queued.includes(k) || this.followUp.has(k)) return;
    if (this.processing.has(k)) this.followUp.add(k);
    else this.queued.push(k);
  }
  addAfter(k: string, ms: number): void {
    if (ms <= 0) return this.add(k);
    const cur = this.delayed.get(k);
    if (cur !== undefined && cur.at <= this.now + ms) return;
    this.delayed.set(k, { at: this.now + ms, seq: this.seq++ });
  }
  get(): string | undefined {
    const k = this.queued.shift();
    if (k !== undefined) this.processing.add(k);
    return k;
  }
  done(k: string): void {
    this.processing.delete(k);
    if (this.followUp.delete(k)) this.queued.push(k);
  }
  remove(k: string): void {
    this.queued = this.queued.filter((x) => x !== k);
    this.followUp.delete(k);
    this.delayed.delete(k);
  }
  advance(ms: number): void {
    const target = this.now + ms;
    const due = [...this.delayed].filter(([, d]) => d.at <= target).sort(([, x], [, y]) => x.at - y.at || x.seq - y.seq);
    for (const [k] of due) {
      this.delayed.delete(k);
      this.add(k);
    }
    this.now = target;
  }
}

describe('WorkQueue (properties)', () => {
  it('behaves exactly like the reference model of client-go semantics', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 80 }), async (ops) => {
        const clock = new FakeClock();
        const q = new WorkQueue({ clock, rateLimiter: new ItemExponentialFailureRateLimiter() });
        const m = new Model();
        for (const o of ops) {
          switch (o.op) {
            case 'add':
              q.add(o.key);
              m.add(o.key);
              break;
            case 'addAfter':
              q.addAfter(o.key, o.ms);
              m.addAfter(o.key, o.ms);
              break;
            case 'get': {
              if (q.len() === 0) break;
              const expected = m.get();
              const got = await q.get();
              expect(got).to.equal(expected);
              break;
            }
            case 'done': {
              const processing = [...m.processing];
              if (processing.length === 0) break;
              const k = processing[o.pick % processing.length] as string;
              q.done(k);
              m.done(k);
              break;
            }
            case 'remove':
              q.remove(o.key);
              m.remove(o.key);
              break;
            case 'advance':
              await clock.advance(o.ms);
              m.advance(o.ms);
              break;
          }
          expect(q.len()).to.equal(m.queued.length);
          expect(q.processingCount()).to.equal(m.processing.size);
          for (const k of ['a', 'b', 'c', 'd']) {
            expect(q.isProcessing(k)).to.equal(m.processing.has(k));
            expect(q.delayOf(k)).to.equal(m.delayed.has(k) ? (m.delayed.get(k)?.at ?? 0) - m.now : undefined);
          }
        }
        // Drain: the rest comes out in the model's order.
        await clock.advance(1000);
        m.advance(1000);
        for (const k of [...m.processing]) {
          q.done(k);
          m.done(k);
        }
        while (m.queued.length > 0) expect(await q.get()).to.equal(m.get());
        expect(q.len()).to.equal(0);
      }),
      { numRuns: 300 },
    );
  });
});
