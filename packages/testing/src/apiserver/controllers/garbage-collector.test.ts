import { expect } from 'chai';
import { CoreV1Api, PatchStrategy, setHeaderOptions, type V1ConfigMap } from '@kubernetes/client-node';
import { startEmbeddedApiServer, catchApiStatus, eventually, type EmbeddedApiServer } from '../../index.js';

describe('EmbeddedApiServer deletion and garbage collection', () => {
  let server: EmbeddedApiServer;
  let core: CoreV1Api;
  const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
  const cm = (name: string, extra: Partial<V1ConfigMap['metadata']> = {}): V1ConfigMap => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, ...extra },
  });
  const gone = async (name: string, namespace = 'default'): Promise<void> => {
    expect((await catchApiStatus(core.readNamespacedConfigMap({ name, namespace }))).code).to.equal(404);
  };

  beforeEach(async () => {
    server = await startEmbeddedApiServer({ gcDelayMs: 5 });
    core = server.kubeConfig.makeApiClient(CoreV1Api);
  });
  afterEach(async () => {
    await server.stop();
  });

  it('keeps an object with finalizers, marked with deletionTimestamp, until the last finalizer is removed', async () => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('held', { finalizers: ['example.com/a'] }) });
    await core.deleteNamespacedConfigMap({ name: 'held', namespace: 'default' });
    const held = await core.readNamespacedConfigMap({ name: 'held', namespace: 'default' });
    expect(held.metadata!.deletionTimestamp).to.be.instanceOf(Date);
    expect(held.metadata!.deletionGracePeriodSeconds).to.equal(0);
    await core.patchNamespacedConfigMap({ name: 'held', namespace: 'default', body: { metadata: { finalizers: null } } }, merge);
    await gone('held');
  });

  it('refuses new finalizers on an object being deleted', async () => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('f', { finalizers: ['example.com/a'] }) });
    await core.deleteNamespacedConfigMap({ name: 'f', namespace: 'default' });
    const status = await catchApiStatus(
      core.patchNamespacedConfigMap(
        { name: 'f', namespace: 'default', body: { metadata: { finalizers: ['example.com/a', 'example.com/b'] } } },
        merge,
      ),
    );
    expect(status).to.include({ code: 422, reason: 'Invalid' });
  });

  it('deletes an unscheduled pod at once and keeps a scheduled one until a zero-grace delete', async () => {
    const pod = (name: string, nodeName?: string) => ({
      metadata: { name },
      spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', image: 'busybox' }] },
    });
    await core.createNamespacedPod({ namespace: 'default', body: pod('loose') });
    await core.deleteNamespacedPod({ name: 'loose', namespace: 'default' });
    expect((await catchApiStatus(core.readNamespacedPod({ name: 'loose', namespace: 'default' }))).code).to.equal(404);
    await core.createNamespacedPod({ namespace: 'default', body: pod('bound', 'node-1') });
    await core.deleteNamespacedPod({ name: 'bound', namespace: 'default' });
    const held = await core.readNamespacedPod({ name: 'bound', namespace: 'default' });
    expect(held.metadata!.deletionGracePeriodSeconds).to.equal(30);
    await core.deleteNamespacedPod({ name: 'bound', namespace: 'default', gracePeriodSeconds: 0 });
    expect((await catchApiStatus(core.readNamespacedPod({ name: 'bound', namespace: 'default' }))).code).to.equal(404);
  });

  it('deletes dependents of a deleted owner in the background', async () => {
    const owner = await core.createNamespacedConfigMap({ namespace: 'default', body: cm('owner') });
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata!.uid! };
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('dep', { ownerReferences: [ref] }) });
    await core.deleteNamespacedConfigMap({ name: 'owner', namespace: 'default' });
    await eventually(() => gone('dep'));
  });

  it('orphans dependents with propagationPolicy Orphan', async () => {
    const owner = await core.createNamespacedConfigMap({ namespace: 'default', body: cm('owner2') });
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner2', uid: owner.metadata!.uid! };
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('dep2', { ownerReferences: [ref] }) });
    await core.deleteNamespacedConfigMap({ name: 'owner2', namespace: 'default', propagationPolicy: 'Orphan' });
    await eventually(() => gone('owner2'));
    const dep = await core.readNamespacedConfigMap({ name: 'dep2', namespace: 'default' });
    expect(dep.metadata!.ownerReferences ?? []).to.deep.equal([]);
  });

  it('deletes the owner only after its dependents with propagationPolicy Foreground', async () => {
    const owner = await core.createNamespacedConfigMap({ namespace: 'default', body: cm('owner3') });
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner3', uid: owner.metadata!.uid!, blockOwnerDeletion: true };
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: cm('dep3', { ownerReferences: [ref], finalizers: ['example.com/hold'] }),
    });
    await core.deleteNamespacedConfigMap({ name: 'owner3', namespace: 'default', propagationPolicy: 'Foreground' });
    await eventually(async () => {
      const dep = await core.readNamespacedConfigMap({ name: 'dep3', namespace: 'default' });
      expect(dep.metadata!.deletionTimestamp).to.be.instanceOf(Date);
    });
    const heldOwner = await core.readNamespacedConfigMap({ name: 'owner3', namespace: 'default' });
    expect(heldOwner.metadata!.finalizers).to.include('foregroundDeletion');
    await core.patchNamespacedConfigMap({ name: 'dep3', namespace: 'default', body: { metadata: { finalizers: null } } }, merge);
    await eventually(() => gone('owner3'));
  });

  it('empties a deleted namespace, then removes it', async () => {
    await core.createNamespace({ body: { metadata: { name: 'doomed' } } });
    await core.createNamespacedConfigMap({ namespace: 'doomed', body: cm('inside') });
    const ns = await core.deleteNamespace({ name: 'doomed' });
    expect((ns as { status?: { phase?: string } }).status?.phase).to.equal('Terminating');
    await eventually(async () => {
      expect((await catchApiStatus(core.readNamespace({ name: 'doomed' }))).code).to.equal(404);
    });
    await gone('inside', 'doomed');
  });

  it('refuses new objects in a terminating namespace with 403', async () => {
    await core.createNamespace({ body: { metadata: { name: 'closing' } } });
    await core.createNamespacedConfigMap({ namespace: 'closing', body: cm('pin', { finalizers: ['example.com/pin'] }) });
    await core.deleteNamespace({ name: 'closing' });
    const status = await catchApiStatus(core.createNamespacedConfigMap({ namespace: 'closing', body: cm('late') }));
    expect(status).to.include({ code: 403, reason: 'Forbidden' });
  });
});
