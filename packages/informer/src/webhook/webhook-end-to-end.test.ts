import { expect } from 'chai';
import { ResourceID, type KubernetesObject } from '@kindex/core';
import { createNamespace, eventually, rawRequest, uniqueName, useTestApiServer, WatchEventCollector } from '@kindex/testing';
import { KubeApiError, KubeClient, Operator, resourceKind, startLocalWebhooks, type LocalWebhooks, type ResourceKind } from '../index.js';
import { createWebPageCrd } from './webhook.fixture.test.js';

type WebPageV1 = KubernetesObject & { spec?: { url?: string; replicas?: number; title?: string } };
type WebPageV2 = KubernetesObject & { spec?: { host?: string; path?: string; replicas?: number; title?: string } };

/**
 * The API server calls the operator's webhooks: kube-apiserver reaches the webhook server on
 * 127.0.0.1 by `url`, verifies it against the generated CA, and acts on the answers.
 */
describe('webhooks called by the API server', function () {
  this.timeout(120_000);
  const server = useTestApiServer({ shared: true });
  let group: string;
  let namespace: string;
  let client: KubeClient;
  let V1: ResourceKind<WebPageV1>;
  let V2: ResourceKind<WebPageV2>;
  let operator: Operator;
  let local: LocalWebhooks;
  let deleteCrd: (() => Promise<void>) | undefined;

  before(async function () {
    const kubeConfig = server().kubeConfig;
    client = new KubeClient(kubeConfig);
    group = `${uniqueName('web')}.kindex.test`;
    // Two versions, v1 stored: reads and writes of v2 go through the conversion webhook.
    deleteCrd = await createWebPageCrd(client, group, ['v1', 'v2']);
    V1 = resourceKind<WebPageV1>({ group, version: 'v1', kind: 'WebPage', plural: 'webpages', namespaced: true });
    V2 = resourceKind<WebPageV2>({ group, version: 'v2', kind: 'WebPage', plural: 'webpages', namespaced: true });
    namespace = await createNamespace(kubeConfig);
    await eventually(async () => expect((await listPages('v1')).status).to.equal(200), {
      timeoutMs: 30_000,
      description: 'serving the WebPage CRD',
    });

    operator = new Operator({ kubeConfig, webhooks: { port: 0, host: '127.0.0.1' } });
    const webhooks = operator.webhooks!;
    webhooks.validating<WebPageV1>({
      kind: V1,
      validate: ({ object }) =>
        (object?.spec?.replicas ?? 0) > 5
          ? { allowed: false, message: `spec.replicas must be at most 5, not ${object!.spec!.replicas}` }
          : { allowed: true },
    });
    webhooks.mutating<WebPageV1>({
      kind: V1,
      operations: ['CREATE'],
      mutate: ({ object }) => ({ allowed: true, object: { ...object!, spec: { title: 'untitled', ...object!.spec } } }),
    });
    webhooks.conversion({
      group,
      plural: 'webpages',
      kind: 'WebPage',
      hub: 'v2',
      spokes: {
        v1: {
          toHub: (o) => {
            const { url, ...spec } = (o as WebPageV1).spec ?? {};
            const parsed = new URL(url ?? 'https://invalid/');
            return { ...o, spec: { ...spec, host: parsed.host, path: parsed.pathname } } as WebPageV2;
          },
          fromHub: (o) => {
            const { host, path, ...spec } = (o as WebPageV2).spec ?? {};
            return { ...o, spec: { ...spec, url: `https://${host}${path}` } } as WebPageV1;
          },
        },
      },
    });
    local = await startLocalWebhooks(webhooks, { kubeConfig, name: uniqueName('webpages') });
  });

  after(async () => {
    await local?.dispose();
    await deleteCrd?.();
  });

  const listPages = (version: string): ReturnType<typeof rawRequest> =>
    rawRequest(server().kubeConfig, { path: `/apis/${group}/${version}/namespaces/${namespace}/webpages` });

  const page = (name: string, spec: WebPageV1['spec']): WebPageV1 => ({
    apiVersion: `${group}/v1`,
    kind: 'WebPage',
    metadata: { name, namespace },
    spec: { url: 'https://example.com/docs', ...spec },
  });

  it('denies a bad object with the validating webhook’s message', async () => {
    const error = await eventually(
      async () => {
        const e = await client.create(V1, page(uniqueName('big'), { replicas: 9 })).then(
          () => undefined,
          (err: unknown) => err,
        );
        expect(e, 'the webhook configuration is not active yet').to.be.instanceOf(KubeApiError);
        // kube-apiserver answers 503 "apiserver is shutting down" for a moment while it swaps the
        // storage of the CRD whose conversion startLocalWebhooks just pointed at the webhook
        // server (the old storage refuses new requests): not the answer under test.
        expect((e as KubeApiError).status, (e as KubeApiError).message).to.not.equal(503);
        return e as KubeApiError;
      },
      { timeoutMs: 20_000, description: 'the validating webhook denying' },
    );
    expect(error.status).to.equal(403);
    expect(error.message).to.include(
      `admission webhook "validate.webpages.${group}" denied the request: spec.replicas must be at most 5, not 9`,
    );
    expect(await client.create(V1, page(uniqueName('small'), { replicas: 2 }))).to.have.nested.property('spec.replicas', 2);
  });

  it('defaults a field through the mutating webhook’s patch', async () => {
    const created = await eventually(
      async () => {
        const p = await client.create(V1, page(uniqueName('plain'), {}));
        if (p.spec?.title !== 'untitled') await client.delete(V1, ResourceID.fromResource(p));
        expect(p.spec?.title).to.equal('untitled');
        return p;
      },
      { timeoutMs: 20_000, description: 'the mutating webhook defaulting spec.title' },
    );
    const titled = await client.create(V1, page(uniqueName('titled'), { title: 'Docs' }));
    expect(titled.spec?.title).to.equal('Docs');
    expect(created.metadata?.namespace).to.equal(namespace);
  });

  it('converts on read and write: created as v1, read as v2, written as v2, read back as v1; listed and watched as v2', async () => {
    const name = uniqueName('conv');
    await client.create(V1, page(name, { url: 'https://example.com/docs', replicas: 1, title: 'Docs' }));
    const id = ResourceID.of(name, namespace);
    const asV2 = await eventually(async () => (await client.get<WebPageV2>(V2, id))!, { timeoutMs: 20_000, description: 'reading as v2' });
    expect(asV2.apiVersion).to.equal(`${group}/v2`);
    expect(asV2.spec).to.deep.equal({ host: 'example.com', path: '/docs', replicas: 1, title: 'Docs' });

    const watch = await WatchEventCollector.start(server().kubeConfig, `/apis/${group}/v2/namespaces/${namespace}/webpages`, {
      resourceVersion: asV2.metadata!.resourceVersion!,
    });
    try {
      await client.update(V2, { ...asV2, spec: { ...asV2.spec, path: '/guide' } });
      const asV1 = (await client.get<WebPageV1>(V1, id))!;
      expect(asV1.spec).to.deep.equal({ url: 'https://example.com/guide', replicas: 1, title: 'Docs' });

      const list = await listPages('v2');
      expect(list.status).to.equal(200);
      const listed = (JSON.parse(list.text) as { items: WebPageV2[] }).items.find((p) => p.metadata?.name === name)!;
      expect(listed.apiVersion).to.equal(`${group}/v2`);
      expect(listed.spec?.path).to.equal('/guide');

      const event = await watch.waitFor((e) => e.type === 'MODIFIED' && e.object.metadata?.name === name);
      expect(event.object.apiVersion).to.equal(`${group}/v2`);
      expect((event.object as WebPageV2).spec?.path).to.equal('/guide');
    } finally {
      await watch.stop();
    }
  });

  describe('with the webhook server down', () => {
    for (const failurePolicy of ['Fail', 'Ignore'] as const) {
      it(`failurePolicy ${failurePolicy} ${failurePolicy === 'Fail' ? 'refuses the write' : 'admits the write'}`, async () => {
        const kubeConfig = server().kubeConfig;
        const down = new Operator({ kubeConfig, webhooks: { port: 0, host: '127.0.0.1' } });
        const name = `down-${failurePolicy.toLowerCase()}.webpages.${group}`;
        // Denies while up, so the test can see the configuration active before stopping the server.
        down.webhooks!.validating<WebPageV1>({ kind: V1, name, failurePolicy, validate: () => ({ allowed: false, message: 'up' }) });
        const installed = await startLocalWebhooks(down.webhooks!, { kubeConfig, name: uniqueName('down') });
        try {
          const attempt = (): Promise<unknown> =>
            client.create(V1, page(uniqueName('while-down'), {})).then(
              () => 'admitted',
              (e: unknown) => e,
            );
          await eventually(async () => expect(String(await attempt())).to.include(`admission webhook "${name}" denied the request: up`), {
            timeoutMs: 20_000,
            description: 'the configuration active',
          });
          await down.webhooks!.close();
          const outcome = await attempt();
          if (failurePolicy === 'Fail') {
            expect(outcome).to.be.instanceOf(KubeApiError);
            expect((outcome as KubeApiError).status).to.equal(500);
            expect((outcome as KubeApiError).message).to.include(`failed calling webhook "${name}"`);
          } else {
            expect(outcome).to.equal('admitted');
          }
        } finally {
          await installed.dispose();
        }
      });
    }
  });
});
