import { expect } from 'chai';
import { AdmissionregistrationV1Api, type V1ValidatingWebhook } from '@kubernetes/client-node';
import { catchApiStatus } from '../helpers/api-status.js';
import { eventually } from '../helpers/eventually.js';
import { rawRequest } from '../helpers/raw-request.js';
import { uniqueName } from '../helpers/unique-name.js';
import { useAdmissionWebhooks } from './admission-webhook-fixture.js';
import type { ReceivedConversion } from './admission-webhook-server.js';
import { createConfigMap, useConformanceFixture } from './conformance-fixture.js';

/** `matchConditions` of admission webhooks: CEL over object, oldObject and request. */
describe('admission webhook matchConditions', function () {
  this.timeout(60_000);
  const f = useConformanceFixture();
  const { hook, install, reviews, untilCalled, server, cleanups } = useAdmissionWebhooks(f);
  const denyAll = (path: string): void =>
    server().answer(path, (r) => ({ allowed: r.name?.startsWith('probe') === true, status: { code: 403, message: 'matched' } }));

  it('calls the webhook only when every condition holds', async () => {
    const path = `/conditions/${uniqueName('p')}`;
    denyAll(path);
    const matchConditions = [
      { name: 'guarded-or-probe', expression: "object.metadata.name.startsWith('guarded') || object.metadata.name.startsWith('probe')" },
      { name: 'by-a-user', expression: "request.userInfo.username != ''" },
    ];
    await install('validating', [hook('conditions', path, { matchConditions })]);
    await untilCalled(path);
    const status = await catchApiStatus(createConfigMap(f().core, f().namespace, { name: uniqueName('guarded') }));
    expect(status).to.include({ code: 403 });
    expect(status.message).to.include('denied the request: matched');
    const free = uniqueName('free');
    await createConfigMap(f().core, f().namespace, { name: free });
    expect(reviews(path, free)).to.have.length(0);
  });

  it('fails the request with 403 when a condition cannot be evaluated under failurePolicy Fail, and skips the webhook under Ignore', async () => {
    const path = `/broken/${uniqueName('p')}`;
    denyAll(path);
    // The fixture's ConfigMaps have data without a `mode` key: the condition errors on them.
    const expression = "object.data.mode == 'strict'";
    const matchConditions = [{ name: 'strict-mode', expression }];
    await install('validating', [hook('broken', path, { matchConditions })]);
    const name = uniqueName('cm');
    const status = await eventually(
      async () => {
        const s = await catchApiStatus(createConfigMap(f().core, f().namespace, { name }));
        expect(s.code).to.equal(403);
        return s;
      },
      { timeoutMs: 20_000, description: 'the configuration becoming active' },
    );
    expect(status).to.include({ reason: 'Forbidden' });
    expect(status.message, status.message).to.include(
      `configmaps "${name}" is forbidden: expression '${expression}' resulted in error: no such key: mode`,
    );
    await install('validating', [hook('ignored', path, { matchConditions, failurePolicy: 'Ignore' })]);
    // The first configuration still fails the request: remove it, then the Ignore one skips.
    const admission = f().kubeConfig.makeApiClient(AdmissionregistrationV1Api);
    const first = (await admission.listValidatingWebhookConfiguration()).items.find(
      (c) => c.webhooks?.[0]?.name?.startsWith('broken.') && c.webhooks[0].name.endsWith(`${f().namespace}.kindex.test`),
    );
    await admission.deleteValidatingWebhookConfiguration({ name: first!.metadata!.name! });
    await eventually(() => createConfigMap(f().core, f().namespace), { timeoutMs: 20_000, description: 'only the Ignore webhook left' });
    await createConfigMap(f().core, f().namespace, { data: { mode: 'lax' } });
  });

  it('refuses a configuration whose condition does not compile, naming the field', async () => {
    const bad = hook('uncompiled', '/uncompiled', { matchConditions: [{ name: 'bad', expression: 'object.metadata.name ==' }] });
    const admission = f().kubeConfig.makeApiClient(AdmissionregistrationV1Api);
    const status = await catchApiStatus(
      admission.createValidatingWebhookConfiguration({
        body: { metadata: { name: uniqueName('bad') }, webhooks: [bad as V1ValidatingWebhook] },
      }),
    );
    expect(status).to.include({ code: 422, reason: 'Invalid' });
    const cause = status.details?.causes?.find((c) => c.field === 'webhooks[0].matchConditions[0].expression');
    expect(cause?.message).to.include('compilation failed');
  });

  it('evaluates the conditions of a webhook called in another version on the object converted to it (matchPolicy Equivalent)', async () => {
    // Pages: v1 (stored) has spec.url, v2 has spec.host; the conversion webhook maps one to the other.
    const group = `${uniqueName('cond')}.kindex.test`;
    const convertPath = `/convert/${group}`;
    server().answer<ReceivedConversion>(convertPath, (r) => ({
      convertedObjects: r.objects.map((o) => {
        const spec = (o['spec'] ?? {}) as { url?: string; host?: string };
        const converted = r.desiredAPIVersion.endsWith('/v2')
          ? { host: new URL(spec.url ?? 'https://none').host }
          : { url: `https://${spec.host}/` };
        return { ...o, apiVersion: r.desiredAPIVersion, spec: converted };
      }),
      result: { status: 'Success' },
    }));
    const crd = `pages.${group}`;
    const schema = {
      openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
    };
    // Raw JSON: the typed client would drop x-kubernetes-preserve-unknown-fields.
    const created = await rawRequest(f().kubeConfig, {
      method: 'POST',
      path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: crd },
        spec: {
          group,
          scope: 'Namespaced',
          names: { plural: 'pages', singular: 'page', kind: 'Page', listKind: 'PageList' },
          versions: ['v1', 'v2'].map((name) => ({ name, served: true, storage: name === 'v1', schema })),
          conversion: {
            strategy: 'Webhook',
            webhook: {
              conversionReviewVersions: ['v1'],
              clientConfig: { url: `${server().url}${convertPath}`, caBundle: server().caBundle },
            },
          },
        },
      }),
    });
    expect(created.status, created.text).to.equal(201);
    cleanups.push(() => f().apiextensions.deleteCustomResourceDefinition({ name: crd }));
    const path = `/converted/${uniqueName('p')}`;
    server().answer(path, (r) => ({ allowed: r.name?.startsWith('probe') === true, status: { code: 403, message: 'guarded host' } }));
    // The webhook is for v2 and the writes are v1 (the stored version): only a converted object has spec.host.
    const rules = [{ operations: ['CREATE'], apiGroups: [group], apiVersions: ['v2'], resources: ['pages'] }];
    const matchConditions = [{ name: 'guarded-host', expression: "object.spec.host == 'guarded.example'" }];
    await install('validating', [hook('converted', path, { rules, matchConditions, matchPolicy: 'Equivalent' })]);
    const createV1 = (name: string, host: string) =>
      f().custom.createNamespacedCustomObject({
        group,
        version: 'v1',
        plural: 'pages',
        namespace: f().namespace,
        body: { apiVersion: `${group}/v1`, kind: 'Page', metadata: { name }, spec: { url: `https://${host}/` } },
      });
    await eventually(
      async () => {
        const name = uniqueName('probe');
        await createV1(name, 'guarded.example').catch(() => undefined);
        expect(reviews(path, name), 'the webhook is not called yet').to.have.length.above(0);
      },
      { timeoutMs: 30_000, description: 'the CRD served and the webhook active' },
    );

    const guarded = uniqueName('page');
    const status = await catchApiStatus(createV1(guarded, 'guarded.example'));
    expect(status).to.include({ code: 403 });
    expect(status.message).to.include('denied the request: guarded host');
    expect(reviews(path, guarded)[0]?.object?.['spec']).to.deep.equal({ host: 'guarded.example' });
    const other = uniqueName('page');
    await createV1(other, 'other.example');
    expect(reviews(path, other)).to.have.length(0);
  });
});
