import { expect } from 'chai';
import fc from 'fast-check';
import { FakeClock, ItemExponentialFailureRateLimiter, PriorityWorkQueue } from '../index.js';

type Op =
  | { op: 'add'; key: string; priority: number }
  | { op: 'addAfter'; key: string; ms: number; priority: number }
  | { op: 'get' }
  | { op: 'done'; pick: number }
  | { op: 'remove'; key: string }
  | { op: 'advance'; ms: number };

const keys = ['a', 'b', 'c', 'd', 'e'];
const key = fc.constantFrom(...keys);
// Few distinct priorities, so that ties (FIFO within one priority) and upgrades are common.
const priority = fc.constantFrom(-100, 0, 0, 5);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('add' as const), key, priority }),
  fc.record({ op: fc.constant('addAfter' as const), key, ms: fc.integer({ min: 0, max: 50 }), priority }),
  fc.record({ op: fc.constant('get' as const) }),
  fc.record({ op: fc.constant('done' as const), pick: fc.nat() }),
  fc.record({ op: fc.constant('remove' as const), key }),
  fc.record({ op: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 60 }) }),
);

interface Waiting {
  key: string;
  priority: number;
  order: number;
}

/** controller-runtime's priority queue semantics written the obvious (slow) way. */
class Model {
  queued: Waiting[] = [];
  processing = new Set<string>();
  followUp = new Map<string, Waiting>();
  delayed = new Map<string, { at: number; seq: number; priority: number }>();
  now = 0;
  seq = 0;
  order = 0;

  add(k: string, p: number): void {
    const waiting = this.queued.find((w) => w.key === k) ?? this.followUp.get(k);
    if (waiting !== undefined) {
      // Dedupe: one entry per key, keeping its first place in line and the higher priority.
      waiting.priority = Math.max(waiting.priority, p);
      return;
    }
    const entry = { key: k, priority: p, order: this.order++ };
    if (this.processing.has(k)) this.followUp.set(k, entry);
    else this.queued.push(entry);
  }
  addAfter(k: string, ms: number, p: number): void {
    if (ms <= 0) return this.add(k, p);
    const cur = this.delayed.get(k);
    if (cur !== undefined) {
      cur.priority = Math.max(cur.priority, p);
      if (cur.at <= this.now + ms) return;
      p = cur.priority;
    }
    this.delayed.set(k, { at: this.now + ms, seq: this.seq++, priority: p });
  }
  /** Highest priority, then first added. */
  get(): string | undefined {
    let best: Waiting | undefined;
    for (const w of this.queued) {
      if (best === undefined || w.priority > best.priority || (w.priority === best.priority && w.order < best.order)) best = w;
    }
    if (best === undefined) return undefined;
    this.queued = this.queued.filter((w) => w !== best);
    this.processing.add(best.key);
    return best.key;
  }
  done(k: string): void {
    this.processing.delete(k);
    const followUp = this.followUp.get(k);
    if (followUp !== undefined) {
      this.followUp.delete(k);
      this.queued.push(followUp);
    }
  }
  remove(k: string): void {
    this.queued = this.queued.filter((w) => w.key !== k);
    this.followUp.delete(k);
    this.delayed.delete(k);
  }
  advance(ms: number): void {
    const target = this.now + ms;
    const due = [...this.delayed].filter(([, d]) => d.at <= target).sort(([, x], [, y]) => x.at - y.at || x.seq - y.seq);
    for (const [k, d] of due) {
      this.delayed.delete(k);
      this.add(k, d.priority);
    }
    this.now = target;
  }
}

/** What the queue and the model both answer to: the adds and removes are applied to each alike. */
interface Writable {
  add(k: string, p: number): void;
  addAfter(k: string, ms: number, p: number): void;
  remove(k: string): unknown;
}

function write(target: Writable, o: Extract<Op, { op: 'add' | 'addAfter' | 'remove' }>): void {
  if (o.op === 'add') target.add(o.key, o.priority);
  else if (o.op === 'addAfter') target.addAfter(o.key, o.ms, o.priority);
  else target.remove(o.key);
}

/** Applies one op to the queue and the model, checking what the queue hands out. */
async function step(o: Op, q: PriorityWorkQueue, clock: FakeClock, m: Model): Promise<void> {
  if (o.op === 'get') {
    if (q.len() > 0) expect(await q.get()).to.equal(m.get());
  } else if (o.op === 'done') {
    const processing = [...m.processing];
    const k = processing[o.pick % Math.max(1, processing.length)];
    if (k === undefined) return;
    q.done(k);
    m.done(k);
  } else if (o.op === 'advance') {
    await clock.advance(o.ms);
    m.advance(o.ms);
  } else {
    write(q, o);
    write(m, o);
  }
}

/** The queue's observable state equals the model's. */
function expectSameState(q: PriorityWorkQueue, m: Model): void {
  expect({ waiting: q.len(), processing: q.processingCount() }).to.deep.equal({ waiting: m.queued.length, processing: m.processing.size });
  for (const k of keys) {
    expect(q.isProcessing(k), `${k} processing`).to.equal(m.processing.has(k));
    const delayed = m.delayed.get(k);
    expect(q.delayOf(k), `${k} delay`).to.equal(delayed === undefined ? undefined : delayed.at - m.now);
    if (!m.processing.has(k)) expect(q.priorityOf(k), `${k} priority`).to.equal(m.queued.find((w) => w.key === k)?.priority);
  }
}

describe('PriorityWorkQueue (properties)', () => {
  it('behaves exactly like the reference model: order, dedupe, priority upgrade, delayed items', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 100 }), async (ops) => {
        const clock = new FakeClock();
        const q = new PriorityWorkQueue({ clock, rateLimiter: new ItemExponentialFailureRateLimiter() });
        const m = new Model();
        for (const o of ops) {
          await step(o, q, clock, m);
          expectSameState(q, m);
        }
        // Everything left, delays included, comes out in the model's order once the workers are done.
        await step({ op: 'advance', ms: 1000 }, q, clock, m);
        for (const k of [...m.processing]) await step({ op: 'done', pick: [...m.processing].indexOf(k) }, q, clock, m);
        const rest: (string | undefined)[] = [];
        const expected: (string | undefined)[] = [];
        while (m.queued.length > 0) {
          expected.push(m.get());
          rest.push(await q.get());
        }
        expect(rest).to.deep.equal(expected);
        expect(q.len()).to.equal(0);
      }),
      { numRuns: 400 },
    );
  });
});
