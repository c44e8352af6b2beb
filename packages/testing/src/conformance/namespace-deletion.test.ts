import { expect } from 'chai';
import { catchApiStatus } from '../helpers/api-status.js';
import { eventually } from '../helpers/eventually.js';
import { uniqueName } from '../helpers/unique-name.js';
import { asPatch, useConformanceFixture } from './conformance-fixture.js';

// The namespace controller (kube-controller-manager's on the real tier, the embedded server's own
// otherwise): a deleted namespace is Terminating until everything in it is gone, then it goes too.
const NAMESPACE_TIMEOUT = { timeoutMs: 60_000, intervalMs: 200 };

describe('conformance: namespace deletion', () => {
  const fixture = useConformanceFixture();

  async function namespaceWith(...configMaps: { name: string; finalizers?: string[] }[]): Promise<string> {
    const { core } = fixture();
    const name = uniqueName('doomed');
    await core.createNamespace({ body: { metadata: { name } } });
    for (const cm of configMaps) {
      await core.createNamespacedConfigMap({ namespace: name, body: { metadata: cm, data: { a: '1' } } });
    }
    return name;
  }

  it('answers the delete with the namespace Terminating, then empties it and removes it', async () => {
    const { core } = fixture();
    const namespace = await namespaceWith({ name: 'one' }, { name: 'two' });
    const deleting = (await core.deleteNamespace({ name: namespace })) as { status?: { phase?: string } };
    expect(deleting.status?.phase).to.equal('Terminating');
    await eventually(async () => {
      expect(await catchApiStatus(core.readNamespace({ name: namespace }))).to.include({ code: 404 });
    }, NAMESPACE_TIMEOUT);
    expect(await catchApiStatus(core.readNamespacedConfigMap({ name: 'one', namespace }))).to.include({ code: 404 });
  });

  it('stays Terminating while an object inside keeps a finalizer, and goes once it is removed', async () => {
    const { core } = fixture();
    const namespace = await namespaceWith({ name: 'pinned', finalizers: ['example.com/pin'] }, { name: 'loose' });
    await core.deleteNamespace({ name: namespace });
    // The controller deletes what it can: the pinned object is marked, the other is gone.
    await eventually(async () => {
      expect(await catchApiStatus(core.readNamespacedConfigMap({ name: 'loose', namespace }))).to.include({ code: 404 });
      const pinned = await core.readNamespacedConfigMap({ name: 'pinned', namespace });
      expect(pinned.metadata?.deletionTimestamp).to.not.equal(undefined);
    }, NAMESPACE_TIMEOUT);
    const waiting = await core.readNamespace({ name: namespace });
    expect(waiting.status?.phase).to.equal('Terminating');
    await core.patchNamespacedConfigMap({ name: 'pinned', namespace, body: { metadata: { finalizers: null } } }, asPatch.merge());
    await eventually(async () => {
      expect(await catchApiStatus(core.readNamespace({ name: namespace }))).to.include({ code: 404 });
    }, NAMESPACE_TIMEOUT);
  });

  it('refuses new objects in a Terminating namespace with 403 Forbidden', async () => {
    const { core } = fixture();
    const namespace = await namespaceWith({ name: 'pinned', finalizers: ['example.com/pin'] });
    await core.deleteNamespace({ name: namespace });
    const status = await catchApiStatus(core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'late' } } }));
    expect(status).to.include({ code: 403, reason: 'Forbidden' });
    expect(status.message).to.equal(
      `configmaps "late" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
    );
    await core.patchNamespacedConfigMap({ name: 'pinned', namespace, body: { metadata: { finalizers: null } } }, asPatch.merge());
  });
});
