import { expect } from 'chai';
import fc from 'fast-check';
import { FakeClock } from '../fake-clock.js';
import { DelayedAdds } from './delayed-adds.js';

type Op =
  | { op: 'addAfter'; item: string; ms: number; priority: number }
  | { op: 'replace'; item: string; ms: number; priority: number }
  | { op: 'cancel'; item: string }
  | { op: 'advance'; ms: number };

const priority = fc.integer({ min: 0, max: 3 });
/** Operations on the items `item` draws, delays up to `maxMs`; `advanceWeight` (of 12) sets how often time moves. */
const opsOf = (item: fc.Arbitrary<string>, maxMs: number, advanceWeight: number): fc.Arbitrary<Op> => {
  const ms = fc.integer({ min: 1, max: maxMs });
  return fc.oneof(
    { weight: 4, arbitrary: fc.record({ op: fc.constant('addAfter' as const), item, ms, priority }) },
    { weight: 4, arbitrary: fc.record({ op: fc.constant('replace' as const), item, ms, priority }) },
    { weight: 4, arbitrary: fc.record({ op: fc.constant('cancel' as const), item }) },
    { weight: advanceWeight, arbitrary: fc.record({ op: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 60 }) }) },
  );
};
/** A few items, often due: every rule at small sizes. */
const op = opsOf(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), 8, 4);
/**
 * Up to 150 items, long delays, time moving seldom, everything due at the end: the heap's
 * parallel arrays grow past their first capacity and shrink back.
 */
const manyOps = fc
  .array(
    opsOf(
      fc.integer({ min: 0, max: 149 }).map((n) => `item-${n}`),
      200,
      1,
    ),
    { minLength: 100, maxLength: 500 },
  )
  .map((ops): Op[] => [...ops, { op: 'advance', ms: 300 }]);

/** The delay rules written the obvious way: a timer of its own per item, fired in deadline order. */
class Model {
  readonly pending = new Map<string, { at: number; priority: number; seq: number }>();
  readonly due: [string, number, number][] = [];
  now = 0;
  seq = 0;

  addAfter(item: string, ms: number, priority: number): void {
    const at = this.now + ms;
    const p = this.pending.get(item);
    if (p === undefined) return void this.pending.set(item, { at, priority, seq: this.seq++ });
    p.priority = Math.max(p.priority, priority);
    if (at < p.at) Object.assign(p, { at, seq: this.seq++ });
  }

  replace(item: string, ms: number, priority: number): void {
    this.pending.set(item, { at: this.now + ms, priority, seq: this.seq++ });
  }

  advance(ms: number): void {
    const target = this.now + ms;
    for (;;) {
      const next = [...this.pending].sort(([, x], [, y]) => x.at - y.at || x.seq - y.seq)[0];
      if (next === undefined || next[1].at > target) break;
      this.pending.delete(next[0]);
      this.now = next[1].at;
      this.due.push([next[0], next[1].priority, this.now]);
    }
    this.now = target;
  }
}

/** Runs `ops` on a DelayedAdds and on the model, checking after each that they agree. */
async function checkAgainstModel(ops: readonly Op[]): Promise<void> {
  const clock = new FakeClock();
  const due: [string, number, number][] = [];
  const delays = new DelayedAdds<string>(clock, (i, p) => due.push([i, p, clock.now()]));
  const model = new Model();
  for (const o of ops) {
    switch (o.op) {
      case 'addAfter':
        delays.addAfter(o.item, o.ms, o.priority);
        model.addAfter(o.item, o.ms, o.priority);
        break;
      case 'replace':
        delays.replace(o.item, o.ms, o.priority);
        model.replace(o.item, o.ms, o.priority);
        break;
      case 'cancel':
        expect(delays.cancel(o.item)).to.equal(model.pending.delete(o.item));
        break;
      case 'advance':
        await clock.advance(o.ms);
        model.advance(o.ms);
        break;
    }
    expect(due).to.deep.equal(model.due);
    expect(delays.size).to.equal(model.pending.size);
    for (const [i, p] of model.pending) expect(delays.delayOf(i)).to.equal(p.at - model.now);
    expect(clock.pendingTimers()).to.be.at.most(1);
    if (model.pending.size > 0) expect(clock.pendingTimers()).to.equal(1);
  }
  delays.clear();
  expect(clock.pendingTimers()).to.equal(0);
}

describe('DelayedAdds (property)', () => {
  it('hands each item over at its deadline, in deadline order, with the priority the rules keep, on one timer', async () => {
    await fc.assert(fc.asyncProperty(fc.array(op, { maxLength: 60 }), checkAgainstModel), { numRuns: 300 });
  });

  it('keeps the same rules with up to 150 pending items (the heap grows and shrinks)', async () => {
    await fc.assert(fc.asyncProperty(manyOps, checkAgainstModel), { numRuns: 40 });
  });
});
