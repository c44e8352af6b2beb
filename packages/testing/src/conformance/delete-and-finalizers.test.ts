import { expect } from 'chai';
import { catchApiStatus } from '../helpers/api-status.js';
import { rawRequest } from '../helpers/raw-request.js';
import { WatchEventCollector } from '../helpers/watch-event-collector.js';
import { asPatch, configMapsPath, createConfigMap, stored, useConformanceFixture } from './conformance-fixture.js';

const FINALIZER = 'kindex.test/hold';

describe('conformance: delete and finalizers', () => {
  const fixture = useConformanceFixture();

  it('delete of an object with a finalizer sets deletionTimestamp and keeps the object', async () => {
    const { core, namespace } = fixture();
    const { name, uid } = stored(await createConfigMap(core, namespace, { finalizers: [FINALIZER] }));
    await core.deleteNamespacedConfigMap({ name, namespace });
    const terminating = await core.readNamespacedConfigMap({ name, namespace });
    expect(terminating.metadata?.uid).to.equal(uid);
    expect(terminating.metadata?.deletionTimestamp).to.be.instanceOf(Date);
    expect(terminating.metadata?.finalizers).to.deep.equal([FINALIZER]);
  });

  it('removing the last finalizer of a deleted object removes the object', async () => {
    const { core, namespace } = fixture();
    const { name } = stored(await createConfigMap(core, namespace, { finalizers: [FINALIZER, 'kindex.test/second'] }));
    await core.deleteNamespacedConfigMap({ name, namespace });
    await core.patchNamespacedConfigMap({ name, namespace, body: [{ op: 'remove', path: '/metadata/finalizers/0' }] }, asPatch.json());
    const remaining = await core.readNamespacedConfigMap({ name, namespace });
    expect(remaining.metadata?.finalizers).to.deep.equal(['kindex.test/second']);
    expect(remaining.metadata?.deletionTimestamp).to.be.instanceOf(Date);
    await core.patchNamespacedConfigMap({ name, namespace, body: { metadata: { finalizers: null } } }, asPatch.merge());
    const status = await catchApiStatus(core.readNamespacedConfigMap({ name, namespace }));
    expect(status).to.include({ code: 404, reason: 'NotFound' });
  });

  it('a terminating object still accepts updates to its other fields', async () => {
    const { core, namespace } = fixture();
    const { name } = stored(await createConfigMap(core, namespace, { finalizers: [FINALIZER] }));
    await core.deleteNamespacedConfigMap({ name, namespace });
    const patched = await core.patchNamespacedConfigMap({ name, namespace, body: { data: { note: 'cleaning up' } } }, asPatch.merge());
    expect(patched.data).to.include({ note: 'cleaning up' });
    expect(patched.metadata?.deletionTimestamp).to.be.instanceOf(Date);
  });

  it('watch sees MODIFIED with deletionTimestamp, then DELETED once the finalizer is gone', async () => {
    const { core, kubeConfig, namespace } = fixture();
    const created = await createConfigMap(core, namespace, { finalizers: [FINALIZER] });
    const { name, resourceVersion } = stored(created);
    const watch = await WatchEventCollector.start(kubeConfig, configMapsPath(namespace), { resourceVersion });
    try {
      await core.deleteNamespacedConfigMap({ name, namespace });
      await watch.waitForCount(1);
      await core.patchNamespacedConfigMap({ name, namespace, body: { metadata: { finalizers: [] } } }, asPatch.merge());
      const events = await watch.waitForCount(2);
      expect(watch.summary()).to.deep.equal([`MODIFIED ${name}`, `DELETED ${name}`]);
      expect(events[0]!.object.metadata?.deletionTimestamp).to.be.a('string');
    } finally {
      await watch.stop();
    }
  });

  it('delete of an object without finalizers sends DELETED carrying its last state', async () => {
    const { core, kubeConfig, namespace } = fixture();
    const { name, resourceVersion } = stored(await createConfigMap(core, namespace, { data: { last: 'state' } }));
    const watch = await WatchEventCollector.start(kubeConfig, configMapsPath(namespace), { resourceVersion });
    try {
      await core.deleteNamespacedConfigMap({ name, namespace });
      const [event] = await watch.waitForCount(1);
      expect(event!.type).to.equal('DELETED');
      expect(event!.object.metadata?.name).to.equal(name);
      expect((event!.object as { data?: unknown }).data).to.deep.equal({ last: 'state' });
      expect(event!.object.metadata?.resourceVersion).to.be.a('string');
    } finally {
      await watch.stop();
    }
  });

  it('foreground deletion answers with the object marked by foregroundDeletion and a deletionTimestamp', async () => {
    const { core, kubeConfig, namespace } = fixture();
    // Another finalizer keeps the object around however fast a garbage collector is.
    const { name } = stored(await createConfigMap(core, namespace, { finalizers: [FINALIZER] }));
    // Raw, because client-node reads every delete answer as a Status and drops the object's metadata.
    const response = await rawRequest(kubeConfig, {
      method: 'DELETE',
      path: `${configMapsPath(namespace)}/${name}`,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Foreground' }),
    });
    expect(response.status).to.be.oneOf([200, 202]);
    const answer = JSON.parse(response.text) as { metadata?: { deletionTimestamp?: string; finalizers?: string[] } };
    expect(answer.metadata?.deletionTimestamp).to.be.a('string');
    expect(answer.metadata?.finalizers).to.include.members([FINALIZER, 'foregroundDeletion']);
    const terminating = await core.readNamespacedConfigMap({ name, namespace });
    expect(terminating.metadata?.deletionTimestamp).to.be.instanceOf(Date);
    expect(terminating.metadata?.finalizers).to.include(FINALIZER);
  });
});
