import { expect } from 'chai';
import type { FilterError, KubernetesObject, ResourceEvent } from '../index.js';
import { PRESENT, kopfFilter, labelSelector } from '../index.js';
import { stealthTransition } from '../internal.js';

const obj = (labels?: Record<string, string>, rv = '1'): KubernetesObject => ({
  metadata: { name: 'a', namespace: 'ns', resourceVersion: rv, ...(labels ? { labels } : {}) },
});
const managed = { 'example.com/managed': 'yes' };

describe('stealthTransition', () => {
  const stealth = stealthTransition(kopfFilter({ labels: { 'example.com/managed': PRESENT } }));

  it('drops a create of an object that does not match: it is invisible', () => {
    expect(stealth({ type: 'create', object: obj() })).to.equal(undefined);
  });

  it('keeps a create of a matching object', () => {
    const e: ResourceEvent = { type: 'create', object: obj(managed) };
    expect(stealth(e)).to.equal(e);
  });

  it('turns an update that makes the object match into a create of the new object', () => {
    const now = obj(managed, '2');
    expect(stealth({ type: 'update', oldObject: obj(undefined, '1'), object: now })).to.deep.equal({ type: 'create', object: now });
  });

  it('turns an update that makes the object stop matching into a delete carrying the new object', () => {
    const now = obj({}, '2');
    expect(stealth({ type: 'update', oldObject: obj(managed, '1'), object: now })).to.deep.equal({
      type: 'delete',
      object: now,
      deleteStateUnknown: false,
    });
  });

  it('keeps an update that matches on both sides and drops one that matches on neither', () => {
    const e: ResourceEvent = { type: 'update', oldObject: obj(managed, '1'), object: obj(managed, '2') };
    expect(stealth(e)).to.equal(e);
    expect(stealth({ type: 'update', oldObject: obj({}, '1'), object: obj({ x: 'y' }, '2') })).to.equal(undefined);
  });

  it('keeps delete and generic events of visible objects only', () => {
    expect(stealth({ type: 'delete', object: obj(managed), deleteStateUnknown: true })).to.not.equal(undefined);
    expect(stealth({ type: 'delete', object: obj(), deleteStateUnknown: false })).to.equal(undefined);
    expect(stealth({ type: 'generic', object: obj(managed) })).to.not.equal(undefined);
    expect(stealth({ type: 'generic', object: obj() })).to.equal(undefined);
  });

  it('works with any state predicate, such as a label selector', () => {
    const s = stealthTransition(labelSelector('tier=front'));
    expect(s({ type: 'update', oldObject: obj({ tier: 'back' }), object: obj({ tier: 'front' }) })?.type).to.equal('create');
  });

  it('makes the object visible when the filter throws, reporting the error', () => {
    const errors: FilterError[] = [];
    const s = stealthTransition(
      kopfFilter({
        when: () => {
          throw new Error('broken');
        },
      }),
    );
    const e: ResourceEvent = { type: 'create', object: obj() };
    expect(s(e, (err) => errors.push(err))).to.equal(e);
    expect(errors).to.have.length(1);
    expect(() => s(e)).to.throw(/broken/);
  });
});
