import { expect } from 'chai';
import type { HandlerError, KubernetesObject, ResourceEvent } from '../index.js';
import { ResourceID, enqueueFromMapFunc } from '../index.js';
import { mapEvent } from '../internal.js';

// A Job names its Cluster in a label; Job events reconcile that Cluster.
const job = (name: string, clusters: string[]): KubernetesObject => ({
  metadata: { name, namespace: 'ns', annotations: { clusters: clusters.join(',') } },
});
const toClusters = (j: KubernetesObject) =>
  (j.metadata?.annotations?.['clusters'] ?? '')
    .split(',')
    .filter(Boolean)
    .map((c) => ResourceID.of(c, 'ns'));
const keys = (e: ResourceEvent, onError?: (e: HandlerError) => void) =>
  mapEvent(enqueueFromMapFunc(toClusters), e, onError).map((id) => id.key);

describe('enqueueFromMapFunc', () => {
  it('maps the object of create, delete and generic events', () => {
    expect(keys({ type: 'create', object: job('j', ['c1', 'c2']) })).to.deep.equal(['ns/c1', 'ns/c2']);
    expect(keys({ type: 'delete', object: job('j', ['c1']), deleteStateUnknown: false })).to.deep.equal(['ns/c1']);
    expect(keys({ type: 'generic', object: job('j', []) })).to.deep.equal([]);
  });

  it('maps both old and new on update and returns the union without duplicates', () => {
    expect(keys({ type: 'update', oldObject: job('j', ['c1', 'c2']), object: job('j', ['c2', 'c3']) })).to.deep.equal([
      'ns/c1',
      'ns/c2',
      'ns/c3',
    ]);
    expect(keys({ type: 'update', oldObject: job('j', ['c1']), object: job('j', ['c1']) })).to.deep.equal(['ns/c1']);
  });

  it('reports a throw on one side of an update with that object key and still maps the other side', () => {
    const errors: HandlerError[] = [];
    const h = enqueueFromMapFunc<KubernetesObject>((o) => {
      if (o.metadata?.resourceVersion === '1') throw new Error('cannot map old');
      return [ResourceID.of('p', 'ns')];
    }, 'clusterOf');
    const ev: ResourceEvent = {
      type: 'update',
      oldObject: { metadata: { name: 'j1', namespace: 'ns', resourceVersion: '1' } },
      object: { metadata: { name: 'j1', namespace: 'ns', resourceVersion: '2' } },
    };
    expect(mapEvent(h, ev, (e) => errors.push(e)).map((id) => id.key)).to.deep.equal(['ns/p']);
    expect(errors).to.have.length(1);
    expect(errors[0]!).to.include({ handler: 'clusterOf', objectKey: 'ns/j1', eventType: 'update' });
  });

  it('treats a lazy iterable that throws mid-way as that object failing', () => {
    const errors: HandlerError[] = [];
    const h = enqueueFromMapFunc(function* () {
      yield ResourceID.of('a');
      throw new Error('mid-way');
    });
    expect(mapEvent(h, { type: 'create', object: job('j', []) }, (e) => errors.push(e)).map((id) => id.key)).to.deep.equal(['a']);
    expect(errors).to.have.length(1);
  });
});
