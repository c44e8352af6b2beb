import { expect } from 'chai';
import { catchApiStatus } from '../helpers/api-status.js';
import { asPatch, createConfigMap, stored, useConformanceFixture } from './conformance-fixture.js';

describe('conformance: optimistic concurrency', () => {
  const fixture = useConformanceFixture();

  it('update with a stale resourceVersion fails with 409 Conflict and changes nothing', async () => {
    const { core, namespace } = fixture();
    const created = await createConfigMap(core, namespace, { data: { v: '1' } });
    const name = created.metadata!.name!;
    const current = await core.replaceNamespacedConfigMap({ name, namespace, body: { ...created, data: { v: '2' } } });
    const status = await catchApiStatus(core.replaceNamespacedConfigMap({ name, namespace, body: { ...created, data: { v: 'stale' } } }));
    expect(status).to.include({ code: 409, reason: 'Conflict' });
    expect(status.details?.name).to.equal(name);
    expect(status.message).to.contain(name);
    const read = await core.readNamespacedConfigMap({ name, namespace });
    expect(read.data).to.deep.equal({ v: '2' });
    expect(read.metadata?.resourceVersion).to.equal(current.metadata?.resourceVersion);
  });

  it('of two updates from the same resourceVersion exactly one succeeds', async () => {
    const { core, namespace } = fixture();
    const created = await createConfigMap(core, namespace, { data: { v: '0' } });
    const name = created.metadata!.name!;
    const results = await Promise.allSettled(
      ['a', 'b'].map((v) => core.replaceNamespacedConfigMap({ name, namespace, body: { ...created, data: { v } } })),
    );
    const fulfilled = results.filter((r) => r.status === 'fulfilled');
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(fulfilled).to.have.length(1);
    expect(rejected).to.have.length(1);
    expect(await catchApiStatus(Promise.reject(rejected[0]!.reason))).to.include({ code: 409, reason: 'Conflict' });
    const winner = (fulfilled[0] as PromiseFulfilledResult<{ data?: Record<string, string> }>).value;
    expect((await core.readNamespacedConfigMap({ name, namespace })).data).to.deep.equal(winner.data);
  });

  it('update without a resourceVersion is unconditional for configmaps', async () => {
    const { core, namespace } = fixture();
    const created = await createConfigMap(core, namespace);
    const name = created.metadata!.name!;
    await core.replaceNamespacedConfigMap({ name, namespace, body: { ...created, data: { v: 'moved on' } } });
    const updated = await core.replaceNamespacedConfigMap({
      name,
      namespace,
      body: { metadata: { name }, data: { v: 'forced' } },
    });
    expect(updated.data).to.deep.equal({ v: 'forced' });
  });

  it('a merge patch carrying a stale resourceVersion fails with 409 Conflict', async () => {
    const { core, namespace } = fixture();
    const created = await createConfigMap(core, namespace, { data: { v: '1' } });
    const { name, resourceVersion } = stored(created);
    await core.patchNamespacedConfigMap({ name, namespace, body: { data: { v: '2' } } }, asPatch.merge());
    const status = await catchApiStatus(
      core.patchNamespacedConfigMap({ name, namespace, body: { metadata: { resourceVersion }, data: { v: 'stale' } } }, asPatch.merge()),
    );
    expect(status).to.include({ code: 409, reason: 'Conflict' });
    expect((await core.readNamespacedConfigMap({ name, namespace })).data).to.deep.equal({ v: '2' });
  });

  it('a merge patch carrying the current resourceVersion succeeds', async () => {
    const { core, namespace } = fixture();
    const { name, resourceVersion } = stored(await createConfigMap(core, namespace, { data: { v: '1' } }));
    const patched = await core.patchNamespacedConfigMap(
      { name, namespace, body: { metadata: { resourceVersion }, data: { v: '2' } } },
      asPatch.merge(),
    );
    expect(patched.data).to.deep.equal({ v: '2' });
    expect(patched.metadata?.resourceVersion).to.not.equal(resourceVersion);
  });

  it('delete with a stale resourceVersion precondition fails with 409 Conflict and keeps the object', async () => {
    const { core, namespace } = fixture();
    const { name, resourceVersion } = stored(await createConfigMap(core, namespace));
    await core.patchNamespacedConfigMap({ name, namespace, body: { data: { v: '2' } } }, asPatch.merge());
    const status = await catchApiStatus(core.deleteNamespacedConfigMap({ name, namespace, body: { preconditions: { resourceVersion } } }));
    expect(status).to.include({ code: 409, reason: 'Conflict' });
    expect((await core.readNamespacedConfigMap({ name, namespace })).metadata?.name).to.equal(name);
  });

  it('delete with a wrong uid precondition fails with 409 Conflict', async () => {
    const { core, namespace } = fixture();
    const { name } = stored(await createConfigMap(core, namespace));
    const status = await catchApiStatus(
      core.deleteNamespacedConfigMap({
        name,
        namespace,
        body: { preconditions: { uid: '00000000-0000-0000-0000-000000000000' } },
      }),
    );
    expect(status).to.include({ code: 409, reason: 'Conflict' });
  });

  it('every successful write yields a resourceVersion not seen before', async () => {
    const { core, namespace } = fixture();
    const created = await createConfigMap(core, namespace);
    const name = created.metadata!.name!;
    const seen = new Set([created.metadata!.resourceVersion!]);
    for (let i = 0; i < 5; i++) {
      const patched = await core.patchNamespacedConfigMap({ name, namespace, body: { data: { i: String(i) } } }, asPatch.merge());
      expect(seen.has(patched.metadata!.resourceVersion!)).to.equal(false);
      seen.add(patched.metadata!.resourceVersion!);
    }
    const other = await createConfigMap(core, namespace);
    expect(seen.has(other.metadata!.resourceVersion!)).to.equal(false);
  });
});
