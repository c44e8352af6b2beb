import { expect } from 'chai';
import type { V1ConfigMap, V1OwnerReference } from '@kubernetes/client-node';
import { catchApiStatus } from '../helpers/api-status.js';
import { eventually } from '../helpers/eventually.js';
import { createConfigMap, stored, useConformanceFixture } from './conformance-fixture.js';

function ownerRef(owner: V1ConfigMap, blockOwnerDeletion = false): V1OwnerReference {
  const { name, uid } = stored(owner);
  return { apiVersion: 'v1', kind: 'ConfigMap', name, uid, blockOwnerDeletion };
}

const GC_TIMEOUT = { timeoutMs: 30_000, intervalMs: 100 };

describe('conformance: garbage collection', () => {
  const fixture = useConformanceFixture();

  async function dependent(owners: V1OwnerReference[], name?: string): Promise<string> {
    const { core, namespace } = fixture();
    const created = await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { ...(name ? { name } : { generateName: 'dep-' }), ownerReferences: owners }, data: { a: '1' } },
    });
    return created.metadata!.name!;
  }

  it('deletes a dependent in the background once its only owner is deleted', async () => {
    const { core, namespace } = fixture();
    const owner = await createConfigMap(core, namespace);
    const child = await dependent([ownerRef(owner)]);
    await core.deleteNamespacedConfigMap({ name: owner.metadata!.name!, namespace });
    await eventually(async () => {
      expect(await catchApiStatus(core.readNamespacedConfigMap({ name: child, namespace }))).to.include({ code: 404 });
    }, GC_TIMEOUT);
  });

  it('cascades through several levels of owners', async () => {
    const { core, namespace } = fixture();
    const root = await createConfigMap(core, namespace);
    const middleName = await dependent([ownerRef(root)]);
    const middle = await core.readNamespacedConfigMap({ name: middleName, namespace });
    const leaf = await dependent([ownerRef(middle)]);
    await core.deleteNamespacedConfigMap({ name: root.metadata!.name!, namespace });
    await eventually(async () => {
      expect(await catchApiStatus(core.readNamespacedConfigMap({ name: leaf, namespace }))).to.include({ code: 404 });
    }, GC_TIMEOUT);
  });

  it('keeps a dependent that still has another owner', async () => {
    const { core, namespace } = fixture();
    const gone = await createConfigMap(core, namespace);
    const staying = await createConfigMap(core, namespace);
    const shared = await dependent([ownerRef(gone), ownerRef(staying)]);
    const sole = await dependent([ownerRef(gone)]);
    await core.deleteNamespacedConfigMap({ name: gone.metadata!.name!, namespace });
    // Once the collector has handled the sole dependent it has seen the owner go.
    await eventually(async () => {
      expect(await catchApiStatus(core.readNamespacedConfigMap({ name: sole, namespace }))).to.include({ code: 404 });
    }, GC_TIMEOUT);
    const kept = await core.readNamespacedConfigMap({ name: shared, namespace });
    expect(kept.metadata?.ownerReferences?.map((r) => r.uid)).to.include(staying.metadata!.uid);
  });

  it('orphan propagation keeps dependents and removes their reference to the owner', async () => {
    const { core, namespace } = fixture();
    const owner = await createConfigMap(core, namespace);
    const child = await dependent([ownerRef(owner)]);
    await core.deleteNamespacedConfigMap({ name: owner.metadata!.name!, namespace, propagationPolicy: 'Orphan' });
    await eventually(async () => {
      expect(await catchApiStatus(core.readNamespacedConfigMap({ name: owner.metadata!.name!, namespace }))).to.include({ code: 404 });
    }, GC_TIMEOUT);
    const orphan = await core.readNamespacedConfigMap({ name: child, namespace });
    expect(orphan.metadata?.ownerReferences ?? []).to.deep.equal([]);
  });

  it('foreground propagation deletes dependents first, then the owner', async () => {
    const { core, namespace } = fixture();
    const owner = await createConfigMap(core, namespace);
    const child = await dependent([ownerRef(owner, true)]);
    await core.deleteNamespacedConfigMap({ name: owner.metadata!.name!, namespace, propagationPolicy: 'Foreground' });
    await eventually(async () => {
      expect(await catchApiStatus(core.readNamespacedConfigMap({ name: owner.metadata!.name!, namespace }))).to.include({ code: 404 });
    }, GC_TIMEOUT);
    expect(await catchApiStatus(core.readNamespacedConfigMap({ name: child, namespace }))).to.include({ code: 404 });
  });
});
