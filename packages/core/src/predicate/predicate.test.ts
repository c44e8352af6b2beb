import { expect } from 'chai';
import type { KubernetesObject, Predicate, ResourceEvent, FilterError as FilterErrorT } from '../index.js';
import { evaluate, funcs, newPredicateFuncs, FilterError, and, not } from '../index.js';

const obj = (name: string, extra: Partial<KubernetesObject['metadata']> = {}): KubernetesObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'ns', ...extra },
});
const create = (o: KubernetesObject): ResourceEvent => ({ type: 'create', object: o });
const update = (oldObject: KubernetesObject, object: KubernetesObject): ResourceEvent => ({
  type: 'update',
  object,
  oldObject,
});
const del = (o: KubernetesObject, deleteStateUnknown = false): ResourceEvent => ({
  type: 'delete',
  object: o,
  deleteStateUnknown,
});
const generic = (o: KubernetesObject): ResourceEvent => ({ type: 'generic', object: o });

describe('evaluate', () => {
  it('dispatches each event type to its own function', () => {
    const seen: string[] = [];
    const p: Predicate = {
      create: () => (seen.push('create'), true),
      update: () => (seen.push('update'), false),
      delete: () => (seen.push('delete'), true),
      generic: () => (seen.push('generic'), false),
    };
    expect(evaluate(p, create(obj('a')))).to.equal(true);
    expect(evaluate(p, update(obj('a'), obj('a')))).to.equal(false);
    expect(evaluate(p, del(obj('a')))).to.equal(true);
    expect(evaluate(p, generic(obj('a')))).to.equal(false);
    expect(seen).to.deep.equal(['create', 'update', 'delete', 'generic']);
  });

  it('passes events whose function is missing', () => {
    const p: Predicate = { update: () => false };
    expect(evaluate(p, create(obj('a')))).to.equal(true);
    expect(evaluate(p, del(obj('a')))).to.equal(true);
    expect(evaluate(p, generic(obj('a')))).to.equal(true);
    expect(evaluate({}, update(obj('a'), obj('a')))).to.equal(true);
  });

  it('throws a FilterError with object key, event type, predicate name and cause when no listener is given', () => {
    const boom = new Error('boom');
    const p: Predicate = {
      name: 'exploding',
      create: () => {
        throw boom;
      },
    };
    let caught: unknown;
    try {
      evaluate(p, create(obj('a')));
    } catch (err) {
      caught = err;
    }
    expect(caught).to.be.instanceOf(FilterError);
    const e = caught as FilterErrorT;
    expect(e.name).to.equal('FilterError');
    expect(e.objectKey).to.equal('ns/a');
    expect(e.eventType).to.equal('create');
    expect(e.predicate).to.equal('exploding');
    expect(e.cause).to.equal(boom);
    expect(e.message).to.contain('ns/a').and.contain('exploding').and.contain('boom');
  });

  it('reports to the listener and lets the event pass, so no event is lost', () => {
    const errors: FilterErrorT[] = [];
    const p: Predicate = {
      name: 'picky',
      update: (e) => {
        if (e.object.metadata?.name === 'bad') throw new TypeError('cannot read');
        return false;
      },
    };
    const results = ['good', 'bad', 'other'].map((n) => evaluate(p, update(obj(n), obj(n)), (e) => errors.push(e)));
    expect(results).to.deep.equal([false, true, false]);
    expect(errors).to.have.length(1);
    expect(errors[0]!.objectKey).to.equal('ns/bad');
  });

  it('names the innermost predicate that threw inside a composition', () => {
    const thrower: Predicate = {
      name: 'inner',
      generic: () => {
        throw new Error('x');
      },
    };
    const errors: FilterErrorT[] = [];
    // not() of a throwing predicate must not turn the failure into a silent `false`
    expect(evaluate(not(and({ name: 'ok' }, thrower)), generic(obj('a')), (e) => errors.push(e))).to.equal(true);
    expect(errors.map((e) => e.predicate)).to.deep.equal(['inner']);
  });

  it('reports objects without a usable name with an undefined key', () => {
    const p: Predicate = {
      create: () => {
        throw new Error('x');
      },
    };
    const errors: FilterErrorT[] = [];
    evaluate(p, create({ metadata: {} }), (e) => errors.push(e));
    expect(errors[0]!.objectKey).to.equal(undefined);
    expect(errors[0]!.predicate).to.equal('anonymous');
  });

  it('rejects an unknown event type as an error of the predicate', () => {
    expect(() => evaluate({}, { type: 'bogus', object: obj('a') } as never)).to.throw(FilterError, /unknown event type/);
  });

  it('judges a non-boolean answer from plain JS by truthiness and always returns a boolean', () => {
    expect(evaluate({ create: () => 'yes' } as unknown as Predicate, create(obj('a')))).to.equal(true);
    expect(evaluate({ create: () => undefined } as unknown as Predicate, create(obj('a')))).to.equal(false);
  });
});

describe('funcs', () => {
  // Operator SDK "Using Predicates" example: ignoreDeletionPredicate for the memcached operator.
  const ignoreDeletionPredicate = () =>
    funcs({
      // Ignore updates to CR status in which case metadata.generation does not change
      update: (e) => e.oldObject.metadata?.generation !== e.object.metadata?.generation,
      // Evaluates to false if the object has been confirmed deleted.
      delete: (e) => !e.deleteStateUnknown,
    });

  it('ignoreDeletionPredicate: passes updates that change generation only', () => {
    const p = ignoreDeletionPredicate();
    expect(evaluate(p, update(obj('m', { generation: 1 }), obj('m', { generation: 2 })))).to.equal(true);
    expect(evaluate(p, update(obj('m', { generation: 2 }), obj('m', { generation: 2, resourceVersion: '9' })))).to.equal(false);
  });

  it('ignoreDeletionPredicate: passes deletes only when the final state is known', () => {
    const p = ignoreDeletionPredicate();
    expect(evaluate(p, del(obj('m'), false))).to.equal(true);
    expect(evaluate(p, del(obj('m'), true))).to.equal(false);
  });

  it('ignoreDeletionPredicate: leaves create and generic events unfiltered', () => {
    const p = ignoreDeletionPredicate();
    expect(evaluate(p, create(obj('m')))).to.equal(true);
    expect(evaluate(p, generic(obj('m')))).to.equal(true);
  });

  it('keeps a given name and defaults it to funcs', () => {
    expect(funcs({}).name).to.equal('funcs');
    expect(funcs({ name: 'mine' }).name).to.equal('mine');
  });
});

describe('newPredicateFuncs', () => {
  const isWeb = newPredicateFuncs((o) => o.metadata?.labels?.['app'] === 'web');
  const web = obj('a', { labels: { app: 'web' } });
  const db = obj('a', { labels: { app: 'db' } });

  it('applies the object test to create, delete and generic events', () => {
    expect(evaluate(isWeb, create(web))).to.equal(true);
    expect(evaluate(isWeb, create(db))).to.equal(false);
    expect(evaluate(isWeb, del(web))).to.equal(true);
    expect(evaluate(isWeb, del(db))).to.equal(false);
    expect(evaluate(isWeb, generic(web))).to.equal(true);
    expect(evaluate(isWeb, generic(db))).to.equal(false);
  });

  it('tests the new object of an update, as controller-runtime does', () => {
    expect(evaluate(isWeb, update(db, web))).to.equal(true);
    expect(evaluate(isWeb, update(web, db))).to.equal(false);
  });
});
