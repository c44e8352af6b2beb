import { expect } from 'chai';
import fc from 'fast-check';
import { CoreV1Api } from '@kubernetes/client-node';
import { startEmbeddedApiServer, rawRequest, type EmbeddedApiServer } from '../../index.js';

describe('EmbeddedApiServer robustness', () => {
  let server: EmbeddedApiServer;

  before(async () => {
    server = await startEmbeddedApiServer();
  });
  after(async () => {
    await server.stop();
  });

  const path = fc.oneof(
    fc.constantFrom(
      '/api/v1/namespaces/default/configmaps',
      '/api/v1/namespaces/default/configmaps/fuzz',
      '/api/v1/namespaces/default/configmaps/fuzz/status',
      '/api/v1/namespaces/default/pods/fuzz/status',
      '/api/v1/namespaces/nowhere/secrets',
      '/api/v1/namespaces',
      '/api/v1/namespaces/default',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      '/apis/nope/v1/things',
      '/api/v2',
      '/api/v1/namespaces/default/configmaps?labelSelector=a%20in%20(',
      '/api/v1/namespaces/default/configmaps?limit=-1',
      '/api/v1/namespaces/default/configmaps?continue=%%%',
    ),
    fc.webPath().map((p) => `/api/v1${p}`),
    fc.webPath().map((p) => `/apis/apiextensions.k8s.io${p}`),
  );
  const body = fc.oneof(
    fc.constant(undefined),
    fc.string(),
    fc.json(),
    fc
      .record({
        apiVersion: fc.constantFrom('v1', 'v2', 'apiextensions.k8s.io/v1'),
        kind: fc.constantFrom('ConfigMap', 'Secret', 'Pod', 'Namespace', 'CustomResourceDefinition'),
        metadata: fc.oneof(fc.constant({ name: 'fuzz' }), fc.anything()),
        data: fc.anything(),
        spec: fc.anything(),
      })
      .map((o) => JSON.stringify(o)),
  );
  const contentType = fc.constantFrom(
    'application/json',
    'application/merge-patch+json',
    'application/json-patch+json',
    'application/strategic-merge-patch+json',
    'text/plain',
  );

  it('refuses a body over 3 MiB with 413', async () => {
    const r = await rawRequest(server.kubeConfig, {
      method: 'POST',
      path: '/api/v1/namespaces/default/configmaps',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'huge' }, data: { x: 'x'.repeat(4 * 1024 * 1024) } }),
    });
    expect(r.status).to.equal(413);
    expect(JSON.parse(r.text)).to.include({ kind: 'Status', reason: 'RequestEntityTooLarge' });
  });

  it('answers any request with a Status or an object, never a 5xx, and keeps serving', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'), path, body, contentType, async (method, p, b, ct) => {
        const r = await rawRequest(server.kubeConfig, {
          method,
          path: p,
          headers: { 'content-type': ct },
          ...(b === undefined || method === 'GET' ? {} : { body: b }),
        });
        expect(r.status, `${method} ${p} ${b ?? ''}: ${r.text}`).to.be.below(500);
        const parsed = JSON.parse(r.text) as { kind?: string; code?: number };
        if (r.status >= 400) expect(parsed).to.include({ kind: 'Status', code: r.status });
      }),
      { numRuns: 300 },
    );
    const core = server.kubeConfig.makeApiClient(CoreV1Api);
    const namespaces = await core.listNamespace();
    expect(namespaces.items.map((n) => n.metadata!.name)).to.include('default');
  });
});
