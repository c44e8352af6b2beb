import { expect } from 'chai';
import { catchApiStatus } from '../helpers/api-status.js';
import { asPatch, useConformanceFixture } from './conformance-fixture.js';
import { createTestCrd, type TestCrd, type Widget } from '../helpers/test-crd.js';

describe('conformance: status subresource', () => {
  const fixture = useConformanceFixture();

  async function setUp(
    statusSubresource: boolean,
  ): Promise<{ crd: TestCrd; ref: { group: string; version: string; plural: string; namespace: string; name: string }; created: Widget }> {
    const { apiextensions, custom, namespace } = fixture();
    const crd = await createTestCrd(apiextensions, custom, { statusSubresource });
    const ref = { group: crd.group, version: crd.version, plural: crd.plural, namespace, name: 'w' };
    const created = (await custom.createNamespacedCustomObject({
      ...ref,
      body: { apiVersion: crd.apiVersion, kind: crd.kind, metadata: { name: 'w' }, spec: { size: 1 }, status: { phase: 'Set on create' } },
    })) as Widget;
    return { crd, ref, created };
  }

  it('create ignores the status when the status subresource is declared', async () => {
    const { created } = await setUp(true);
    expect(created.spec).to.deep.equal({ size: 1 });
    expect(created.status ?? {}).to.deep.equal({});
  });

  it('writes to /status change the status and ignore changes to spec and labels', async () => {
    const { custom } = fixture();
    const { ref, created } = await setUp(true);
    const updated = (await custom.replaceNamespacedCustomObjectStatus({
      ...ref,
      body: { ...created, metadata: { ...created.metadata, labels: { sneaky: 'yes' } }, spec: { size: 99 }, status: { phase: 'Ready' } },
    })) as Widget;
    expect(updated.status).to.deep.equal({ phase: 'Ready' });
    expect(updated.spec).to.deep.equal({ size: 1 });
    expect(updated.metadata?.labels ?? {}).to.not.have.property('sneaky');
    expect(updated.metadata?.resourceVersion).to.not.equal(created.metadata?.resourceVersion);
    const read = (await custom.getNamespacedCustomObject(ref)) as Widget;
    expect(read.status).to.deep.equal({ phase: 'Ready' });
    expect(read.spec).to.deep.equal({ size: 1 });
  });

  it('merge patch on /status changes only the status', async () => {
    const { custom } = fixture();
    const { ref } = await setUp(true);
    const patched = (await custom.patchNamespacedCustomObjectStatus(
      { ...ref, body: { spec: { size: 5 }, status: { phase: 'Patched' } } },
      asPatch.merge(),
    )) as Widget;
    expect(patched.status).to.deep.equal({ phase: 'Patched' });
    expect(patched.spec).to.deep.equal({ size: 1 });
  });

  it('writes to the main resource ignore changes to the status', async () => {
    const { custom } = fixture();
    const { ref } = await setUp(true);
    await custom.patchNamespacedCustomObjectStatus({ ...ref, body: { status: { phase: 'Ready' } } }, asPatch.merge());
    const current = (await custom.getNamespacedCustomObject(ref)) as Widget;
    const updated = (await custom.replaceNamespacedCustomObject({
      ...ref,
      body: { ...current, spec: { size: 2 }, status: { phase: 'Overwritten' } },
    })) as Widget;
    expect(updated.spec).to.deep.equal({ size: 2 });
    expect(updated.status).to.deep.equal({ phase: 'Ready' });
    const patched = (await custom.patchNamespacedCustomObject(
      { ...ref, body: { status: { phase: 'Patched' } } },
      asPatch.merge(),
    )) as Widget;
    expect(patched.status).to.deep.equal({ phase: 'Ready' });
  });

  it('GET /status returns the whole object', async () => {
    const { custom } = fixture();
    const { ref } = await setUp(true);
    const read = (await custom.getNamespacedCustomObjectStatus(ref)) as Widget;
    expect(read.metadata?.name).to.equal('w');
    expect(read.spec).to.deep.equal({ size: 1 });
  });

  it('a /status write with a stale resourceVersion fails with 409 Conflict', async () => {
    const { custom } = fixture();
    const { ref, created } = await setUp(true);
    await custom.patchNamespacedCustomObject({ ...ref, body: { spec: { size: 2 } } }, asPatch.merge());
    const status = await catchApiStatus(
      custom.replaceNamespacedCustomObjectStatus({ ...ref, body: { ...created, status: { phase: 'stale' } } }),
    );
    expect(status).to.include({ code: 409, reason: 'Conflict' });
  });

  it('without a declared status subresource, status is written through the main resource and /status is not served', async () => {
    const { custom } = fixture();
    const { ref, created } = await setUp(false);
    expect(created.status).to.deep.equal({ phase: 'Set on create' });
    const patched = (await custom.patchNamespacedCustomObject({ ...ref, body: { status: { phase: 'Main' } } }, asPatch.merge())) as Widget;
    expect(patched.status).to.deep.equal({ phase: 'Main' });
    const status = await catchApiStatus(custom.getNamespacedCustomObjectStatus(ref));
    expect(status.code).to.equal(404);
  });
});
