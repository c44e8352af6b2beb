import { expect } from 'chai';
import fc from 'fast-check';
import type { Predicate, ResourceEvent } from '../index.js';
import { evaluate, and, or, not, funcs, generationChanged, labelSelector, labelsChanged, LabelSelector } from '../index.js';

const events: ResourceEvent[] = [
  { type: 'create', object: { metadata: { name: 'a' } } },
  { type: 'update', object: { metadata: { name: 'a' } }, oldObject: { metadata: { name: 'a' } } },
  { type: 'delete', object: { metadata: { name: 'a' } }, deleteStateUnknown: false },
  { type: 'generic', object: { metadata: { name: 'a' } } },
];
const always = (b: boolean): Predicate =>
  funcs({
    name: String(b),
    create: () => b,
    update: () => b,
    delete: () => b,
    generic: () => b,
  });

describe('and', () => {
  it('of nothing passes every event', () => {
    for (const e of events) expect(evaluate(and(), e)).to.equal(true);
  });
  it('drops an event when any operand drops it', () => {
    for (const e of events) {
      expect(evaluate(and(always(true), always(false)), e)).to.equal(false);
      expect(evaluate(and(always(true), always(true)), e)).to.equal(true);
    }
  });
  it('stops at the first false', () => {
    let ran = false;
    const spy: Predicate = { create: () => (ran = true) };
    evaluate(and(always(false), spy), events[0]!);
    expect(ran).to.equal(false);
  });
  it('combines built-ins: selector AND (generation OR labels changed)', () => {
    const p = and(labelSelector('app=web'), or(generationChanged(), labelsChanged()));
    const mk = (gen: number, labels: Record<string, string>) => ({ metadata: { name: 'a', generation: gen, labels } });
    expect(evaluate(p, { type: 'update', oldObject: mk(1, { app: 'web' }), object: mk(2, { app: 'web' }) })).to.equal(true);
    expect(evaluate(p, { type: 'update', oldObject: mk(1, { app: 'web' }), object: mk(1, { app: 'web', x: 'y' }) })).to.equal(true);
    expect(evaluate(p, { type: 'update', oldObject: mk(1, { app: 'web' }), object: mk(1, { app: 'web' }) })).to.equal(false);
    expect(evaluate(p, { type: 'update', oldObject: mk(1, { app: 'db' }), object: mk(2, { app: 'db' }) })).to.equal(false);
  });
  it('is named after its operands', () => {
    expect(and(generationChanged(), not(labelsChanged())).name).to.equal('and(generationChanged, not(labelsChanged))');
  });
});

describe('or', () => {
  it('of nothing drops every event', () => {
    for (const e of events) expect(evaluate(or(), e)).to.equal(false);
  });
  it('passes an event when any operand passes it', () => {
    for (const e of events) {
      expect(evaluate(or(always(false), always(true)), e)).to.equal(true);
      expect(evaluate(or(always(false), always(false)), e)).to.equal(false);
    }
  });
  it('counts a missing function as passing', () => {
    expect(evaluate(or(always(false), { update: () => false }), events[0]!)).to.equal(true);
  });
});

describe('not', () => {
  it('inverts every event type', () => {
    for (const e of events) {
      expect(evaluate(not(always(true)), e)).to.equal(false);
      expect(evaluate(not(always(false)), e)).to.equal(true);
    }
  });
  it('drops event types the operand leaves unfiltered', () => {
    const p = not({ update: () => false });
    expect(evaluate(p, events[1]!)).to.equal(true);
    expect(evaluate(p, events[0]!)).to.equal(false);
  });
  it('obeys De Morgan and double negation for any operands', () => {
    const arbP = fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }).map((bs): Predicate => ({
      create: () => bs[0]!,
      update: () => bs[1]!,
      delete: () => bs[2]!,
      generic: () => bs[3]!,
    }));
    fc.assert(
      fc.property(fc.array(arbP, { maxLength: 4 }), fc.constantFrom(...events), (ps, e) => {
        expect(evaluate(not(and(...ps)), e)).to.equal(evaluate(or(...ps.map((p) => not(p))), e));
        expect(evaluate(not(or(...ps)), e)).to.equal(evaluate(and(...ps.map((p) => not(p))), e));
        for (const p of ps) expect(evaluate(not(not(p)), e)).to.equal(evaluate(p, e));
      }),
    );
  });
});

describe('labelSelector', () => {
  const web = { metadata: { name: 'a', labels: { app: 'web', tier: 'front' } } };
  const db = { metadata: { name: 'a', labels: { app: 'db' } } };
  it('accepts a selector string', () => {
    const p = labelSelector('app=web,tier in (front,back)');
    expect(evaluate(p, { type: 'create', object: web })).to.equal(true);
    expect(evaluate(p, { type: 'create', object: db })).to.equal(false);
    expect(evaluate(p, { type: 'delete', object: db, deleteStateUnknown: false })).to.equal(false);
    expect(evaluate(p, { type: 'generic', object: web })).to.equal(true);
  });
  it('accepts a LabelSelector and tests the new object of an update', () => {
    const p = labelSelector(LabelSelector.fromSelector({ matchLabels: { app: 'web' } }));
    expect(evaluate(p, { type: 'update', oldObject: db, object: web })).to.equal(true);
    expect(evaluate(p, { type: 'update', oldObject: web, object: db })).to.equal(false);
  });
  it('accepts a metav1.LabelSelector object', () => {
    const p = labelSelector({ matchExpressions: [{ key: 'tier', operator: 'In', values: ['front'] }] });
    expect(evaluate(p, { type: 'create', object: web })).to.equal(true);
    expect(evaluate(p, { type: 'create', object: db })).to.equal(false);
  });
  it('treats an object without labels as an empty label set', () => {
    expect(evaluate(labelSelector('!app'), { type: 'create', object: { metadata: { name: 'a' } } })).to.equal(true);
    expect(evaluate(labelSelector('app'), { type: 'create', object: { metadata: { name: 'a' } } })).to.equal(false);
  });
  it('rejects a malformed selector at construction', () => {
    expect(() => labelSelector('app in (')).to.throw();
  });
});
