import { expect } from 'chai';
import { CoreV1Api, type V1ConfigMap } from '@kubernetes/client-node';
import {
  enqueueFromMapFunc,
  kopfFilter,
  LOW_PRIORITY,
  MultipleSecondaryResourcesError,
  PRESENT,
  ResourceID,
  ShardSelector,
  type KubernetesObject,
  type Trigger,
} from '@kindex/core';
import { createNamespace, eventually, uniqueName } from '@kindex/testing';
import {
  fromAnnotations,
  fromLabels,
  InformerEventSource,
  InformerRegistry,
  Kinds,
  metadataOnly,
  NotCachedError,
  type InformerEventSourceBuilder,
  type PartialObjectMetadata,
} from '../index.js';
import { useOperatorSuite } from '../testing-fixtures/operator-suite.js';
import { WebPageKind, webPage, type WebPage } from '../testing-fixtures/web-page.js';

type ConfigMap = KubernetesObject & { data?: Record<string, string> };

function ownedBy(page: WebPage): V1ConfigMap['metadata'] {
  return {
    ownerReferences: [{ apiVersion: 'sample.kindex.dev/v1', kind: 'WebPage', name: page.metadata!.name!, uid: page.metadata!.uid! }],
  };
}

describe('InformerEventSource', function () {
  this.timeout(30_000);
  const suite = useOperatorSuite({ crd: { group: 'sample.kindex.dev', kind: 'WebPage' } });
  let core: CoreV1Api;
  const sources: InformerEventSource<ConfigMap, WebPage>[] = [];
  before(() => {
    core = suite.server.kubeConfig.makeApiClient(CoreV1Api);
  });
  afterEach(async () => {
    await Promise.all(sources.splice(0).map((s) => s.stop()));
  });

  function build(
    configure: (b: InformerEventSourceBuilder<ConfigMap, WebPage>) => InformerEventSourceBuilder<ConfigMap, WebPage>,
    namespaces: readonly string[],
  ) {
    const builder = configure(InformerEventSource.from<ConfigMap, WebPage>(Kinds.ConfigMap, WebPageKind));
    const source = new InformerEventSource(builder.configuration(), suite.client, namespaces);
    sources.push(source);
    const triggers: Trigger[] = [];
    source.triggers$.subscribe((t) => triggers.push(t));
    return { source, triggers };
  }

  // Owners must exist: a garbage collector deletes dependents whose owner is gone.
  async function page(namespace: string, name: string): Promise<WebPage> {
    return (
      (await suite.client.get<WebPage>(WebPageKind, ResourceID.of(name, namespace))) ??
      suite.client.create(WebPageKind, webPage(name, namespace))
    );
  }

  async function createConfigMap(namespace: string, name: string, pageName: string | undefined, data: Record<string, string> = {}) {
    const owner = pageName ? ownedBy(await page(namespace, pageName)) : {};
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name, ...owner }, data } });
  }

  const secondaryNames = (source: InformerEventSource<ConfigMap, WebPage>, page: string, ns: string) =>
    source
      .getSecondaryResources(webPage(page, ns))
      .map((cm) => cm.metadata!.name)
      .sort();

  it('seeds the reverse index from objects that exist before start', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    await createConfigMap(ns, 'a1', 'page-a');
    await createConfigMap(ns, 'a2', 'page-a');
    await createConfigMap(ns, 'b1', 'page-b');
    await createConfigMap(ns, 'none', undefined);
    const { source } = build((b) => b, [ns]);
    await source.start();
    expect(secondaryNames(source, 'page-a', ns)).to.deep.equal(['a1', 'a2']);
    expect(secondaryNames(source, 'page-b', ns)).to.deep.equal(['b1']);
    expect(secondaryNames(source, 'page-c', ns)).to.deep.equal([]);
    expect(source.getSecondaryResource(webPage('page-b', ns))?.metadata?.name).to.equal('b1');
    expect(source.getSecondaryResource(webPage('page-c', ns))).to.equal(undefined);
    expect(() => source.getSecondaryResource(webPage('page-a', ns))).to.throw(MultipleSecondaryResourcesError, new RegExp(`${ns}/page-a`));
  });

  it('triggers each primary once for the initial list, however many secondaries it has', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    for (const name of ['a1', 'a2', 'a3', 'a4', 'a5']) await createConfigMap(ns, name, 'page-a');
    await createConfigMap(ns, 'b1', 'page-b');
    const { source, triggers } = build((b) => b, [ns]);
    await source.start();
    await eventually(() => expect(triggers).to.have.length(2));
    const keys = triggers.flatMap((t) => t.primaryIds.map((id) => id.key)).sort();
    expect(keys).to.deep.equal([`${ns}/page-a`, `${ns}/page-b`]);
    // Watch events after the list are not gathered: one trigger each.
    triggers.length = 0;
    await createConfigMap(ns, 'a6', 'page-a');
    await eventually(() => expect(triggers).to.have.length(1));
    expect(triggers[0]!.cause).to.include({ type: 'resource', event: 'create', objectKey: `${ns}/a6` });
  });

  it('hands each trigger to onTrigger listeners by a direct call, the same trigger triggers$ subscribers get', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    await createConfigMap(ns, 'a1', 'page-a');
    const { source, triggers } = build((b) => b, [ns]);
    const direct: Trigger[] = [];
    const stop = source.onTrigger((t) => direct.push(t));
    await source.start();
    await eventually(() => expect(direct).to.have.length(1));
    await createConfigMap(ns, 'a2', 'page-a');
    await eventually(() => expect(direct).to.have.length(2));
    expect(direct[1]!.cause).to.include({ type: 'resource', event: 'create', objectKey: `${ns}/a2` });
    expect(direct[1]!.cause).to.have.property('resourceVersion').that.is.a('string');
    expect(direct[1]).to.not.have.property('priority');
    expect(triggers).to.deep.equal(direct);
    stop();
    await createConfigMap(ns, 'a3', 'page-a');
    await eventually(() => expect(triggers).to.have.length(3));
    expect(direct).to.have.length(2);
  });

  it('gives the triggers of the initial list LOW_PRIORITY, and those of watch events the default', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    await createConfigMap(ns, 'a1', 'page-a');
    await createConfigMap(ns, 'b1', 'page-b');
    const { source, triggers } = build((b) => b, [ns]);
    await source.start();
    await eventually(() => expect(triggers).to.have.length(2));
    expect(triggers.map((t) => t.priority)).to.deep.equal([LOW_PRIORITY, LOW_PRIORITY]);
    triggers.length = 0;
    await suite.client.patch(Kinds.ConfigMap, ResourceID.of('a1', ns), { data: { changed: 'yes' } });
    await createConfigMap(ns, 'c1', 'page-c');
    await eventually(() => expect(triggers).to.have.length(2));
    expect(triggers.map((t) => t.priority)).to.deep.equal([undefined, undefined]);
  });

  it('triggers both primaries when a reference moves, and cleans the index on delete', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const { source, triggers } = build((b) => b, [ns]);
    await source.start();
    await createConfigMap(ns, 'cm', 'page-a');
    await eventually(() => expect(secondaryNames(source, 'page-a', ns)).to.deep.equal(['cm']));
    triggers.length = 0;
    await suite.client.patch(Kinds.ConfigMap, ResourceID.of('cm', ns), { metadata: ownedBy(await page(ns, 'page-b')) });
    await eventually(() => expect(secondaryNames(source, 'page-b', ns)).to.deep.equal(['cm']));
    expect(secondaryNames(source, 'page-a', ns)).to.deep.equal([]);
    const moved = triggers.find((t) => t.cause.type === 'resource' && t.cause.event === 'update');
    expect(moved?.primaryIds.map((id) => id.key).sort()).to.deep.equal([`${ns}/page-a`, `${ns}/page-b`]);
    triggers.length = 0;
    await core.deleteNamespacedConfigMap({ namespace: ns, name: 'cm' });
    await eventually(() => expect(triggers.map((t) => t.cause.type === 'resource' && t.cause.event)).to.include('delete'));
    expect(secondaryNames(source, 'page-b', ns)).to.deep.equal([]);
    expect(source.primaryKeysOf(ResourceID.of('cm', ns)).size).to.equal(0);
  });

  it("answers a primary's secondaries as the cached objects, the new version right after each event", async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const { source } = build((b) => b, [ns]);
    await source.start();
    await createConfigMap(ns, 'a1', 'page-a', { v: '0' });
    await createConfigMap(ns, 'b1', 'page-b');
    await eventually(() => expect(secondaryNames(source, 'page-a', ns)).to.deep.equal(['a1']));
    const cached = (name: string) => source.get(ResourceID.of(name, ns));
    const of = (page: string) => source.getSecondaryResources(webPage(page, ns));
    expect(of('page-a')[0]).to.equal(cached('a1'));

    // Its own secondary changing (same owner, so the index entry stays): the new version, the very cached object.
    await suite.client.patch(Kinds.ConfigMap, ResourceID.of('a1', ns), { data: { v: '1' } });
    await eventually(() => expect(of('page-a')[0]?.data).to.deep.equal({ v: '1' }));
    expect(of('page-a')[0]).to.equal(cached('a1'));
    expect(of('page-b')[0]).to.equal(cached('b1'));

    // A secondary joining it, and one leaving it for another primary.
    await createConfigMap(ns, 'a2', 'page-a');
    await eventually(() => expect(secondaryNames(source, 'page-a', ns)).to.deep.equal(['a1', 'a2']));
    await suite.client.patch(Kinds.ConfigMap, ResourceID.of('a1', ns), { metadata: ownedBy(await page(ns, 'page-b')), data: { v: '2' } });
    await eventually(() => expect(secondaryNames(source, 'page-b', ns)).to.deep.equal(['a1', 'b1']));
    expect(secondaryNames(source, 'page-a', ns)).to.deep.equal(['a2']);
    expect(of('page-b').find((cm) => cm.metadata!.name === 'a1')).to.equal(cached('a1'));
  });

  it("reads a snapshot's secondaries as they were when it was taken, before and after the cache changes", async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const { source } = build((b) => b, [ns]);
    await source.start();
    await createConfigMap(ns, 'a1', 'page-a', { v: '0' });
    await eventually(() => expect(secondaryNames(source, 'page-a', ns)).to.deep.equal(['a1']));
    const before = source.get(ResourceID.of('a1', ns));
    const snapshot = source.snapshot();
    // Nothing written since: the cached objects themselves.
    expect(snapshot.getSecondaryResources(webPage('page-a', ns))).to.deep.equal([before]);
    expect(snapshot.getSecondaryResources(webPage('page-a', ns))[0]).to.equal(before);

    await suite.client.patch(Kinds.ConfigMap, ResourceID.of('a1', ns), { data: { v: '1' } });
    await createConfigMap(ns, 'a2', 'page-a', { v: '2' });
    await eventually(() => expect(secondaryNames(source, 'page-a', ns)).to.deep.equal(['a1', 'a2']));
    await eventually(() => expect(source.get(ResourceID.of('a1', ns))?.data).to.deep.equal({ v: '1' }));
    // Written since: still the versions of its moment.
    const then = snapshot.getSecondaryResources(webPage('page-a', ns));
    expect(then).to.have.length(1);
    expect(then[0]).to.equal(before);
    snapshot.release?.();
    const now = source.snapshot();
    expect(now.getSecondaryResources(webPage('page-a', ns)).map((cm) => cm.data)).to.have.deep.members([{ v: '1' }, { v: '2' }]);
    now.release?.();
  });

  it('answers from the primary-to-secondary mapper and keeps no index when one is set', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    await createConfigMap(ns, 'config-of-x', undefined);
    const { source } = build(
      (b) => b.withPrimaryToSecondaryMapper((p) => [ResourceID.of(`config-of-${p.metadata!.name}`, p.metadata!.namespace)]),
      [ns],
    );
    await source.start();
    expect(secondaryNames(source, 'x', ns)).to.deep.equal(['config-of-x']);
    expect(secondaryNames(source, 'y', ns)).to.deep.equal([]);
  });

  it('reports a throwing mapper and goes on with the other objects', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const { source, triggers } = build(
      (b) =>
        b.withSecondaryToPrimaryMapper((cm) => {
          if (cm.metadata?.name === 'bad') throw new Error('boom');
          return [ResourceID.of('page', cm.metadata!.namespace)];
        }),
      [ns],
    );
    const problems: unknown[] = [];
    source.problems$.subscribe((p) => problems.push(p.error));
    await source.start();
    await createConfigMap(ns, 'bad', undefined);
    await createConfigMap(ns, 'good', undefined);
    await eventually(() => expect(secondaryNames(source, 'page', ns)).to.deep.equal(['good']));
    expect(triggers.some((t) => t.cause.type === 'resource' && t.cause.objectKey === `${ns}/good`)).to.equal(true);
    expect(problems.map((e) => String(e))).to.satisfy((msgs: string[]) => msgs.some((m) => m.includes(`${ns}/bad`)));
  });

  it('applies filters after indexing: a filtered event still updates the index', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const { source, triggers } = build((b) => b.withOnAddFilter((cm) => cm.metadata?.labels?.['watch'] === 'yes'), [ns]);
    await source.start();
    await createConfigMap(ns, 'quiet', 'page');
    await eventually(() => expect(secondaryNames(source, 'page', ns)).to.deep.equal(['quiet']));
    expect(triggers.filter((t) => t.cause.type === 'resource' && t.cause.objectKey === `${ns}/quiet`)).to.have.length(0);
  });

  it('shares one informer between two sources of the same kind, namespace and selectors', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    await createConfigMap(ns, 'shared', 'page');
    const before = InformerRegistry.of(suite.client).size;
    const first = build((b) => b.withName('first'), [ns]);
    const second = build((b) => b.withName('second'), [ns]);
    await first.source.start();
    await second.source.start();
    expect(InformerRegistry.of(suite.client).size).to.equal(before + 1);
    expect(secondaryNames(second.source, 'page', ns)).to.deep.equal(['shared']);
    await first.source.stop();
    await createConfigMap(ns, 'later', 'page');
    await eventually(() => expect(secondaryNames(second.source, 'page', ns)).to.deep.equal(['later', 'shared']));
  });

  it('changes namespaces at run time without reconciling the removed ones', async () => {
    const ns1 = await createNamespace(suite.server.kubeConfig);
    const ns2 = await createNamespace(suite.server.kubeConfig);
    await createConfigMap(ns1, 'one', 'page');
    await createConfigMap(ns2, 'two', 'page');
    const { source, triggers } = build((b) => b, [ns1]);
    await source.start();
    expect(secondaryNames(source, 'page', ns1)).to.deep.equal(['one']);
    expect(() => source.get(ResourceID.of('two', ns2))).to.throw(NotCachedError, /not watched/);
    await source.changeNamespaces([ns2]);
    expect(secondaryNames(source, 'page', ns2)).to.deep.equal(['two']);
    triggers.length = 0;
    expect(secondaryNames(source, 'page', ns1)).to.deep.equal([]);
    expect(source.get(ResourceID.of('two', ns2))?.metadata?.name).to.equal('two');
    expect(() => source.get(ResourceID.of('one', ns1))).to.throw(NotCachedError);
    expect(triggers).to.have.length(0);
  });

  it('says when a field selector excludes the object asked for', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const name = uniqueName('only');
    await createConfigMap(ns, name, 'page');
    const { source } = build((b) => b.withFieldSelector(`metadata.name=${name}`), [ns]);
    await source.start();
    expect(source.get(ResourceID.of(name, ns))?.metadata?.name).to.equal(name);
    expect(() => source.get(ResourceID.of('other', ns))).to.throw(NotCachedError, /field selector/);
  });

  it('lets an event handler pick the primaries while the index still serves lookups', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const { source, triggers } = build(
      (b) => b.withEventHandler(enqueueFromMapFunc<ConfigMap>((cm) => [ResourceID.of(`via-${cm.metadata!.name}`, ns)])),
      [ns],
    );
    await source.start();
    await createConfigMap(ns, 'h', 'page');
    await eventually(() => expect(triggers.flatMap((t) => t.primaryIds.map((id) => id.name))).to.include('via-h'));
    expect(triggers.flatMap((t) => t.primaryIds.map((id) => id.name))).to.not.include('page');
    expect(secondaryNames(source, 'page', ns)).to.deep.equal(['h']);
  });

  it('ANDs the controller-wide event filters with its own', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const builder = InformerEventSource.from<ConfigMap, WebPage>(Kinds.ConfigMap, WebPageKind).withFilter(
      kopfFilter<ConfigMap>({ labels: { tier: PRESENT } }),
    );
    const source = builder.build({
      client: suite.client,
      primaryCache: undefined as never,
      configuration: { namespaces: [ns] } as never,
      eventFilters: [kopfFilter({ annotations: { watched: 'yes' } })],
    });
    sources.push(source);
    const triggers: Trigger[] = [];
    source.triggers$.subscribe((t) => triggers.push(t));
    await source.start();
    const owner = ownedBy(await page(ns, 'page'));
    const make = (name: string, labels: Record<string, string>, annotations: Record<string, string>) =>
      core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name, labels, annotations, ...owner } } });
    await make('both', { tier: 'x' }, { watched: 'yes' });
    await make('label-only', { tier: 'x' }, {});
    await make('annotation-only', {}, { watched: 'yes' });
    await eventually(() => expect(secondaryNames(source, 'page', ns)).to.have.length(3));
    expect(triggers.map((t) => (t.cause.type === 'resource' ? t.cause.objectKey : ''))).to.deep.equal([`${ns}/both`]);
  });

  describe('of a metadataOnly kind', () => {
    const ConfigMapMetadata = metadataOnly(Kinds.ConfigMap);
    const metadataSources: InformerEventSource<PartialObjectMetadata, WebPage>[] = [];
    afterEach(async () => {
      await Promise.all(metadataSources.splice(0).map((s) => s.stop()));
    });

    async function configMap(namespace: string, name: string, metadata: Record<string, unknown> = {}): Promise<void> {
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name, ...metadata }, data: { big: 'x'.repeat(1000) } } });
    }

    function start(builder: InformerEventSourceBuilder<PartialObjectMetadata, WebPage>, ns: string) {
      const source = new InformerEventSource(builder.configuration(), suite.client, [ns]);
      metadataSources.push(source);
      const triggers: Trigger[] = [];
      source.triggers$.subscribe((t) => triggers.push(t));
      return { source, triggers };
    }

    it("caches metadata only, stamped with the resource's kind and apiVersion, and finds secondaries by owner references", async () => {
      const ns = await createNamespace(suite.server.kubeConfig);
      const a = await page(ns, 'page-a');
      const owner = { ownerReferences: [{ apiVersion: 'sample.kindex.dev/v1', kind: 'WebPage', name: 'page-a', uid: a.metadata!.uid! }] };
      await configMap(ns, 'a1', owner);
      await configMap(ns, 'none');
      const { source, triggers } = start(InformerEventSource.from(ConfigMapMetadata, WebPageKind), ns);
      await source.start();
      const cached = source.cache.get(ResourceID.of('a1', ns))!;
      expect(Object.keys(cached)).to.deep.equal(['kind', 'apiVersion', 'metadata']);
      expect(cached).to.include({ kind: 'ConfigMap', apiVersion: 'v1' });
      expect(cached.metadata.ownerReferences?.[0]).to.include({ kind: 'WebPage', name: 'page-a' });
      expect(source.getSecondaryResources(a).map((cm) => cm.metadata.name)).to.deep.equal(['a1']);
      await eventually(() => expect(triggers.flatMap((t) => t.primaryIds.map((id) => id.key))).to.deep.equal([`${ns}/page-a`]));
      // Watch events too: a new owned ConfigMap and an update reach the index as metadata.
      await configMap(ns, 'a2', owner);
      await core.patchNamespacedConfigMap({ name: 'a1', namespace: ns, body: [{ op: 'add', path: '/data/more', value: '1' }] });
      await eventually(() =>
        expect(
          source
            .getSecondaryResources(a)
            .map((cm) => cm.metadata.name)
            .sort(),
        ).to.deep.equal(['a1', 'a2']),
      );
      await eventually(() =>
        expect(source.cache.get(ResourceID.of('a1', ns))!.metadata.resourceVersion).not.to.equal(cached.metadata.resourceVersion),
      );
      expect(Object.keys(source.cache.get(ResourceID.of('a2', ns))!)).to.deep.equal(['kind', 'apiVersion', 'metadata']);
    });

    it('maps by labels and by annotations unchanged', async () => {
      const ns = await createNamespace(suite.server.kubeConfig);
      const a = await page(ns, 'page-a');
      await configMap(ns, 'by-label', { labels: { 'example.com/page': 'page-a' } });
      await configMap(ns, 'by-annotation', { annotations: { 'example.com/page': 'page-a' } });
      const mappers = { 'by-label': fromLabels, 'by-annotation': fromAnnotations };
      for (const [name, mapper] of Object.entries(mappers)) {
        const builder = InformerEventSource.from(ConfigMapMetadata, WebPageKind).withName(name);
        const { source } = start(builder.withSecondaryToPrimaryMapper(mapper({ nameKey: 'example.com/page' })), ns);
        await source.start();
        expect(source.getSecondaryResources(a).map((cm) => cm.metadata.name)).to.deep.equal([name]);
      }
    });

    it('fetches the whole object on demand through the kind it was made from', async () => {
      const ns = await createNamespace(suite.server.kubeConfig);
      await configMap(ns, 'whole');
      const { source } = start(InformerEventSource.from(ConfigMapMetadata, WebPageKind), ns);
      await source.start();
      const partial = source.cache.get(ResourceID.of('whole', ns))!;
      expect(partial).not.to.have.property('data');
      const whole = await suite.client.get(ConfigMapMetadata.objectKind, ResourceID.fromResource(partial));
      expect(whole?.data?.['big']).to.have.length(1000);
    });

    it('reads metadata only through KubeClient.get and list of a metadata-only kind', async () => {
      const ns = await createNamespace(suite.server.kubeConfig);
      await configMap(ns, 'one');
      const one = await suite.client.get(ConfigMapMetadata, ResourceID.of('one', ns));
      expect(one).to.deep.include({ kind: 'ConfigMap', apiVersion: 'v1' });
      expect(Object.keys(one!)).to.deep.equal(['kind', 'apiVersion', 'metadata']);
      const list = await suite.client.list(ConfigMapMetadata, { namespace: ns });
      expect(list.map((o) => [o.kind, o.apiVersion, o.metadata.name, Object.keys(o).length])).to.deep.equal([
        ['ConfigMap', 'v1', 'one', 3],
      ]);
      expect(await suite.client.list(ConfigMapMetadata, { namespace: await createNamespace(suite.server.kubeConfig) })).to.deep.equal([]);
      expect(await suite.client.get(ConfigMapMetadata, ResourceID.of('missing', ns))).to.equal(undefined);
    });

    it('keeps a whole and a metadata-only cache of one kind apart', async () => {
      const ns = await createNamespace(suite.server.kubeConfig);
      await configMap(ns, 'both');
      const registry = new InformerRegistry();
      const whole = registry.acquire({ kubeConfig: suite.server.kubeConfig, type: Kinds.ConfigMap, namespace: ns });
      const partial = registry.acquire({ kubeConfig: suite.server.kubeConfig, type: ConfigMapMetadata, namespace: ns });
      try {
        expect(partial.informer).not.to.equal(whole.informer);
        await Promise.all([whole.informer.start(), partial.informer.start()]);
        await eventually(() => expect(partial.informer.store.list()).to.have.length(1));
        await eventually(() => expect(whole.informer.store.list()).to.have.length(1));
        expect(whole.informer.store.list()[0]).to.have.property('data');
        expect(partial.informer.store.list()[0]).not.to.have.property('data');
      } finally {
        await registry.stopAll();
      }
    });

    it('caches the shard range of a shard selector, by the uid the metadata carries, under namespace/name keys', async () => {
      const ns = await createNamespace(suite.server.kubeConfig);
      const shard = ShardSelector.forShards('object.metadata.uid', [0, 1], 4);
      // Uids are random: create until some objects fall inside the range and some outside.
      const inShard: string[] = [];
      for (let i = 0; i < 40 && (inShard.length === 0 || inShard.length === i); i++) {
        await configMap(ns, `s${i}`);
        const created = await suite.client.get(ConfigMapMetadata, ResourceID.of(`s${i}`, ns));
        if (shard.matches(created!)) inShard.push(`s${i}`);
      }
      const { source } = start(InformerEventSource.from(ConfigMapMetadata, WebPageKind).withShardSelector(shard), ns);
      await source.start();
      expect(
        source
          .list()
          .map((cm) => cm.metadata.name)
          .sort(),
      ).to.deep.equal(inShard.sort());
      for (const name of inShard) expect(source.cache.get(ResourceID.of(name, ns))?.metadata.name).to.equal(name);
    });

    it('refuses a kind that is already metadata-only', () => {
      expect(() => metadataOnly(ConfigMapMetadata as never)).to.throw(TypeError, /v1\/ConfigMap#metadata is already metadata-only/);
    });
  });
});
