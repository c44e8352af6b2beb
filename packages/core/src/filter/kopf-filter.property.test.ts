import { expect } from 'chai';
import fc from 'fast-check';
import type { KubernetesObject, MetaCriterion, ResourceEvent } from '../index.js';
import { ABSENT, PRESENT, evaluate, kopfFilter, labelSelector } from '../index.js';
import { stealthTransition } from '../internal.js';

const key = fc.constantFrom('app', 'tier', 'example.com/team');
const value = fc.constantFrom('', 'web', 'db');
const labels = fc.dictionary(key, value, { maxKeys: 3 });
const criterion = fc.oneof(value, fc.constant(PRESENT), fc.constant(ABSENT)) as fc.Arbitrary<MetaCriterion>;
const criteria = fc.dictionary(key, criterion, { maxKeys: 3 });
const obj = (l: Record<string, string>, spec?: Record<string, unknown>): KubernetesObject => ({
  metadata: { name: 'a', namespace: 'ns', labels: l },
  ...(spec ? { spec } : {}),
});

/** The same requirements in the label selector syntax: both models must agree. */
function asSelector(c: Record<string, MetaCriterion>): string {
  return Object.entries(c)
    .map(([k, v]) => (v === PRESENT ? k : v === ABSENT ? `!${k}` : `${k}=${v as string}`))
    .join(',');
}

describe('kopfFilter (properties)', () => {
  it('agrees with the equivalent label selector on every event type', () => {
    fc.assert(
      fc.property(criteria, labels, labels, (c, oldL, newL) => {
        const kopf = kopfFilter({ labels: c });
        const sel = labelSelector(asSelector(c));
        const events: ResourceEvent[] = [
          { type: 'create', object: obj(newL) },
          { type: 'update', oldObject: obj(oldL), object: obj(newL) },
          { type: 'delete', object: obj(newL), deleteStateUnknown: false },
          { type: 'generic', object: obj(newL) },
        ];
        for (const e of events) expect(evaluate(kopf, e)).to.equal(evaluate(sel, e));
      }),
    );
  });

  it('passes an update with field + value exactly when the field changed and old or new satisfies value', () => {
    const fieldValue = fc.option(fc.constantFrom('x', 'y', 'z'), { nil: undefined });
    fc.assert(
      fc.property(fieldValue, fieldValue, fc.constantFrom('x', 'y'), (o, n, v) => {
        const spec = (f: string | undefined) => (f === undefined ? {} : { field: f });
        const e: ResourceEvent = { type: 'update', oldObject: obj({}, spec(o)), object: obj({}, spec(n)) };
        expect(evaluate(kopfFilter({ field: 'spec.field', value: v }), e)).to.equal(o !== n && (o === v || n === v));
        expect(evaluate(kopfFilter({ field: 'spec.field', new: v }), e)).to.equal(o !== n && n === v);
        expect(evaluate(kopfFilter({ field: 'spec.field', old: v }), e)).to.equal(o !== n && o === v);
      }),
    );
  });

  it('stealth: an update is seen as create, update, delete or nothing exactly by visibility of old and new', () => {
    fc.assert(
      fc.property(criteria, labels, labels, (c, oldL, newL) => {
        const f = kopfFilter({ labels: c });
        const visible = (l: Record<string, string>) => evaluate(f, { type: 'generic', object: obj(l) });
        const out = stealthTransition(f)({ type: 'update', oldObject: obj(oldL), object: obj(newL) });
        const expected = visible(oldL) ? (visible(newL) ? 'update' : 'delete') : visible(newL) ? 'create' : undefined;
        expect(out?.type).to.equal(expected);
      }),
    );
  });
});
