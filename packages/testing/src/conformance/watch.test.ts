import { expect } from 'chai';
import { makeInformer, type V1ConfigMap } from '@kubernetes/client-node';
import { createNamespace } from '../helpers/create-namespace.js';
import { eventually } from '../helpers/eventually.js';
import { rawRequest } from '../helpers/raw-request.js';
import { uniqueName } from '../helpers/unique-name.js';
import { WatchEventCollector } from '../helpers/watch-event-collector.js';
import { asPatch, configMapsPath, createConfigMap, stored, useConformanceFixture } from './conformance-fixture.js';
import { createTestCrd } from '../helpers/test-crd.js';

describe('conformance: watch', () => {
  const fixture = useConformanceFixture();
  const watches: WatchEventCollector[] = [];
  afterEach(async () => {
    await Promise.all(watches.splice(0).map((w) => w.stop()));
  });
  async function watch(path: string, query: Record<string, string | number | boolean | undefined>) {
    const collector = await WatchEventCollector.start(fixture().kubeConfig, path, query);
    watches.push(collector);
    return collector;
  }

  it("from a list's resourceVersion delivers exactly the later changes, in order", async () => {
    const { core, namespace } = fixture();
    const existing = await createConfigMap(core, namespace, { name: 'existing' });
    const list = await core.listNamespacedConfigMap({ namespace });
    const w = await watch(configMapsPath(namespace), { resourceVersion: list.metadata!.resourceVersion! });
    const a = await createConfigMap(core, namespace, { name: 'a' });
    const a2 = await core.patchNamespacedConfigMap({ name: 'a', namespace, body: { data: { v: '2' } } }, asPatch.merge());
    const b = await createConfigMap(core, namespace, { name: 'b' });
    await core.deleteNamespacedConfigMap({ name: 'a', namespace });
    await core.patchNamespacedConfigMap({ name: stored(existing).name, namespace, body: { data: { v: 'x' } } }, asPatch.merge());
    const events = await w.waitForCount(5);
    expect(w.summary()).to.deep.equal(['ADDED a', 'MODIFIED a', 'ADDED b', 'DELETED a', 'MODIFIED existing']);
    expect(events[0]!.object.metadata?.resourceVersion).to.equal(a.metadata?.resourceVersion);
    expect(events[1]!.object.metadata?.resourceVersion).to.equal(a2.metadata?.resourceVersion);
    expect(events[2]!.object.metadata?.resourceVersion).to.equal(b.metadata?.resourceVersion);
    expect((events[1]!.object as { data?: unknown }).data).to.deep.equal({ key: 'value', v: '2' });
  });

  it('event objects carry kind and apiVersion', async () => {
    const { core, namespace } = fixture();
    const list = await core.listNamespacedConfigMap({ namespace });
    const w = await watch(configMapsPath(namespace), { resourceVersion: list.metadata!.resourceVersion! });
    await createConfigMap(core, namespace);
    const [event] = await w.waitForCount(1);
    expect(event!.object).to.include({ kind: 'ConfigMap', apiVersion: 'v1' });
  });

  it('from the resourceVersion of the latest write replays nothing and delivers the next change', async () => {
    const { core, namespace } = fixture();
    await createConfigMap(core, namespace, { name: 'first' });
    const latest = await createConfigMap(core, namespace, { name: 'second' });
    const w = await watch(configMapsPath(namespace), { resourceVersion: stored(latest).resourceVersion });
    await createConfigMap(core, namespace, { name: 'third' });
    await w.waitForCount(1);
    expect(w.summary()).to.deep.equal(['ADDED third']);
  });

  it('without a resourceVersion starts with ADDED for every existing object, then live changes', async () => {
    const { core, namespace } = fixture();
    await createConfigMap(core, namespace, { name: 'x' });
    await createConfigMap(core, namespace, { name: 'y' });
    const w = await watch(configMapsPath(namespace), {});
    await w.waitForCount(2);
    expect(w.summary()).to.have.members(['ADDED x', 'ADDED y']);
    await createConfigMap(core, namespace, { name: 'z' });
    await w.waitForCount(3);
    expect(w.summary()[2]).to.equal('ADDED z');
  });

  it('with resourceVersion 0 starts with ADDED for every existing object', async () => {
    const { core, namespace } = fixture();
    await createConfigMap(core, namespace, { name: 'x' });
    const w = await watch(configMapsPath(namespace), { resourceVersion: '0' });
    await w.waitForCount(1);
    expect(w.summary()).to.deep.equal(['ADDED x']);
  });

  it('across all namespaces delivers changes from every namespace', async () => {
    const { core, kubeConfig, namespace } = fixture();
    const other = await createNamespace(kubeConfig);
    const list = await core.listConfigMapForAllNamespaces({ limit: 1 });
    const w = await watch('/api/v1/configmaps', { resourceVersion: list.metadata!.resourceVersion! });
    await createConfigMap(core, namespace, { name: 'here' });
    await createConfigMap(core, other, { name: 'there' });
    await w.waitFor((e) => e.object.metadata?.name === 'there' && e.object.metadata?.namespace === other);
    const ours = w.changes.filter((e) => [namespace, other].includes(e.object.metadata?.namespace ?? ''));
    expect(ours.map((e) => `${e.type} ${e.object.metadata?.namespace}/${e.object.metadata?.name}`)).to.deep.equal([
      `ADDED ${namespace}/here`,
      `ADDED ${other}/there`,
    ]);
  });

  it('of one namespace does not deliver changes from another', async () => {
    const { core, kubeConfig, namespace } = fixture();
    const other = await createNamespace(kubeConfig);
    const list = await core.listNamespacedConfigMap({ namespace });
    const w = await watch(configMapsPath(namespace), { resourceVersion: list.metadata!.resourceVersion! });
    await createConfigMap(core, other, { name: 'elsewhere' });
    await createConfigMap(core, namespace, { name: 'here' });
    await w.waitForCount(1);
    expect(w.summary()).to.deep.equal(['ADDED here']);
  });

  it('of a cluster-scoped resource (namespaces) delivers its changes', async () => {
    const { core } = fixture();
    const list = await core.listNamespace({ limit: 1 });
    const w = await watch('/api/v1/namespaces', { resourceVersion: list.metadata!.resourceVersion! });
    const name = uniqueName('watched');
    await core.createNamespace({ body: { metadata: { name } } });
    await core.patchNamespace({ name, body: { metadata: { labels: { seen: 'yes' } } } }, asPatch.merge());
    await w.waitFor((e) => e.type === 'MODIFIED' && e.object.metadata?.name === name);
    expect(w.summary().filter((line) => line.endsWith(name))).to.deep.equal([`ADDED ${name}`, `MODIFIED ${name}`]);
  });

  it('timeoutSeconds ends the watch cleanly after about that long', async function () {
    this.timeout(30_000);
    const { core, namespace } = fixture();
    const list = await core.listNamespacedConfigMap({ namespace });
    const w = await watch(configMapsPath(namespace), {
      resourceVersion: list.metadata!.resourceVersion!,
      timeoutSeconds: 2,
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(w.ended, 'still open well before the timeout').to.equal(false);
    const error = await w.waitForEnd(20_000);
    expect(error ?? null).to.equal(null);
  });

  it('of custom resources delivers their changes', async () => {
    const { apiextensions, custom, namespace } = fixture();
    const crd = await createTestCrd(apiextensions, custom);
    const coordinates = { group: crd.group, version: crd.version, plural: crd.plural, namespace };
    const list = (await custom.listNamespacedCustomObject(coordinates)) as { metadata?: { resourceVersion?: string } };
    const w = await watch(`/apis/${crd.group}/${crd.version}/namespaces/${namespace}/${crd.plural}`, {
      resourceVersion: list.metadata!.resourceVersion!,
    });
    await custom.createNamespacedCustomObject({
      ...coordinates,
      body: { apiVersion: crd.apiVersion, kind: crd.kind, metadata: { name: 'w' }, spec: { n: 1 } },
    });
    await custom.patchNamespacedCustomObject({ ...coordinates, name: 'w', body: { spec: { n: 2 } } }, asPatch.merge());
    await custom.deleteNamespacedCustomObject({ ...coordinates, name: 'w' });
    await w.waitForCount(3);
    expect(w.summary()).to.deep.equal(['ADDED w', 'MODIFIED w', 'DELETED w']);
    expect(w.changes[0]!.object).to.include({ kind: 'Widget', apiVersion: crd.apiVersion });
  });

  it('sends one JSON object per line: {"type", "object"}', async () => {
    const { core, kubeConfig, namespace } = fixture();
    const list = await core.listNamespacedConfigMap({ namespace });
    await createConfigMap(core, namespace, { name: 'one' });
    await createConfigMap(core, namespace, { name: 'two' });
    const response = await rawRequest(kubeConfig, {
      path: `${configMapsPath(namespace)}?watch=true&timeoutSeconds=1&resourceVersion=${list.metadata!.resourceVersion!}`,
      headers: { accept: 'application/json' },
    });
    expect(response.status).to.equal(200);
    expect(response.headers['content-type']).to.match(/^application\/json/);
    const lines = response.text.split('\n').filter((line) => line.trim() !== '');
    expect(lines).to.have.length(2);
    const events = lines.map((line) => JSON.parse(line) as { type: string; object: V1ConfigMap });
    expect(events.map((e) => `${e.type} ${e.object.metadata?.name}`)).to.deep.equal(['ADDED one', 'ADDED two']);
    expect(Object.keys(events[0]!).sort()).to.deep.equal(['object', 'type']);
  });

  it("drives client-node's informer (makeInformer): add, update, delete", async () => {
    const { core, kubeConfig, namespace } = fixture();
    await createConfigMap(core, namespace, { name: 'before' });
    const informer = makeInformer<V1ConfigMap>(kubeConfig, configMapsPath(namespace), () => core.listNamespacedConfigMap({ namespace }));
    const seen: string[] = [];
    informer.on('add', (o) => seen.push(`add ${o.metadata?.name}`));
    informer.on('update', (o) => seen.push(`update ${o.metadata?.name}`));
    informer.on('delete', (o) => seen.push(`delete ${o.metadata?.name}`));
    informer.on('error', () => {});
    await informer.start();
    try {
      await eventually(() => expect(seen).to.include('add before'));
      await createConfigMap(core, namespace, { name: 'during' });
      await eventually(() => expect(seen).to.include('add during'));
      await core.patchNamespacedConfigMap({ name: 'during', namespace, body: { data: { v: '2' } } }, asPatch.merge());
      await eventually(() => expect(seen).to.include('update during'));
      await core.deleteNamespacedConfigMap({ name: 'before', namespace });
      await eventually(() => expect(seen).to.include('delete before'));
      expect(informer.list().map((o) => o.metadata?.name)).to.deep.equal(['during']);
    } finally {
      await informer.stop();
    }
  });
});
