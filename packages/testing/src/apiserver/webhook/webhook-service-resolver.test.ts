import { expect } from 'chai';
import { AdmissionregistrationV1Api, CoreV1Api, type V1ServiceSpec, type V1ValidatingWebhook } from '@kubernetes/client-node';
import { catchApiStatus } from '../../helpers/api-status.js';
import { startTestWebhookServer, type TestWebhookServer } from '../../conformance/admission-webhook-server.js';
import { startEmbeddedApiServer, type EmbeddedApiServer, type WebhookServiceAddresses } from '../../index.js';

// What only the embedded server has: the webhookServices option, which maps a webhook's Service to
// a local address (an EndpointSlice may not hold 127.0.0.1). Resolution through ExternalName
// Services, shared with kube-apiserver, is in conformance/admission-webhook-service.test.ts.
describe('EmbeddedApiServerOptions.webhookServices', () => {
  let webhooks: TestWebhookServer;
  before(async () => {
    webhooks = await startTestWebhookServer({ dnsNames: ['hooks.system.svc'] });
    webhooks.answer('/validate', (r) =>
      r.name === 'refused' ? { allowed: false, status: { code: 403, message: 'refused by the mapped webhook' } } : { allowed: true },
    );
  });
  after(() => webhooks.close());

  const hook: V1ValidatingWebhook = {
    name: 'mapped.kindex.test',
    clientConfig: { service: { namespace: 'system', name: 'hooks', path: '/validate' } },
    rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
  };

  // Creates ConfigMaps "allowed" and "refused"; the messages of their refusals ('' when created).
  async function refusals(addresses: WebhookServiceAddresses, serviceSpec?: V1ServiceSpec): Promise<string[]> {
    const server: EmbeddedApiServer = await startEmbeddedApiServer({ webhookServices: addresses });
    try {
      if (serviceSpec !== undefined) {
        const core = server.kubeConfig.makeApiClient(CoreV1Api);
        await core.createNamespace({ body: { metadata: { name: 'system' } } });
        await core.createNamespacedService({ namespace: 'system', body: { metadata: { name: 'hooks' }, spec: serviceSpec } });
      }
      const clientConfig = { ...hook.clientConfig, caBundle: webhooks.caBundle };
      await server.kubeConfig
        .makeApiClient(AdmissionregistrationV1Api)
        .createValidatingWebhookConfiguration({ body: { metadata: { name: 'mapped' }, webhooks: [{ ...hook, clientConfig }] } });
      const core = server.kubeConfig.makeApiClient(CoreV1Api);
      const messages: string[] = [];
      for (const name of ['allowed', 'refused']) {
        const created = core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name } } });
        messages.push(
          await created.then(
            () => '',
            async () => (await catchApiStatus(created)).message ?? '',
          ),
        );
      }
      return messages;
    } finally {
      await server.stop();
    }
  }

  it('calls a webhook by service at the address mapped to "<namespace>/<name>:<port>"', async () => {
    expect(await refusals({ 'system/hooks:443': webhooks.url })).to.deep.equal([
      '',
      'admission webhook "mapped.kindex.test" denied the request: refused by the mapped webhook',
    ]);
  });

  it('asks a function for the address, with the Service’s namespace, name and port', async () => {
    const asked: unknown[] = [];
    const [allowed, refused] = await refusals((service) => {
      asked.push(service);
      return service.name === 'hooks' ? webhooks.url : undefined;
    });
    expect(allowed).to.equal('');
    expect(refused).to.include('refused by the mapped webhook');
    expect(asked[0]).to.deep.equal({ namespace: 'system', name: 'hooks', port: 443 });
  });

  it('says how to map a Service when it resolves to nothing', async () => {
    const [message] = await refusals({});
    expect(message).to.equal(
      `Internal error occurred: failed calling webhook "mapped.kindex.test": failed to call webhook: Post "https://hooks.system.svc:443/validate?timeout=10s": service "hooks" not found (the embedded API server calls a Service of type ExternalName at <externalName>:<port> (externalName: localhost reaches 127.0.0.1), finds other Services' endpoints in their EndpointSlices (labelled kubernetes.io/service-name, with a non-loopback address), or takes them from the webhookServices option, for example { 'system/hooks:443': 'https://127.0.0.1:9443' })`,
    );
  });

  it('names the missing field of an ExternalName Service without externalName (which kube-apiserver would not store)', async () => {
    const [message] = await refusals({}, { type: 'ExternalName' });
    expect(message).to.include(
      'Post "https://hooks.system.svc:443/validate?timeout=10s": service "hooks" of type ExternalName has no spec.externalName: set it to a DNS name such as localhost',
    );
  });

  it('prefers the mapped address to the stored Service', async () => {
    const [, refused] = await refusals({ 'system/hooks:443': webhooks.url }, { type: 'ExternalName', externalName: 'localhost' });
    expect(refused).to.include('refused by the mapped webhook');
  });
});
