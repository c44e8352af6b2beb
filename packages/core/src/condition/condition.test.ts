import { expect } from 'chai';
import { InvalidConditionError, setStatusCondition, type Condition, type ConditionInput } from '../index.js';

const at = (iso: string) => ({ now: () => new Date(iso) });

describe('setStatusCondition', () => {
  it('stamps a new condition with the time of the call, in whole seconds as metav1.Time writes it', () => {
    const [ready] = setStatusCondition(undefined, { type: 'Ready', status: 'True', reason: 'Reconciled' }, at('2026-11-25T18:00:01.456Z'));
    expect(ready).to.deep.equal({
      type: 'Ready',
      status: 'True',
      lastTransitionTime: '2026-11-25T18:00:01Z',
      reason: 'Reconciled',
      message: '',
    });
  });

  it('keeps lastTransitionTime when only reason, message or observedGeneration change', () => {
    const first = setStatusCondition(
      [],
      { type: 'Ready', status: 'False', reason: 'Waiting', observedGeneration: 1 },
      at('2026-11-25T18:00:00Z'),
    );
    const second = setStatusCondition(
      first,
      { type: 'Ready', status: 'False', reason: 'DeploymentUnavailable', message: 'replica 0 of 1', observedGeneration: 2 },
      at('2026-11-25T18:05:00Z'),
    );
    expect(second[0]).to.include({ lastTransitionTime: '2026-11-25T18:00:00Z', reason: 'DeploymentUnavailable', observedGeneration: 2 });
    const third = setStatusCondition(
      second,
      { type: 'Ready', status: 'True', reason: 'Reconciled', observedGeneration: 2 },
      at('2026-11-25T18:07:00Z'),
    );
    expect(third[0]!.lastTransitionTime).to.equal('2026-11-25T18:07:00Z');
  });

  it('uses a given lastTransitionTime on a status change', () => {
    const first = setStatusCondition([], { type: 'Ready', status: 'False', reason: 'Waiting' }, at('2026-11-25T18:00:00Z'));
    const next = setStatusCondition(first, {
      type: 'Ready',
      status: 'True',
      reason: 'Reconciled',
      lastTransitionTime: '2026-11-25T17:59:00Z',
    });
    expect(next[0]!.lastTransitionTime).to.equal('2026-11-25T17:59:00Z');
  });

  const bad: [string, Partial<ConditionInput>, string][] = [
    ['a reason that is prose', { reason: 'deployment is not available' }, 'reason'],
    ['a reason ending in a comma', { reason: 'Waiting,' }, 'reason'],
    ['an empty reason', { reason: '' }, 'reason'],
    ['a status outside True/False/Unknown', { status: 'true' as Condition['status'] }, 'status'],
    ['a type that is no qualified name', { type: 'not ready!' }, 'type'],
    ['a negative observedGeneration', { observedGeneration: -1 }, 'observedGeneration'],
    ['a lastTransitionTime not in RFC 3339', { lastTransitionTime: 'yesterday' }, 'lastTransitionTime'],
    ['a message over 32768 characters', { message: 'x'.repeat(32769) }, 'message'],
  ];
  for (const [what, change, field] of bad) {
    it(`refuses ${what}, naming the condition and the field`, () => {
      const input: ConditionInput = { type: 'Ready', status: 'True', reason: 'Reconciled', ...change };
      expect(() => setStatusCondition([], input))
        .to.throw(InvalidConditionError)
        .that.satisfies(
          (e: InvalidConditionError) => e.field === field && e.message.includes(JSON.stringify(input.type)) && e.message.includes(field),
        );
    });
  }
});
