import { expect } from 'chai';
import type { HandlerError, KubernetesObject, OwnerReference, ResourceEvent } from '../index.js';
import { enqueueForOwner } from '../index.js';
import { mapEvent } from '../internal.js';

const ref = (apiVersion: string, kind: string, name: string, controller?: boolean): OwnerReference => ({
  apiVersion,
  kind,
  name,
  uid: `uid-${name}`,
  ...(controller === undefined ? {} : { controller }),
});
const pod = (refs: unknown[], namespace: string | undefined = 'ns', name = 'p'): KubernetesObject => ({
  metadata: { name, ...(namespace ? { namespace } : {}), ownerReferences: refs as OwnerReference[] },
});
const create = (o: KubernetesObject): ResourceEvent => ({ type: 'create', object: o });
const run = (opts: Parameters<typeof enqueueForOwner>[0], e: ResourceEvent, errors?: HandlerError[]) =>
  mapEvent(enqueueForOwner(opts), e, errors ? (err) => errors.push(err) : undefined).map((id) => id.key);

describe('enqueueForOwner', () => {
  it('returns owners matching group and kind, in the object namespace', () => {
    const p = pod([ref('apps/v1', 'ReplicaSet', 'rs-1'), ref('apps/v1', 'Deployment', 'd'), ref('batch/v1', 'ReplicaSet', 'x')]);
    expect(run({ group: 'apps', kind: 'ReplicaSet' }, create(p))).to.deep.equal(['ns/rs-1']);
  });

  it('ignores the version of the owner reference', () => {
    const p = pod([ref('apps/v1beta2', 'ReplicaSet', 'old'), ref('apps/v1', 'ReplicaSet', 'new')]);
    expect(run({ group: 'apps', kind: 'ReplicaSet' }, create(p))).to.deep.equal(['ns/old', 'ns/new']);
  });

  it('reads a bare version as the core group', () => {
    const p = pod([ref('v1', 'ConfigMap', 'cm'), ref('example.com/v1', 'ConfigMap', 'not-core')]);
    expect(run({ group: '', kind: 'ConfigMap' }, create(p))).to.deep.equal(['ns/cm']);
    expect(run({ group: 'example.com', kind: 'ConfigMap' }, create(p))).to.deep.equal(['ns/not-core']);
  });

  it('follows only the controller reference when controllerOnly is set', () => {
    const p = pod([ref('apps/v1', 'ReplicaSet', 'a', false), ref('apps/v1', 'ReplicaSet', 'b', true), ref('apps/v1', 'ReplicaSet', 'c')]);
    expect(run({ group: 'apps', kind: 'ReplicaSet', controllerOnly: true }, create(p))).to.deep.equal(['ns/b']);
    expect(run({ group: 'apps', kind: 'ReplicaSet' }, create(p))).to.deep.equal(['ns/a', 'ns/b', 'ns/c']);
  });

  it('returns nothing with controllerOnly when the controller is of another kind', () => {
    const p = pod([ref('apps/v1', 'Deployment', 'd', true), ref('apps/v1', 'ReplicaSet', 'rs')]);
    expect(run({ group: 'apps', kind: 'ReplicaSet', controllerOnly: true }, create(p))).to.deep.equal([]);
  });

  it('gives cluster-scoped owners no namespace', () => {
    const p = pod([ref('example.com/v1', 'Cluster', 'c1')]);
    expect(run({ group: 'example.com', kind: 'Cluster', clusterScopedOwner: true }, create(p))).to.deep.equal(['c1']);
    expect(run({ group: 'example.com', kind: 'Cluster' }, create(p))).to.deep.equal(['ns/c1']);
  });

  it('returns the owners of both old and new on update, deduplicated', () => {
    const e: ResourceEvent = {
      type: 'update',
      oldObject: pod([ref('apps/v1', 'ReplicaSet', 'a'), ref('apps/v1', 'ReplicaSet', 'b')]),
      object: pod([ref('apps/v1', 'ReplicaSet', 'b'), ref('apps/v1', 'ReplicaSet', 'c')]),
    };
    expect(run({ group: 'apps', kind: 'ReplicaSet' }, e)).to.deep.equal(['ns/a', 'ns/b', 'ns/c']);
  });

  it('returns the owner on delete and generic events', () => {
    const p = pod([ref('apps/v1', 'ReplicaSet', 'a')]);
    expect(run({ group: 'apps', kind: 'ReplicaSet' }, { type: 'delete', object: p, deleteStateUnknown: true })).to.deep.equal(['ns/a']);
    expect(run({ group: 'apps', kind: 'ReplicaSet' }, { type: 'generic', object: p })).to.deep.equal(['ns/a']);
  });

  it('returns nothing for an object without owner references', () => {
    expect(run({ group: 'apps', kind: 'ReplicaSet' }, create({ metadata: { name: 'p', namespace: 'ns' } }))).to.deep.equal([]);
  });

  it('reports malformed references with their field path and still uses the others', () => {
    const errors: HandlerError[] = [];
    const p = pod([
      ref('apps/v1', 'ReplicaSet', 'good-1'),
      { apiVersion: 'apps/v1', name: 'no-kind', uid: 'u' },
      { apiVersion: 'apps/v1', kind: 7, name: 'bad-kind', uid: 'u' },
      ref('a/b/c', 'ReplicaSet', 'bad-version'),
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', uid: 'u' },
      'not-an-object',
      ref('apps/v1', 'ReplicaSet', 'good-2'),
    ]);
    expect(run({ group: 'apps', kind: 'ReplicaSet' }, create(p), errors)).to.deep.equal(['ns/good-1', 'ns/good-2']);
    expect(errors.map((e) => e.field)).to.deep.equal([
      'metadata.ownerReferences[1].kind',
      'metadata.ownerReferences[2].kind',
      'metadata.ownerReferences[3].apiVersion',
      'metadata.ownerReferences[4].name',
      'metadata.ownerReferences[5]',
    ]);
    expect(errors.every((e) => e.objectKey === 'ns/p' && e.handler === 'enqueueForOwner(apps/ReplicaSet)')).to.equal(true);
  });

  it('reports ownerReferences that is not a list', () => {
    const errors: HandlerError[] = [];
    const p = { metadata: { name: 'p', namespace: 'ns', ownerReferences: { kind: 'ReplicaSet' } } } as unknown as KubernetesObject;
    expect(run({ group: 'apps', kind: 'ReplicaSet' }, create(p), errors)).to.deep.equal([]);
    expect(errors[0]!.field).to.equal('metadata.ownerReferences');
  });

  it('reports a malformed controller reference with controllerOnly', () => {
    const errors: HandlerError[] = [];
    const p = pod([ref('apps/v1', 'ReplicaSet', 'a'), { apiVersion: 'apps/v1', name: 'x', uid: 'u', controller: true }]);
    expect(run({ group: 'apps', kind: 'ReplicaSet', controllerOnly: true }, create(p), errors)).to.deep.equal([]);
    expect(errors.map((e) => e.field)).to.deep.equal(['metadata.ownerReferences[1].kind']);
  });

  it('rejects a missing kind or a group given as an apiVersion', () => {
    expect(() => enqueueForOwner({ group: 'apps', kind: '' })).to.throw(TypeError);
    expect(() => enqueueForOwner({ group: 'apps/v1', kind: 'ReplicaSet' })).to.throw(TypeError, /without version/);
  });
});
