// The owner-reference sample (ConfigBundle -> owned ConfigMaps): children created, adopted,
// pruned, and deleted with their owner.
import { expect } from 'chai';
import { CoreV1Api, type V1ConfigMap } from '@kubernetes/client-node';
import { ResourceID } from '@kindex/core';
import { createNamespace, eventually } from '@kindex/testing';
import { BUNDLE_LABEL } from '@kindex/sample-job-cluster/src/config-bundle-reconciler.js';
import { ConfigBundleKind, type ConfigBundle } from '@kindex/sample-job-cluster/src/model.js';
import { expectNoOverlaps, settle, startSample, useSampleServer, type RunningSample, type SampleServer } from './support/sample-fixture.js';

const bundle = (name: string, namespace: string, entries: Record<string, string>): ConfigBundle => ({
  apiVersion: 'sample.kindex.dev/v1',
  kind: 'ConfigBundle',
  metadata: { name, namespace },
  spec: { entries },
});

async function children(fixture: SampleServer, namespace: string, bundleName: string): Promise<V1ConfigMap[]> {
  const core = fixture.server.kubeConfig.makeApiClient(CoreV1Api);
  const list = await core.listNamespacedConfigMap({ namespace, labelSelector: `${BUNDLE_LABEL}=${bundleName}` });
  return list.items.sort((a, b) => a.metadata!.name!.localeCompare(b.metadata!.name!));
}

async function bundleStatus(run: RunningSample, name: string, want: { configMaps: number; ready: boolean }): Promise<void> {
  await eventually(async () => expect(run.sample.bundles.getPrimary(ResourceID.of(name, run.namespace))?.status).to.deep.equal(want), {
    timeoutMs: 20_000,
    description: `bundle ${name} reports ${JSON.stringify(want)}`,
  });
}

describe('ConfigBundleReconciler (the owner-reference sample)', function () {
  this.timeout(90_000);
  const fixture = useSampleServer();

  it('creates one ConfigMap per entry, owned by the bundle as its controller', async () => {
    const run = await startSample(fixture());
    const ns = run.namespace;
    const created = await fixture().client.create(ConfigBundleKind, bundle('settings', ns, { color: 'blue', size: 'large' }));
    await bundleStatus(run, 'settings', { configMaps: 2, ready: true });
    const cms = await children(fixture(), ns, 'settings');
    expect(cms.map((c) => [c.metadata!.name, c.data?.['value']])).to.deep.equal([
      ['settings-color', 'blue'],
      ['settings-size', 'large'],
    ]);
    for (const cm of cms) {
      expect(cm.metadata!.ownerReferences).to.deep.equal([
        {
          apiVersion: 'sample.kindex.dev/v1',
          kind: 'ConfigBundle',
          name: 'settings',
          uid: created.metadata!.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
    }
    await settle(run);
    expectNoOverlaps(run);
  });

  it('adopts an existing child that names the bundle as owner instead of creating it again, and corrects its value', async () => {
    const { client } = fixture();
    // The operator is not running yet: the child exists before the first reconcile, and the
    // reverse index must be seeded with it at start (JOSDK bug #2869).
    const ns = await createNamespace(fixture().server.kubeConfig);
    const owner = await client.create(ConfigBundleKind, bundle('adopter', ns, { color: 'blue' }));
    const core = fixture().server.kubeConfig.makeApiClient(CoreV1Api);
    const existing = await core.createNamespacedConfigMap({
      namespace: ns,
      body: {
        metadata: {
          name: 'adopter-color',
          labels: { [BUNDLE_LABEL]: 'adopter' },
          ownerReferences: [
            { apiVersion: 'sample.kindex.dev/v1', kind: 'ConfigBundle', name: 'adopter', uid: owner.metadata!.uid!, controller: true },
          ],
        },
        data: { value: 'red' },
      },
    });
    const run = await startSample(fixture(), { namespaces: [ns] });
    await bundleStatus(run, 'adopter', { configMaps: 1, ready: true });
    const cms = await eventually(async () => {
      const found = await children(fixture(), ns, 'adopter');
      expect(found.map((c) => c.data?.['value'])).to.deep.equal(['blue']);
      return found;
    });
    expect(cms[0]!.metadata!.uid, 'the same ConfigMap, not a new one').to.equal(existing.metadata!.uid);
    expect(run.bundleLog.failures, 'failed reconciles (an AlreadyExists would show here)').to.deep.equal([]);
  });

  it('adopts an orphan ConfigMap of a child name (no owner reference) by adding its controller reference', async () => {
    const run = await startSample(fixture());
    const { client } = fixture();
    const ns = run.namespace;
    const core = fixture().server.kubeConfig.makeApiClient(CoreV1Api);
    // Left behind, for example, by a delete with propagationPolicy Orphan.
    const orphan = await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'foster-color', labels: { [BUNDLE_LABEL]: 'foster' } }, data: { value: 'red' } },
    });
    const owner = await client.create(ConfigBundleKind, bundle('foster', ns, { color: 'blue' }));
    await eventually(
      async () => {
        const [cm] = await children(fixture(), ns, 'foster');
        expect(cm?.metadata?.uid, 'the orphan itself, not a new ConfigMap').to.equal(orphan.metadata!.uid);
        expect(cm?.metadata?.ownerReferences?.map((r) => [r.kind, r.name, r.uid, r.controller])).to.deep.equal([
          ['ConfigBundle', 'foster', owner.metadata!.uid, true],
        ]);
        expect(cm?.data?.['value']).to.equal('blue');
      },
      { timeoutMs: 20_000, description: 'the orphan is adopted' },
    );
    await bundleStatus(run, 'foster', { configMaps: 1, ready: true });
  });

  it('deletes the child of an entry removed from the bundle', async () => {
    const run = await startSample(fixture());
    const { client } = fixture();
    const ns = run.namespace;
    await client.create(ConfigBundleKind, bundle('shrinking', ns, { a: '1', b: '2', c: '3' }));
    await bundleStatus(run, 'shrinking', { configMaps: 3, ready: true });
    await client.patch(ConfigBundleKind, ResourceID.of('shrinking', ns), [{ op: 'remove', path: '/spec/entries/b' }], {
      patchType: 'json',
    });
    await eventually(async () =>
      expect((await children(fixture(), ns, 'shrinking')).map((c) => c.metadata!.name)).to.deep.equal(['shrinking-a', 'shrinking-c']),
    );
    await bundleStatus(run, 'shrinking', { configMaps: 2, ready: true });
  });

  it('loses its children with the bundle (garbage collection follows the owner references)', async () => {
    const run = await startSample(fixture());
    const { client } = fixture();
    const ns = run.namespace;
    await client.create(ConfigBundleKind, bundle('doomed', ns, { x: '1', y: '2' }));
    await bundleStatus(run, 'doomed', { configMaps: 2, ready: true });
    await client.delete(ConfigBundleKind, ResourceID.of('doomed', ns), { propagationPolicy: 'Background' });
    // On the real tier kube-controller-manager's collector finds the bundle type within 30 s (its discovery period).
    await eventually(async () => expect(await children(fixture(), ns, 'doomed')).to.deep.equal([]), { timeoutMs: 60_000 });
    await eventually(() => expect(run.sample.bundles.getPrimary(ResourceID.of('doomed', ns))).to.equal(undefined));
    await settle(run);
    expectNoOverlaps(run);
  });
});
