import { expect } from 'chai';
import { makeInformer, type V1ConfigMap } from '@kubernetes/client-node';
import { eventually } from '../helpers/eventually.js';
import { WatchEventCollector } from '../helpers/watch-event-collector.js';
import { asPatch, configMapsPath, createConfigMap, useConformanceFixture } from './conformance-fixture.js';

describe('conformance: watch with selectors', () => {
  const fixture = useConformanceFixture();
  let w: WatchEventCollector | undefined;
  afterEach(async () => {
    await w?.stop();
    w = undefined;
  });

  async function watchFromNow(query: { labelSelector?: string; fieldSelector?: string }): Promise<WatchEventCollector> {
    const { core, kubeConfig, namespace } = fixture();
    const list = await core.listNamespacedConfigMap({ namespace, ...query });
    w = await WatchEventCollector.start(kubeConfig, configMapsPath(namespace), {
      ...query,
      resourceVersion: list.metadata!.resourceVersion!,
    });
    return w;
  }

  function relabel(name: string, labels: Record<string, string | null>) {
    const { core, namespace } = fixture();
    return core.patchNamespacedConfigMap({ name, namespace, body: { metadata: { labels } } }, asPatch.merge());
  }

  it('delivers only objects matching the label selector', async () => {
    const { core, namespace } = fixture();
    const watch = await watchFromNow({ labelSelector: 'app=web' });
    await createConfigMap(core, namespace, { name: 'other', labels: { app: 'db' } });
    await createConfigMap(core, namespace, { name: 'match', labels: { app: 'web' } });
    await watch.waitForCount(1);
    expect(watch.summary()).to.deep.equal(['ADDED match']);
  });

  it('an object that stops matching arrives as DELETED, one that starts matching as ADDED', async () => {
    const { core, namespace } = fixture();
    await createConfigMap(core, namespace, { name: 'leaving', labels: { app: 'web' } });
    await createConfigMap(core, namespace, { name: 'joining', labels: { app: 'db' } });
    const watch = await watchFromNow({ labelSelector: 'app=web' });
    const left = await relabel('leaving', { app: 'db' });
    const joined = await relabel('joining', { app: 'web' });
    const events = await watch.waitForCount(2);
    expect(watch.summary()).to.deep.equal(['DELETED leaving', 'ADDED joining']);
    // The real server's DELETED carries the last state that matched, stamped with the new resourceVersion.
    expect(events[0]!.object.metadata?.labels).to.deep.equal({ app: 'web' });
    expect(events[1]!.object.metadata?.labels).to.deep.equal({ app: 'web' });
    expect(events[0]!.object.metadata?.resourceVersion).to.equal(left.metadata?.resourceVersion);
    expect(events[1]!.object.metadata?.resourceVersion).to.equal(joined.metadata?.resourceVersion);
  });

  it('a change that keeps an object matching arrives as MODIFIED; changes outside the selection do not arrive', async () => {
    const { core, namespace } = fixture();
    await createConfigMap(core, namespace, { name: 'in', labels: { app: 'web' } });
    await createConfigMap(core, namespace, { name: 'out', labels: { app: 'db' } });
    const watch = await watchFromNow({ labelSelector: 'app=web' });
    await core.patchNamespacedConfigMap({ name: 'out', namespace, body: { data: { v: '2' } } }, asPatch.merge());
    await core.deleteNamespacedConfigMap({ name: 'out', namespace });
    await core.patchNamespacedConfigMap({ name: 'in', namespace, body: { data: { v: '2' } } }, asPatch.merge());
    await core.deleteNamespacedConfigMap({ name: 'in', namespace });
    await watch.waitForCount(2);
    expect(watch.summary()).to.deep.equal(['MODIFIED in', 'DELETED in']);
  });

  it('set-based and existence selectors apply to watches as to lists', async () => {
    const { core, namespace } = fixture();
    const watch = await watchFromNow({ labelSelector: 'tier in (web,api),!legacy' });
    await createConfigMap(core, namespace, { name: 'web', labels: { tier: 'web' } });
    await createConfigMap(core, namespace, { name: 'old', labels: { tier: 'api', legacy: 'true' } });
    await createConfigMap(core, namespace, { name: 'db', labels: { tier: 'db' } });
    await createConfigMap(core, namespace, { name: 'api', labels: { tier: 'api' } });
    await watch.waitForCount(2);
    expect(watch.summary()).to.deep.equal(['ADDED web', 'ADDED api']);
  });

  it('a metadata.name field selector watches one object', async () => {
    const { core, namespace } = fixture();
    const watch = await watchFromNow({ fieldSelector: 'metadata.name=target' });
    await createConfigMap(core, namespace, { name: 'bystander' });
    await createConfigMap(core, namespace, { name: 'target' });
    await core.patchNamespacedConfigMap({ name: 'bystander', namespace, body: { data: { v: '2' } } }, asPatch.merge());
    await core.deleteNamespacedConfigMap({ name: 'target', namespace });
    await watch.waitForCount(2);
    expect(watch.summary()).to.deep.equal(['ADDED target', 'DELETED target']);
  });

  it('without a resourceVersion, the initial ADDED events respect the selector', async () => {
    const { core, kubeConfig, namespace } = fixture();
    await createConfigMap(core, namespace, { name: 'yes', labels: { pick: 'me' } });
    await createConfigMap(core, namespace, { name: 'no' });
    w = await WatchEventCollector.start(kubeConfig, configMapsPath(namespace), { labelSelector: 'pick=me' });
    await createConfigMap(core, namespace, { name: 'later', labels: { pick: 'me' } });
    await w.waitForCount(2);
    expect(w.summary()).to.deep.equal(['ADDED yes', 'ADDED later']);
  });

  it("client-node's informer with a label selector drops an object that stops matching and adds one that starts", async () => {
    const { core, kubeConfig, namespace } = fixture();
    await createConfigMap(core, namespace, { name: 'leaving', labels: { app: 'web' } });
    await createConfigMap(core, namespace, { name: 'joining', labels: { app: 'db' } });
    const informer = makeInformer<V1ConfigMap>(
      kubeConfig,
      configMapsPath(namespace),
      () => core.listNamespacedConfigMap({ namespace, labelSelector: 'app=web' }),
      'app=web',
    );
    const seen: string[] = [];
    informer.on('add', (o) => seen.push(`add ${o.metadata?.name}`));
    informer.on('delete', (o) => seen.push(`delete ${o.metadata?.name}`));
    informer.on('error', () => {});
    await informer.start();
    try {
      await eventually(() => expect(seen).to.deep.equal(['add leaving']));
      await relabel('leaving', { app: 'db' });
      await relabel('joining', { app: 'web' });
      await eventually(() => expect(seen).to.deep.equal(['add leaving', 'delete leaving', 'add joining']));
      expect(informer.list().map((o) => o.metadata?.name)).to.deep.equal(['joining']);
    } finally {
      await informer.stop();
    }
  });
});
