import { expect } from 'chai';
import { catchApiStatus } from '../helpers/api-status.js';
import { uniqueName } from '../helpers/unique-name.js';
import { useAdmissionWebhooks } from './admission-webhook-fixture.js';
import { createConfigMap, useConformanceFixture } from './conformance-fixture.js';

/**
 * A deletecollection under validating admission: kube-apiserver's DeleteCollection worker admits
 * and deletes the listed objects one at a time, in name order, and stops at the first refusal.
 */
describe('admission webhooks on deletecollection', function () {
  this.timeout(60_000);
  const f = useConformanceFixture();
  const { hook, install, reviews, untilCalled, server } = useAdmissionWebhooks(f);
  const nameOf = (o: Record<string, unknown> | null): string | undefined => (o?.['metadata'] as { name?: string } | undefined)?.name;

  it('deletes the objects admitted before a refusal, answers with the refusal and leaves the rest', async () => {
    const path = `/collection/${uniqueName('p')}`;
    const base = uniqueName('row');
    const names = ['a', 'b', 'c', 'd', 'e'].map((letter) => `${base}-${letter}`);
    server().answer(path, (r) =>
      r.operation === 'DELETE' && nameOf(r.oldObject) === names[2]
        ? { allowed: false, status: { code: 403, message: 'the third stays' } }
        : { allowed: true },
    );
    await install('validating', [hook('collection', path)]);
    await untilCalled(path);
    const { core, namespace } = f();
    // Created last to first: the order of deletion is the names', not the creations'.
    for (const name of [...names].reverse()) await createConfigMap(core, namespace, { name, labels: { row: base } });

    const status = await catchApiStatus(core.deleteCollectionNamespacedConfigMap({ namespace, labelSelector: `row=${base}` }));

    expect(status).to.include({ code: 403 });
    expect(status.message).to.equal(`admission webhook "collection.${namespace}.kindex.test" denied the request: the third stays`);
    const left = (await core.listNamespacedConfigMap({ namespace, labelSelector: `row=${base}` })).items.map((c) => c.metadata?.name);
    expect(left).to.deep.equal(names.slice(2));
    const admitted = reviews(path)
      .filter((r) => r.operation === 'DELETE')
      .map((r) => nameOf(r.oldObject));
    expect(admitted).to.deep.equal(names.slice(0, 3));
  });

  it('admits each object once on a dry run and deletes none', async () => {
    const path = `/dry-run/${uniqueName('p')}`;
    const base = uniqueName('dry');
    const names = ['a', 'b', 'c'].map((letter) => `${base}-${letter}`);
    server().answer(path, () => ({ allowed: true, warnings: ['seen'] }));
    await install('validating', [hook('dry-run', path)]);
    await untilCalled(path);
    const { core, namespace } = f();
    for (const name of names) await createConfigMap(core, namespace, { name, labels: { row: base } });

    await core.deleteCollectionNamespacedConfigMap({ namespace, labelSelector: `row=${base}`, dryRun: 'All' });

    const left = (await core.listNamespacedConfigMap({ namespace, labelSelector: `row=${base}` })).items.map((c) => c.metadata?.name);
    expect(left).to.deep.equal(names);
    const admitted = reviews(path)
      .filter((r) => r.operation === 'DELETE')
      .map((r) => [nameOf(r.oldObject), r.dryRun]);
    expect(admitted).to.deep.equal(names.map((n) => [n, true]));
  });
});
