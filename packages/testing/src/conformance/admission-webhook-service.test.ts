import { expect } from 'chai';
import { AdmissionregistrationV1Api, DiscoveryV1Api, type V1ValidatingWebhook } from '@kubernetes/client-node';
import { catchApiStatus } from '../helpers/api-status.js';
import { eventually } from '../helpers/eventually.js';
import { skipWithReason } from '../helpers/require-fault.js';
import { uniqueName } from '../helpers/unique-name.js';
import { startTestWebhookServer, type TestWebhookServer } from './admission-webhook-server.js';
import { createConfigMap, useConformanceFixture } from './conformance-fixture.js';

/**
 * Admission webhooks given by `clientConfig.service`. Test servers listen on 127.0.0.1 only, and no
 * EndpointSlice may hold a loopback address, so the webhook is reached through a Service of type
 * ExternalName (`externalName: localhost`): kube-apiserver, as kindex's real test server runs it
 * (without --enable-aggregator-routing), calls `https://<externalName>:<service.port>` and checks the
 * certificate for `<name>.<namespace>.svc` (k8s.io/apiserver pkg/util/proxy ResolveCluster).
 */
describe('admission webhooks by service reference', function () {
  this.timeout(60_000);
  const f = useConformanceFixture();
  let webhooks: TestWebhookServer | undefined;
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c().catch(() => undefined);
    await webhooks?.close();
    webhooks = undefined;
  });

  const install = async (hook: V1ValidatingWebhook): Promise<void> => {
    const admission = f().kubeConfig.makeApiClient(AdmissionregistrationV1Api);
    const name = uniqueName('by-service');
    await admission.createValidatingWebhookConfiguration({ body: { metadata: { name }, webhooks: [hook] } });
    cleanups.push(() => admission.deleteValidatingWebhookConfiguration({ name }));
  };
  const hookFor = (name: string, service: { name: string; path: string; port?: number }, caBundle?: string): V1ValidatingWebhook => ({
    name: `${name}.${f().namespace}.kindex.test`,
    clientConfig: { service: { namespace: f().namespace, ...service }, ...(caBundle === undefined ? {} : { caBundle }) },
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': f().namespace } },
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
  });

  it('calls the webhook through an ExternalName Service at https://<externalName>:<service.port>, verified for <name>.<namespace>.svc', async () => {
    const { namespace, core } = f();
    const service = uniqueName('hooks');
    webhooks = await startTestWebhookServer({ host: '127.0.0.1', dnsNames: [`${service}.${namespace}.svc`] });
    webhooks.answer('/validate', (r) =>
      r.name?.startsWith('denied') === true ? { allowed: false, status: { code: 403, message: 'not by this name' } } : { allowed: true },
    );
    // No ports on the Service: the port dialled is the webhook's service.port, not one of the Service's.
    await core.createNamespacedService({
      namespace,
      body: { metadata: { name: service }, spec: { type: 'ExternalName', externalName: 'localhost' } },
    });
    const port = Number(new URL(webhooks.url).port);
    await install(hookFor('by-service', { name: service, path: '/validate', port }, webhooks.caBundle));

    const status = await eventually(
      async () => {
        const s = await catchApiStatus(createConfigMap(core, namespace, { name: uniqueName('denied') }));
        expect(s.code).to.equal(403);
        return s;
      },
      { timeoutMs: 20_000, description: 'the webhook called through the Service' },
    );
    expect(status.message).to.equal(`admission webhook "by-service.${namespace}.kindex.test" denied the request: not by this name`);
    const allowed = uniqueName('allowed');
    await createConfigMap(core, namespace, { name: allowed });
    expect((webhooks.received.get('/validate') ?? []).map((r) => r.name)).to.include(allowed);
  });

  it('checks the certificate of an ExternalName Service’s webhook for <name>.<namespace>.svc, not the external name', async () => {
    const { namespace, core } = f();
    const service = uniqueName('hooks');
    // Valid for localhost only (the test server's default name), as the external name would need.
    webhooks = await startTestWebhookServer({ host: '127.0.0.1' });
    webhooks.answer('/validate', () => ({ allowed: true }));
    await core.createNamespacedService({
      namespace,
      body: { metadata: { name: service }, spec: { type: 'ExternalName', externalName: 'localhost' } },
    });
    const port = Number(new URL(webhooks.url).port);
    await install(hookFor('wrong-name', { name: service, path: '/validate', port }, webhooks.caBundle));
    const status = await eventually(
      async () => {
        const s = await catchApiStatus(createConfigMap(core, namespace));
        expect(s.code).to.equal(500);
        return s;
      },
      { timeoutMs: 20_000, description: 'the configuration becoming active' },
    );
    expect(status.message, status.message).to.include(
      `failed calling webhook "wrong-name.${namespace}.kindex.test": failed to call webhook: Post "https://${service}.${namespace}.svc:${port}/validate?timeout=10s": tls: failed to verify certificate: x509: certificate is valid for localhost, not ${service}.${namespace}.svc`,
    );
    expect(webhooks.received.get('/validate') ?? []).to.deep.equal([]);
  });

  it('calls the webhook at an endpoint of the Service’s EndpointSlices', function () {
    skipWithReason(
      this,
      'no loopback address may be in an EndpointSlice and test servers listen on 127.0.0.1 only (the real test server runs without --enable-aggregator-routing, so it does not read EndpointSlices for webhooks either)',
    );
  });

  it('fails the request naming the Service when it does not exist', async () => {
    const { namespace, core } = f();
    await install(hookFor('missing', { name: 'missing', path: '/validate' }));
    const status = await eventually(
      async () => {
        const s = await catchApiStatus(createConfigMap(core, namespace));
        expect(s.code).to.equal(500);
        return s;
      },
      { timeoutMs: 20_000, description: 'the configuration becoming active' },
    );
    expect(status.message, status.message).to.include(
      `failed calling webhook "missing.${namespace}.kindex.test": failed to call webhook: Post "https://missing.${namespace}.svc:443/validate?timeout=10s": service "missing" not found`,
    );
  });

  it('refuses an EndpointSlice with a loopback address (422)', async () => {
    const { namespace, kubeConfig } = f();
    const status = await catchApiStatus(
      kubeConfig.makeApiClient(DiscoveryV1Api).createNamespacedEndpointSlice({
        namespace,
        body: {
          metadata: { name: uniqueName('loopback') },
          addressType: 'IPv4',
          ports: [{ port: 9443 }],
          endpoints: [{ addresses: ['127.0.0.1'] }],
        },
      }),
    );
    expect(status).to.include({ code: 422, reason: 'Invalid' });
    expect(status.details?.causes).to.deep.include({
      reason: 'FieldValueInvalid',
      message: 'Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
      field: 'endpoints[0].addresses[0]',
    });
  });
});
