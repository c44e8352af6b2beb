import { expect } from 'chai';
import type { HandlerError, KubernetesObject, ResourceEvent } from '../index.js';
import { enqueueForObject } from '../index.js';
import { mapEvent } from '../internal.js';

const o = (name: string, namespace?: string): KubernetesObject => ({ metadata: { name, ...(namespace ? { namespace } : {}) } });
const keys = (e: ResourceEvent, onError?: (e: HandlerError) => void) => mapEvent(enqueueForObject(), e, onError).map((id) => id.key);

describe('enqueueForObject', () => {
  it('returns the object ID for create, delete and generic events', () => {
    expect(keys({ type: 'create', object: o('a', 'ns') })).to.deep.equal(['ns/a']);
    expect(keys({ type: 'delete', object: o('a', 'ns'), deleteStateUnknown: true })).to.deep.equal(['ns/a']);
    expect(keys({ type: 'generic', object: o('node-1') })).to.deep.equal(['node-1']);
  });

  it('returns the new object ID for an update, the old one when the new is missing', () => {
    expect(keys({ type: 'update', oldObject: o('a', 'ns'), object: o('a', 'ns') })).to.deep.equal(['ns/a']);
    expect(keys({ type: 'update', oldObject: o('a', 'ns'), object: undefined } as unknown as ResourceEvent)).to.deep.equal(['ns/a']);
  });

  it('reports an object without a name with the field and yields nothing', () => {
    const errors: HandlerError[] = [];
    expect(keys({ type: 'create', object: { metadata: { namespace: 'ns' } } }, (e) => errors.push(e))).to.deep.equal([]);
    expect(errors[0]!.field).to.equal('metadata.name');
    expect(errors[0]!.handler).to.equal('enqueueForObject');
  });
});
