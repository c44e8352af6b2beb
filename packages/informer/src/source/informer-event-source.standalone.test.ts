// InformerEventSource without a controller (built from a KubeClient), its stealth filter, and
// reaching a registered source as its class through a typed handle, on the test API server.
import { expect } from 'chai';
import {
  ABSENT,
  EventSourceClassMismatchError,
  kopfFilter,
  PollingEventSource,
  PRESENT,
  ResourceID,
  type KubernetesObject,
  type Trigger,
} from '@kindex/core';
import { DefaultContext } from '@kindex/core/internal';
import { createNamespace, eventually, uniqueName } from '@kindex/testing';
import { CacheSyncError, InformerEventSource, Kinds, type ObjectOfKind } from '../index.js';
import { useOperatorSuite } from '../testing-fixtures/operator-suite.js';
import { WebPageKind, type WebPage } from '../testing-fixtures/web-page.js';

type ConfigMap = ObjectOfKind<typeof Kinds.ConfigMap>;

describe('InformerEventSource (standalone, stealth, handles)', function () {
  this.timeout(30_000);
  const suite = useOperatorSuite();
  const started: InformerEventSource<ConfigMap, KubernetesObject>[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((s) => s.stop()));
  });

  const configMap = (
    namespace: string,
    name: string,
    labels: Record<string, string> = {},
    data: Record<string, string> = {},
  ): ConfigMap => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, labels },
    data,
  });

  it('builds from a client, starts, serves get/list/byIndex from its cache, and stops', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const other = await createNamespace(suite.server.kubeConfig);
    await suite.client.create(Kinds.ConfigMap, configMap(ns, 'before', { app: 'web' }, { greeting: 'hello' }));
    await suite.client.create(Kinds.ConfigMap, configMap(other, 'elsewhere', { app: 'web' }));
    const source = InformerEventSource.from(Kinds.ConfigMap).withNamespaces([ns]).build(suite.client);
    started.push(source);
    source.addIndexer('byApp', (cm) => [cm.metadata?.labels?.['app'] ?? '']);
    await source.start();
    // Typed by the kind: `data` is a string map, no cast.
    const greeting: string | undefined = source.get(ResourceID.of('before', ns))?.data?.['greeting'];
    expect(greeting).to.equal('hello');
    await suite.client.create(Kinds.ConfigMap, configMap(ns, 'after', { app: 'web' }));
    await eventually(() =>
      expect(
        source
          .byIndex('byApp', 'web')
          .map((c) => c.metadata?.name)
          .sort(),
      ).to.deep.equal(['after', 'before']),
    );
    expect(
      source
        .list(ns)
        .map((c) => c.metadata?.name)
        .sort(),
    ).to.deep.equal(['after', 'before']);
    expect(() => source.get(ResourceID.of('elsewhere', other)), 'outside its namespaces').to.throw(/not watched/);
    await source.stop();
    expect(source.list()).to.deep.equal([]);
  });

  it('watches every namespace when built standalone without namespaces', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    await suite.client.create(Kinds.ConfigMap, configMap(ns, 'anywhere'));
    const source = InformerEventSource.from(Kinds.ConfigMap).build(suite.client);
    started.push(source);
    await source.start();
    expect(source.get(ResourceID.of('anywhere', ns))?.metadata?.name).to.equal('anywhere');
  });

  it('rejects start with a CacheSyncError naming the source when listing is forbidden', async function () {
    if (suite.server.faults.forbid === undefined) this.skip();
    const ns = await createNamespace(suite.server.kubeConfig);
    const lift = suite.server.faults.forbid({ resource: 'configmaps', namespace: ns });
    try {
      const source = InformerEventSource.from(Kinds.ConfigMap).withName('standalone-cms').withNamespaces([ns]).build(suite.client);
      const error = await source.start().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(CacheSyncError);
      expect(error).to.include({ status: 403, eventSource: 'standalone-cms', namespace: ns });
    } finally {
      lift();
    }
  });

  it('with a namespace selector, follows namespaces as they gain and lose the label, dropping without triggers', async () => {
    const key = `kindex.dev/${uniqueName('sel')}`;
    const [a, b] = [await createNamespace(suite.server.kubeConfig), await createNamespace(suite.server.kubeConfig)];
    await suite.client.create(Kinds.ConfigMap, configMap(a, 'in-a'));
    await suite.client.create(Kinds.ConfigMap, configMap(b, 'in-b'));
    await suite.client.patch(Kinds.Namespace, ResourceID.of(a), { metadata: { labels: { [key]: 'on' } } });
    const source = InformerEventSource.from(Kinds.ConfigMap)
      .withNamespaceSelector(`${key}=on`)
      .withSecondaryToPrimaryMapper((cm) => [ResourceID.of(cm.metadata!.name!, cm.metadata!.namespace)])
      .build(suite.client);
    started.push(source);
    const seen: string[] = [];
    source.triggers$.subscribe((t: Trigger) => t.cause.type === 'resource' && seen.push(`${t.cause.event} ${t.cause.objectKey}`));
    await source.start();
    expect(source.list().map((c) => c.metadata?.name)).to.deep.equal(['in-a']);
    await suite.client.patch(Kinds.Namespace, ResourceID.of(b), { metadata: { labels: { [key]: 'on' } } });
    await eventually(() =>
      expect(
        source
          .list()
          .map((c) => c.metadata?.name)
          .sort(),
      ).to.deep.equal(['in-a', 'in-b']),
    );
    expect(seen).to.include(`create ${b}/in-b`);
    seen.length = 0;
    await suite.client.patch(Kinds.Namespace, ResourceID.of(a), { metadata: { labels: { [key]: 'off' } } });
    await eventually(() => expect(source.list().map((c) => c.metadata?.name)).to.deep.equal(['in-b']));
    expect(seen, 'a dropped namespace triggers nothing').to.deep.equal([]);
    expect(() => source.get(ResourceID.of('in-a', a))).to.throw(/not watched/);
  });

  it('with a stealth filter, reports an object starting to match as a create and one ceasing to match as a delete', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    // A create-only filter: without stealth, a ConfigMap labelled after its creation would never pass.
    const source = InformerEventSource.from(Kinds.ConfigMap)
      .withNamespaces([ns])
      .withSecondaryToPrimaryMapper((cm) => [ResourceID.of(cm.metadata!.name!, cm.metadata!.namespace)])
      .withStealthFilter(kopfFilter({ labels: { managed: PRESENT } }))
      .withOnUpdateFilter(() => false)
      .build(suite.client);
    started.push(source);
    const seen: string[] = [];
    source.triggers$.subscribe((t: Trigger) => t.cause.type === 'resource' && seen.push(`${t.cause.event} ${t.cause.objectKey}`));
    await source.start();
    const id = ResourceID.of('cm', ns);
    await suite.client.create(Kinds.ConfigMap, configMap(ns, 'cm'));
    await suite.client.patch(Kinds.ConfigMap, id, { data: { a: '1' } }); // invisible: nothing
    await suite.client.patch(Kinds.ConfigMap, id, { metadata: { labels: { managed: 'yes' } } });
    await eventually(() => expect(seen).to.deep.equal([`create ${ns}/cm`]));
    await suite.client.patch(Kinds.ConfigMap, id, { data: { a: '2' } }); // visible update: the update filter drops it
    await suite.client.patch(Kinds.ConfigMap, id, { metadata: { labels: { managed: null } } });
    await eventually(() => expect(seen).to.deep.equal([`create ${ns}/cm`, `delete ${ns}/cm`]));
    // Out of sight again; the cache still holds it (stealth hides events, a selector hides objects).
    await suite.client.patch(Kinds.ConfigMap, id, { data: { a: '3' } });
    await suite.client.create(Kinds.ConfigMap, configMap(ns, 'marker', { managed: 'yes' }));
    await eventually(() => expect(seen).to.have.length(3));
    expect(seen).to.deep.equal([`create ${ns}/cm`, `delete ${ns}/cm`, `create ${ns}/marker`]);
    expect(source.get(id)?.data).to.deep.equal({ a: '3' });
  });

  it('ANDs several stealth filters', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const source = InformerEventSource.from(Kinds.ConfigMap)
      .withNamespaces([ns])
      .withSecondaryToPrimaryMapper((cm) => [ResourceID.of(cm.metadata!.name!, cm.metadata!.namespace)])
      .withStealthFilter(kopfFilter({ labels: { managed: PRESENT } }))
      .withStealthFilter(kopfFilter({ labels: { paused: ABSENT } }))
      .build(suite.client);
    started.push(source);
    const seen: string[] = [];
    source.triggers$.subscribe((t: Trigger) => t.cause.type === 'resource' && seen.push(`${t.cause.event} ${t.cause.objectKey}`));
    await source.start();
    await suite.client.create(Kinds.ConfigMap, configMap(ns, 'paused', { managed: 'yes', paused: 'yes' }));
    await suite.client.create(Kinds.ConfigMap, configMap(ns, 'active', { managed: 'yes' }));
    await eventually(() => expect(seen).to.deep.equal([`create ${ns}/active`]));
    await suite.client.patch(Kinds.ConfigMap, ResourceID.of('active', ns), { metadata: { labels: { paused: 'yes' } } });
    await eventually(() => expect(seen).to.deep.equal([`create ${ns}/active`, `delete ${ns}/active`]));
  });

  it('is reached as an InformerEventSource through a handle, and a handle naming another class fails clearly', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    await suite.client.create(Kinds.ConfigMap, configMap(ns, 'settings', {}, { colour: 'blue' }));
    const source = InformerEventSource.from(Kinds.ConfigMap, WebPageKind).withName('cms').withNamespaces([ns]).build(suite.client);
    started.push(source);
    await source.start();
    const polling = new PollingEventSource<ConfigMap, WebPage>({
      name: 'polled',
      resourceType: Kinds.ConfigMap,
      periodMs: 60_000,
      fetch: async () => [],
    });
    const context = new DefaultContext<WebPage>({
      primary: { metadata: { name: 'page', namespace: ns } },
      eventSources: [source, polling],
      primaryCache: { get: () => undefined, list: () => [], byIndex: () => [] },
      client: suite.client,
    });
    const cms = context.getEventSource(InformerEventSource.handle(Kinds.ConfigMap, WebPageKind, 'cms'));
    expect(cms).to.equal(source);
    expect(cms.get(ResourceID.of('settings', ns))?.data?.['colour']).to.equal('blue');
    expect(() => context.getEventSource(InformerEventSource.handle(Kinds.ConfigMap, WebPageKind, 'polled'))).to.throw(
      EventSourceClassMismatchError,
      /polled.*PollingEventSource.*InformerEventSource/,
    );
  });
});
