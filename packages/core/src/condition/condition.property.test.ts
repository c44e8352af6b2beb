import { expect } from 'chai';
import fc from 'fast-check';
import {
  findStatusCondition,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
  type Condition,
  type ConditionInput,
  type ConditionStatus,
} from '../index.js';
import { deepFreeze } from '../internal.js';

type Op = { op: 'set'; input: ConditionInput; tick: number } | { op: 'remove'; type: string };

const type = fc.constantFrom('Ready', 'Available', 'example.com/Synced');
const status = fc.constantFrom<ConditionStatus>('True', 'False', 'Unknown');
const reason = fc.constantFrom('Reconciled', 'DeploymentUnavailable', 'Waiting_For:Pod');
const op: fc.Arbitrary<Op> = fc.oneof(
  {
    arbitrary: fc.record({
      op: fc.constant('set' as const),
      input: fc.record(
        {
          type,
          status,
          reason,
          message: fc.constantFrom('', 'all good', 'replica 0 of 1'),
          observedGeneration: fc.integer({ min: 0, max: 3 }),
        },
        { requiredKeys: ['type', 'status', 'reason'] },
      ),
      tick: fc.integer({ min: 0, max: 5 }),
    }),
    weight: 4,
  },
  { arbitrary: fc.record({ op: fc.constant('remove' as const), type }), weight: 1 },
);

/** apimachinery's SetStatusCondition and RemoveStatusCondition, written the obvious mutable way. */
class Model {
  readonly list: { -readonly [K in keyof Condition]: Condition[K] }[] = [];
  set(input: ConditionInput, now: string): boolean {
    const found = this.list.find((c) => c.type === input.type);
    if (found === undefined) {
      this.list.push({
        type: input.type,
        status: input.status,
        ...(input.observedGeneration === undefined ? {} : { observedGeneration: input.observedGeneration }),
        lastTransitionTime: now,
        reason: input.reason,
        message: input.message ?? '',
      });
      return true;
    }
    let changed = false;
    if (found.status !== input.status) {
      found.status = input.status;
      found.lastTransitionTime = now;
      changed = true;
    }
    if (found.reason !== input.reason) {
      found.reason = input.reason;
      changed = true;
    }
    if (found.message !== (input.message ?? '')) {
      found.message = input.message ?? '';
      changed = true;
    }
    if (found.observedGeneration !== input.observedGeneration) {
      if (input.observedGeneration === undefined) delete found.observedGeneration;
      else found.observedGeneration = input.observedGeneration;
      changed = true;
    }
    return changed;
  }
  remove(type: string): boolean {
    const at = this.list.findIndex((c) => c.type === type);
    if (at >= 0) this.list.splice(at, 1);
    return at >= 0;
  }
}

describe('setStatusCondition and removeStatusCondition (property)', () => {
  it('match apimachinery: one condition per type, lastTransitionTime moves only with status, frozen inputs untouched', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const model = new Model();
        let conditions: readonly Condition[] | undefined;
        let clock = Date.parse('2026-11-25T18:00:00Z');
        for (const o of ops) {
          const before = conditions === undefined ? undefined : JSON.stringify(conditions);
          let next: readonly Condition[];
          let changed: boolean;
          if (o.op === 'set') {
            clock += o.tick * 1000;
            const now = new Date(clock);
            next = setStatusCondition(conditions, o.input, { now: () => now });
            changed = model.set(o.input, now.toISOString().replace(/\.\d+Z$/, 'Z'));
          } else {
            next = removeStatusCondition(conditions, o.type);
            changed = model.remove(o.type);
          }
          // The input is never changed; the same array comes back exactly when nothing changed.
          if (before !== undefined) expect(JSON.stringify(conditions)).to.equal(before);
          if (conditions !== undefined) expect(next === conditions).to.equal(!changed);
          expect(Object.isFrozen(next)).to.equal(true);
          for (const c of next) expect(Object.isFrozen(c)).to.equal(true);
          expect(JSON.parse(JSON.stringify(next))).to.deep.equal(model.list);
          expect(new Set(next.map((c) => c.type)).size).to.equal(next.length);
          for (const t of ['Ready', 'Available', 'example.com/Synced']) {
            const m = model.list.find((c) => c.type === t);
            expect(findStatusCondition(next, t)?.status).to.equal(m?.status);
            expect(isStatusConditionTrue(next, t)).to.equal(m?.status === 'True');
            expect(isStatusConditionFalse(next, t)).to.equal(m?.status === 'False');
            expect(isStatusConditionPresentAndEqual(next, t, 'Unknown')).to.equal(m?.status === 'Unknown');
          }
          conditions = deepFreeze(next);
        }
      }),
      { numRuns: 300 },
    );
  });
});
