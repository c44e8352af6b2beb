import { expect } from 'chai';
import { catchApiStatus } from '../helpers/api-status.js';
import { eventually } from '../helpers/eventually.js';
import { rawRequest } from '../helpers/raw-request.js';
import { uniqueName } from '../helpers/unique-name.js';
import { WatchEventCollector } from '../helpers/watch-event-collector.js';
import { startTestWebhookServer, type ReceivedConversion, type TestWebhookServer } from './admission-webhook-server.js';
import { useAdmissionWebhooks } from './admission-webhook-fixture.js';
import { asPatch, useConformanceFixture } from './conformance-fixture.js';

type Page = { apiVersion: string; kind: string; metadata: Record<string, unknown>; spec: Record<string, unknown> };

/**
 * A CRD whose versions differ in shape, converted by its conversion webhook:
 * v1 (stored) has `spec.url`, v2 has `spec.host` and `spec.path`. Every read and write of v2 goes
 * through the webhook, lists and watches included.
 */
describe('CRD conversion webhook', function () {
  this.timeout(60_000);
  const f = useConformanceFixture();
  const admission = useAdmissionWebhooks(f);
  let webhooks: TestWebhookServer;
  let group: string;
  let path: string;

  // The conversion the webhook does; `metadata` is also changed, to see which changes the server keeps.
  function convert(object: Record<string, unknown>, desired: string): Record<string, unknown> {
    const { spec = {}, metadata = {}, ...rest } = object as Page;
    const labels = { ...((metadata['labels'] as object | undefined) ?? {}), converted: 'yes' };
    const meta = { ...metadata, labels, generation: 99 };
    if (desired.endsWith('/v2')) {
      const { url, ...others } = spec as { url?: string };
      const parsed = new URL(url ?? 'https://invalid/');
      return { ...rest, apiVersion: desired, metadata: meta, spec: { ...others, host: parsed.host, path: parsed.pathname } };
    }
    const { host, path: p, ...others } = spec as { host?: string; path?: string };
    return { ...rest, apiVersion: desired, metadata: meta, spec: { ...others, url: `https://${host}${p}` } };
  }

  before(async () => {
    webhooks = await startTestWebhookServer();
  });
  after(async () => webhooks?.close());

  beforeEach(async () => {
    group = `${uniqueName('conv')}.kindex.test`;
    path = `/convert/${group}`;
    webhooks.answer<ReceivedConversion>(path, (r) => ({
      convertedObjects: r.objects.map((o) => convert(o, r.desiredAPIVersion)),
      result: { status: 'Success' },
    }));
    const schema = {
      openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
    };
    const created = await rawRequest(f().kubeConfig, {
      method: 'POST',
      path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: `pages.${group}` },
        spec: {
          group,
          scope: 'Namespaced',
          names: { plural: 'pages', singular: 'page', kind: 'Page', listKind: 'PageList' },
          versions: [
            { name: 'v1', served: true, storage: true, schema },
            { name: 'v2', served: true, storage: false, schema },
          ],
          conversion: {
            strategy: 'Webhook',
            webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: `${webhooks.url}${path}`, caBundle: webhooks.caBundle } },
          },
        },
      }),
    });
    expect(created.status, created.text).to.equal(201);
    await eventually(async () => expect((await pages('v2')).status).to.equal(200), { timeoutMs: 30_000, description: 'serving v2' });
  });

  afterEach(async () => {
    await rawRequest(f().kubeConfig, { method: 'DELETE', path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/pages.${group}` });
  });

  const pages = (version: string, name = '', query = ''): ReturnType<typeof rawRequest> =>
    rawRequest(f().kubeConfig, {
      path: `/apis/${group}/${version}/namespaces/${f().namespace}/pages${name === '' ? '' : `/${name}`}${query}`,
    });

  const at = (version: string) => ({ group, version, plural: 'pages', namespace: f().namespace });

  async function createV1(name: string, labels: Record<string, string> = {}): Promise<Page> {
    return (await f().custom.createNamespacedCustomObject({
      ...at('v1'),
      body: { apiVersion: `${group}/v1`, kind: 'Page', metadata: { name, labels }, spec: { url: 'https://example.com/docs', replicas: 1 } },
    })) as Page;
  }

  it('converts a read of another version than the stored one, keeping metadata but labels and annotations', async () => {
    const name = uniqueName('p');
    const stored = await createV1(name, { team: 'docs' });
    expect(stored.metadata['labels']).to.deep.equal({ team: 'docs' });
    const read = (await f().custom.getNamespacedCustomObject({ ...at('v2'), name })) as Page;
    expect(read.apiVersion).to.equal(`${group}/v2`);
    expect(read.spec).to.deep.equal({ host: 'example.com', path: '/docs', replicas: 1 });
    expect(read.metadata['labels']).to.deep.equal({ team: 'docs', converted: 'yes' });
    expect(read.metadata['generation']).to.equal(stored.metadata['generation']);
    expect(read.metadata['resourceVersion']).to.equal(stored.metadata['resourceVersion']);
    const review = (webhooks.received.get(path) as unknown as ReceivedConversion[]).at(-1)!;
    expect(review.desiredAPIVersion).to.equal(`${group}/v2`);
    expect(review.objects[0]).to.deep.include({ apiVersion: `${group}/v1` });
  });

  it('stores a write of another version converted, and patches it as that version shows it', async () => {
    const name = uniqueName('p');
    await createV1(name);
    const asV2 = (await f().custom.getNamespacedCustomObject({ ...at('v2'), name })) as Page;
    const replaced = (await f().custom.replaceNamespacedCustomObject({
      ...at('v2'),
      name,
      body: { ...asV2, metadata: { ...asV2.metadata, labels: {} }, spec: { ...asV2.spec, path: '/guide' } },
    })) as Page;
    expect(replaced.apiVersion).to.equal(`${group}/v2`);
    expect(replaced.spec['path']).to.equal('/guide');
    const asV1 = (await f().custom.getNamespacedCustomObject({ ...at('v1'), name })) as Page;
    expect(asV1.spec).to.deep.equal({ url: 'https://example.com/guide', replicas: 1 });
    const patched = (await f().custom.patchNamespacedCustomObject(
      { ...at('v2'), name, body: { spec: { host: 'kindex.dev' } } },
      asPatch.merge(),
    )) as Page;
    expect(patched.spec).to.deep.equal({ host: 'kindex.dev', path: '/guide', replicas: 1 });
    const again = (await f().custom.getNamespacedCustomObject({ ...at('v1'), name })) as Page;
    expect(again.spec['url']).to.equal('https://kindex.dev/guide');
  });

  it('converts the items of a list and the objects of a watch', async () => {
    const name = uniqueName('p');
    const created = await createV1(name);
    const watch = await WatchEventCollector.start(f().kubeConfig, `/apis/${group}/v2/namespaces/${f().namespace}/pages`, {
      resourceVersion: String(created.metadata['resourceVersion']),
    });
    try {
      await f().custom.patchNamespacedCustomObject(
        { ...at('v1'), name, body: { spec: { url: 'https://example.com/watch' } } },
        asPatch.merge(),
      );
      const event = await watch.waitFor((e) => e.type === 'MODIFIED');
      expect(event.object.apiVersion).to.equal(`${group}/v2`);
      expect((event.object as unknown as Page).spec).to.deep.include({ host: 'example.com', path: '/watch' });
    } finally {
      await watch.stop();
    }
    const list = JSON.parse((await pages('v2')).text) as { apiVersion: string; items: Page[] };
    expect(list.apiVersion).to.equal(`${group}/v2`);
    expect(list.items.map((p) => [p.apiVersion, p.spec['path']])).to.deep.equal([[`${group}/v2`, '/watch']]);
  });

  it('fails a read of a converted version with 500 when the webhook cannot be called, and serves the stored version', async () => {
    const name = uniqueName('p');
    await createV1(name);
    const closed = await startTestWebhookServer();
    const url = `${closed.url}/gone`;
    await closed.close();
    await f().apiextensions.patchCustomResourceDefinition(
      {
        name: `pages.${group}`,
        body: {
          spec: {
            conversion: {
              strategy: 'Webhook',
              webhook: { conversionReviewVersions: ['v1'], clientConfig: { url, caBundle: webhooks.caBundle } },
            },
          },
        },
      },
      asPatch.merge(),
    );
    const status = await eventually(
      async () => {
        const s = await catchApiStatus(f().custom.getNamespacedCustomObject({ ...at('v2'), name }));
        expect(s.code).to.equal(500);
        return s;
      },
      { timeoutMs: 20_000, description: 'the new webhook address in use' },
    );
    expect(status.message).to.include(`conversion webhook for ${group}/v1, Kind=Page failed: Post "${url}`);
    expect(status.message).to.include('connect: connection refused');
    expect(((await f().custom.getNamespacedCustomObject({ ...at('v1'), name })) as Page).spec['url']).to.equal('https://example.com/docs');
  });

  it('refuses a CRD whose Webhook strategy has no webhook, or an http url, naming the field', async () => {
    const crd = (conversion: unknown) => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `pages.bad-${group}` },
      spec: {
        group: `bad-${group}`,
        scope: 'Namespaced',
        names: { plural: 'pages', singular: 'page', kind: 'Page', listKind: 'PageList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
        conversion,
      },
    });
    const create = async (conversion: unknown) => {
      const r = await rawRequest(f().kubeConfig, {
        method: 'POST',
        path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(crd(conversion)),
      });
      expect(r.status, r.text).to.equal(422);
      const status = JSON.parse(r.text) as { details: { causes: { field: string; message: string }[] } };
      return Object.fromEntries(status.details.causes.map((c) => [c.field, c.message]));
    };
    expect(await create({ strategy: 'Webhook' })).to.deep.include({
      'spec.conversion.webhookClientConfig': 'Required value: required when strategy is set to Webhook',
    });
    const http = await create({
      strategy: 'Webhook',
      webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'http://127.0.0.1:1/x' } },
    });
    expect(http['spec.conversion.webhookClientConfig.url']).to.include("'https' is the only allowed URL scheme");
  });

  it('admits a write in the version of the webhook’s rule: converted for a v2 rule, requestKind the version written', async () => {
    const path = `/admit/${uniqueName('p')}`;
    const rules = [{ operations: ['CREATE'], apiGroups: [group], apiVersions: ['v2'], resources: ['pages'] }];
    await admission.install('validating', [admission.hook('pages', path, { rules })]);
    await eventually(
      async () => {
        const name = uniqueName('probe');
        await createV1(name);
        expect(admission.reviews(path, name)).to.have.length.above(0);
      },
      { timeoutMs: 20_000, description: 'the admission webhook active' },
    );
    const name = uniqueName('p');
    await createV1(name);
    const [review] = admission.reviews(path, name);
    expect(review).to.deep.include({ kind: { group, version: 'v2', kind: 'Page' }, requestKind: { group, version: 'v1', kind: 'Page' } });
    expect(review!.object).to.deep.include({ apiVersion: `${group}/v2`, spec: { host: 'example.com', path: '/docs', replicas: 1 } });
    const viaV2 = uniqueName('p');
    await f().custom.createNamespacedCustomObject({
      ...at('v2'),
      body: { apiVersion: `${group}/v2`, kind: 'Page', metadata: { name: viaV2 }, spec: { host: 'kindex.dev', path: '/' } },
    });
    const [direct] = admission.reviews(path, viaV2);
    expect(direct).to.deep.include({ requestKind: { group, version: 'v2', kind: 'Page' } });
    expect(direct!.object).to.deep.include({ spec: { host: 'kindex.dev', path: '/' } });
  });
});
