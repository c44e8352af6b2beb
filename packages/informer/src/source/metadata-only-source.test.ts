import { expect } from 'chai';
import { ApiextensionsV1Api, CoreV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { ResourceID, type KubernetesObject, type Trigger } from '@kindex/core';
import { createNamespace, createTestCrd, eventually, startTestApiServer, type TestApiServer } from '@kindex/testing';
import {
  fromAnnotations,
  fromLabels,
  InformerEventSource,
  InformerRegistry,
  KubeClient,
  Kinds,
  metadataOnly,
  resourceKind,
  type PartialObjectMetadata,
} from '../index.js';

interface WebPage extends KubernetesObject {
  spec?: { html?: string };
}
const WebPageKind = resourceKind<WebPage>({
  group: 'sample.kindex.dev',
  version: 'v1',
  kind: 'WebPage',
  plural: 'webpages',
  namespaced: true,
});
const ConfigMapMetadata = metadataOnly(Kinds.ConfigMap);

describe('metadataOnly', function () {
  this.timeout(30_000);
  let server: TestApiServer;
  let client: KubeClient;
  let core: CoreV1Api;
  const sources: InformerEventSource<PartialObjectMetadata, WebPage>[] = [];

  before(async () => {
    server = await startTestApiServer();
    client = new KubeClient(server.kubeConfig);
    core = server.kubeConfig.makeApiClient(CoreV1Api);
    await createTestCrd(server.kubeConfig.makeApiClient(ApiextensionsV1Api), server.kubeConfig.makeApiClient(CustomObjectsApi), {
      group: 'sample.kindex.dev',
      kind: 'WebPage',
    });
  });
  afterEach(async () => {
    await Promise.all(sources.splice(0).map((s) => s.stop()));
  });
  after(async () => {
    await client.registry.stopAll();
    await server.stop();
  });

  async function page(namespace: string, name: string): Promise<WebPage> {
    return client.create(WebPageKind, { apiVersion: 'sample.kindex.dev/v1', kind: 'WebPage', metadata: { name, namespace } });
  }

  async function configMap(namespace: string, name: string, metadata: Record<string, unknown> = {}): Promise<void> {
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name, ...metadata }, data: { big: 'x'.repeat(1000) } } });
  }

  function start(builder: ReturnType<typeof InformerEventSource.from<PartialObjectMetadata, WebPage>>, ns: string) {
    const source = new InformerEventSource(builder.configuration(), client, [ns]);
    sources.push(source);
    const triggers: Trigger[] = [];
    source.triggers$.subscribe((t) => triggers.push(t));
    return { source, triggers };
  }

  it("caches metadata only, stamped with the resource's kind and apiVersion, and finds secondaries by owner references", async () => {
    const ns = await createNamespace(server.kubeConfig);
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
    const ns = await createNamespace(server.kubeConfig);
    const a = await page(ns, 'page-a');
    await configMap(ns, 'by-label', { labels: { 'example.com/page': 'page-a' } });
    await configMap(ns, 'by-annotation', { annotations: { 'example.com/page': 'page-a' } });
    const byLabel = start(
      InformerEventSource.from(ConfigMapMetadata, WebPageKind)
        .withName('labels')
        .withSecondaryToPrimaryMapper(fromLabels({ nameKey: 'example.com/page' })),
      ns,
    ).source;
    const byAnnotation = start(
      InformerEventSource.from(ConfigMapMetadata, WebPageKind)
        .withName('annotations')
        .withSecondaryToPrimaryMapper(fromAnnotations({ nameKey: 'example.com/page' })),
      ns,
    ).source;
    await Promise.all([byLabel.start(), byAnnotation.start()]);
    expect(byLabel.getSecondaryResources(a).map((cm) => cm.metadata.name)).to.deep.equal(['by-label']);
    expect(byAnnotation.getSecondaryResources(a).map((cm) => cm.metadata.name)).to.deep.equal(['by-annotation']);
  });

  it('fetches the whole object on demand through the kind it was made from', async () => {
    const ns = await createNamespace(server.kubeConfig);
    await configMap(ns, 'whole');
    const { source } = start(InformerEventSource.from(ConfigMapMetadata, WebPageKind), ns);
    await source.start();
    const partial = source.cache.get(ResourceID.of('whole', ns))!;
    expect(partial).not.to.have.property('data');
    const whole = await client.get(ConfigMapMetadata.objectKind, ResourceID.fromResource(partial));
    expect(whole?.data?.['big']).to.have.length(1000);
  });

  it('reads metadata only through KubeClient.get and list of a metadata-only kind', async () => {
    const ns = await createNamespace(server.kubeConfig);
    await configMap(ns, 'one');
    const one = await client.get(ConfigMapMetadata, ResourceID.of('one', ns));
    expect(one).to.deep.include({ kind: 'ConfigMap', apiVersion: 'v1' });
    expect(Object.keys(one!)).to.deep.equal(['kind', 'apiVersion', 'metadata']);
    const list = await client.list(ConfigMapMetadata, { namespace: ns });
    expect(list.map((o) => [o.kind, o.apiVersion, o.metadata.name, Object.keys(o).length])).to.deep.equal([['ConfigMap', 'v1', 'one', 3]]);
    expect(await client.list(ConfigMapMetadata, { namespace: await createNamespace(server.kubeConfig) })).to.deep.equal([]);
    expect(await client.get(ConfigMapMetadata, ResourceID.of('missing', ns))).to.equal(undefined);
  });

  it('keeps a whole and a metadata-only cache of one kind apart', async () => {
    const ns = await createNamespace(server.kubeConfig);
    await configMap(ns, 'both');
    const registry = new InformerRegistry();
    const whole = registry.acquire({ kubeConfig: server.kubeConfig, type: Kinds.ConfigMap, namespace: ns });
    const partial = registry.acquire({ kubeConfig: server.kubeConfig, type: ConfigMapMetadata, namespace: ns });
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

  it('refuses a kind that is already metadata-only', () => {
    expect(() => metadataOnly(ConfigMapMetadata as never)).to.throw(TypeError, /v1\/ConfigMap#metadata is already metadata-only/);
  });
});
