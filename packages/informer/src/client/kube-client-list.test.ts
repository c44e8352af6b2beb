// KubeClient's uncached reads against an API server over HTTP (embedded by default,
// kube-apiserver with KINDEX_APISERVER=real): `list` follows every page, filters by namespace
// and selectors as the server does, and returns objects shaped as `get` returns them.
import { expect } from 'chai';
import { ResourceID } from '@kindex/core';
import { createNamespace, uniqueName } from '@kindex/testing';
import { Kinds } from '../index.js';
import { useClientPerTest } from '../testing-fixtures/client-per-test.js';

describe('KubeClient.list', () => {
  const suite = useClientPerTest();

  async function createConfigMaps(count: number, labels: Record<string, string>, ns = suite.namespace): Promise<string[]> {
    const names = Array.from({ length: count }, () => uniqueName('cm'));
    // 20 at a time: fast enough for 501 objects without flooding a real kube-apiserver on 2 cores.
    for (let i = 0; i < names.length; i += 20) {
      await Promise.all(
        names
          .slice(i, i + 20)
          .map((name) => suite.client.create(Kinds.ConfigMap, { metadata: { name, namespace: ns, labels }, data: { name } })),
      );
    }
    return names;
  }

  it('returns every object of a namespace across pages (501 objects, pages of 500), typed and with apiVersion and kind', async function () {
    this.timeout(120_000);
    const names = await createConfigMaps(501, { app: 'many' });
    const listed = await suite.client.list(Kinds.ConfigMap, { namespace: suite.namespace, labelSelector: 'app=many' });
    expect(listed.map((c) => c.metadata?.name).sort()).to.deep.equal([...names].sort());
    // Typed by the kind: `data` is a ConfigMap's string map, no cast.
    expect(listed.every((c) => c.data?.['name'] === c.metadata?.name)).to.equal(true);
    expect(new Set(listed.map((c) => `${c.apiVersion} ${c.kind}`))).to.deep.equal(new Set(['v1 ConfigMap']));
    const one = await suite.client.get(Kinds.ConfigMap, ResourceID.of(names[0]!, suite.namespace));
    expect(one?.data).to.deep.equal(listed.find((c) => c.metadata?.name === names[0])?.data);
  });

  it('filters by label selector, field selector and namespace; across namespaces without one', async () => {
    const other = await createNamespace(suite.server.kubeConfig);
    const [red] = await createConfigMaps(1, { colour: 'red' });
    const [blue] = await createConfigMaps(1, { colour: 'blue' });
    const [elsewhere] = await createConfigMaps(1, { colour: 'red' }, other);
    const names = (list: { metadata?: { name?: string } }[]): (string | undefined)[] => list.map((c) => c.metadata?.name).sort();

    expect(names(await suite.client.list(Kinds.ConfigMap, { namespace: suite.namespace, labelSelector: 'colour=red' }))).to.deep.equal([
      red,
    ]);
    expect(names(await suite.client.list(Kinds.ConfigMap, { namespace: suite.namespace, labelSelector: 'colour' }))).to.deep.equal(
      [red, blue].sort(),
    );
    expect(
      names(await suite.client.list(Kinds.ConfigMap, { namespace: suite.namespace, fieldSelector: `metadata.name=${blue}` })),
    ).to.deep.equal([blue]);
    expect(
      names(await suite.client.list(Kinds.ConfigMap, { labelSelector: 'colour=red' })).filter((n) => n === red || n === elsewhere),
    ).to.deep.equal([red, elsewhere].sort());
    expect(await suite.client.list(Kinds.ConfigMap, { namespace: suite.namespace, labelSelector: 'colour=green' })).to.deep.equal([]);
  });

  it('lists a cluster-scoped kind', async () => {
    const namespaces = await suite.client.list(Kinds.Namespace, { fieldSelector: `metadata.name=${suite.namespace}` });
    expect(namespaces.map((n) => [n.kind, n.metadata?.name])).to.deep.equal([['Namespace', suite.namespace]]);
  });
});
