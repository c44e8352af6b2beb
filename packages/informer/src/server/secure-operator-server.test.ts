import { expect } from 'chai';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNamespace, eventually, useTestApiServer } from '@kindex/testing';
import {
  generateWebhookCertificates,
  HealthChecks,
  KubeClient,
  metricsReaderClusterRole,
  Operator,
  OperatorMetrics,
  OperatorServer,
  type AccessReviewClient,
  type ReviewCacheTtl,
  type WebhookCertificates,
} from '../index.js';
import { fingerprintOf, grantNonResourceUrls, revoke, serviceAccountToken, tlsGet } from '../testing-fixtures/secure-server.js';

/** Writes a pair as tls.crt and tls.key the way the kubelet updates a mounted Secret: new files renamed into place. */
function writePair(dir: string, pair: WebhookCertificates): void {
  writeFileSync(join(dir, 'tls.crt.new'), pair.cert);
  writeFileSync(join(dir, 'tls.key.new'), pair.key);
  renameSync(join(dir, 'tls.crt.new'), join(dir, 'tls.crt'));
  renameSync(join(dir, 'tls.key.new'), join(dir, 'tls.key'));
}

describe('OperatorServer with secure serving', function () {
  this.timeout(90_000);
  const server = useTestApiServer({ authorization: 'RBAC' });
  let dir: string;
  let pair: WebhookCertificates;
  const cleanup: (() => Promise<unknown>)[] = [];

  before(async () => {
    pair = await generateWebhookCertificates({ hosts: ['127.0.0.1'] });
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kindex-secure-'));
    writePair(dir, pair);
  });
  afterEach(async () => {
    for (const undo of cleanup.splice(0).reverse()) await undo();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Counts the reviews the server sends, to see the cache at work. */
  function countingClient(): { client: AccessReviewClient; kinds: string[] } {
    const inner = new KubeClient(server().kubeConfig);
    const kinds: string[] = [];
    return {
      kinds,
      client: {
        create: (type, object) => {
          kinds.push(type.kind);
          return inner.create(type, object);
        },
      },
    };
  }

  async function startServer(client: AccessReviewClient, reviewCacheTtl?: ReviewCacheTtl): Promise<OperatorServer> {
    const s = new OperatorServer(
      {
        port: 0,
        host: '127.0.0.1',
        debug: true,
        healthProbePort: 0,
        secure: { certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key'), ...(reviewCacheTtl ? { reviewCacheTtl } : {}) },
      },
      { metrics: new OperatorMetrics(), health: new HealthChecks(), controllers: () => [], client },
    );
    await s.listen();
    cleanup.push(() => s.close());
    return s;
  }

  it('serves /metrics to a ServiceAccount bound to the metrics-reader ClusterRole, reviewing its token and access once', async () => {
    const kubeConfig = server().kubeConfig;
    const namespace = await createNamespace(kubeConfig);
    const reader = await serviceAccountToken(kubeConfig, namespace);
    const role = metricsReaderClusterRole(`kindex-${namespace}`);
    const name = await grantNonResourceUrls(kubeConfig, reader, namespace, ['/metrics'], role);
    cleanup.push(() => revoke(kubeConfig, name));
    const { client, kinds } = countingClient();
    const s = await startServer(client);
    expect(s.secure).to.equal(true);
    const scrape = await tlsGet(s.metricsPort, '/metrics', { token: reader.token, ca: pair.caCert });
    expect(scrape.status, scrape.body).to.equal(200);
    expect(scrape.body).to.include('# TYPE');
    expect(kinds).to.deep.equal(['TokenReview', 'SubjectAccessReview']);
    // Cached: the next scrapes send no review.
    for (let i = 0; i < 3; i++)
      expect((await tlsGet(s.metricsPort, '/metrics', { token: reader.token, ca: pair.caCert })).status).to.equal(200);
    expect(kinds).to.have.length(2);
    // The metrics-reader role does not open /debug/controllers, which needs its own rule.
    const debug = await tlsGet(s.metricsPort, '/debug/controllers', { token: reader.token, ca: pair.caCert });
    expect(debug.status).to.equal(403);
    expect(debug.body).to.equal(
      `Forbidden: user ${reader.user} may not get /debug/controllers (grant it with a ClusterRole rule { nonResourceURLs: ['/debug/controllers'], verbs: ['get'] })\n`,
    );
  });

  it('answers 403 to a ServiceAccount without the role, 401 without a token or with a forged one', async () => {
    const kubeConfig = server().kubeConfig;
    const namespace = await createNamespace(kubeConfig);
    const stranger = await serviceAccountToken(kubeConfig, namespace);
    const { client } = countingClient();
    const s = await startServer(client);
    const denied = await tlsGet(s.metricsPort, '/metrics', { token: stranger.token, ca: pair.caCert });
    expect(denied.status).to.equal(403);
    expect(denied.body).to.include(`Forbidden: user ${stranger.user} may not get /metrics`);
    const anonymous = await tlsGet(s.metricsPort, '/metrics', { ca: pair.caCert });
    expect(anonymous.status).to.equal(401);
    expect(anonymous.body).to.equal('Unauthorized: send a bearer token (Authorization: Bearer <ServiceAccount token>)\n');
    const forged = `${stranger.token.slice(0, -6)}${stranger.token.endsWith('AAAAAA') ? 'BBBBBB' : 'AAAAAA'}`;
    const refused = await tlsGet(s.metricsPort, '/metrics', { token: forged, ca: pair.caCert });
    expect(refused.status).to.equal(401);
    expect(refused.body).to.equal('Unauthorized: the token was not accepted by the API server\n');
    // Every path and method of the secure port is guarded, unknown ones included.
    expect((await tlsGet(s.metricsPort, '/healthz', { ca: pair.caCert })).status).to.equal(401);
    expect((await tlsGet(s.metricsPort, '/metrics', { ca: pair.caCert, method: 'POST' })).status).to.equal(401);
  });

  it('keeps a denial for deniedMs: a binding made meanwhile lets the scraper in after it, one review per expiry', async () => {
    const kubeConfig = server().kubeConfig;
    const namespace = await createNamespace(kubeConfig);
    const late = await serviceAccountToken(kubeConfig, namespace);
    const { client, kinds } = countingClient();
    const s = await startServer(client, { deniedMs: 1_500 });
    const scrape = () => tlsGet(s.metricsPort, '/metrics', { token: late.token, ca: pair.caCert });
    expect((await scrape()).status).to.equal(403);
    const name = await grantNonResourceUrls(kubeConfig, late, namespace, ['/metrics']);
    cleanup.push(() => revoke(kubeConfig, name));
    let scrapes = 1;
    await eventually(
      async () => {
        scrapes++;
        expect((await scrape()).status).to.equal(200);
      },
      { timeoutMs: 20_000, intervalMs: 100 },
    );
    const reviews = kinds.filter((k) => k === 'SubjectAccessReview').length;
    expect(kinds.filter((k) => k === 'TokenReview')).to.have.length(1);
    expect(reviews, `${reviews} SubjectAccessReviews for ${scrapes} scrapes`).to.be.below(scrapes);
  });

  it('serves /debug/controllers to a ServiceAccount granted that non-resource URL', async () => {
    const kubeConfig = server().kubeConfig;
    const namespace = await createNamespace(kubeConfig);
    const debugger_ = await serviceAccountToken(kubeConfig, namespace);
    const name = await grantNonResourceUrls(kubeConfig, debugger_, namespace, ['/debug/controllers']);
    cleanup.push(() => revoke(kubeConfig, name));
    const s = await startServer(countingClient().client);
    const debug = await tlsGet(s.metricsPort, '/debug/controllers', { token: debugger_.token, ca: pair.caCert });
    expect(debug.status, debug.body).to.equal(200);
    expect(JSON.parse(debug.body)).to.deep.equal({ controllers: [] });
    expect((await tlsGet(s.metricsPort, '/metrics', { token: debugger_.token, ca: pair.caCert })).status).to.equal(403);
  });

  it('answers probes without a token on the plain health probe port, and nothing else there', async () => {
    const s = await startServer(countingClient().client);
    expect(s.healthProbePort).to.not.equal(s.metricsPort);
    const healthz = await fetch(`http://127.0.0.1:${s.healthProbePort}/healthz`);
    expect([healthz.status, await healthz.text()]).to.deep.equal([200, 'ok']);
    const readyz = await fetch(`http://127.0.0.1:${s.healthProbePort}/readyz?verbose`);
    expect(readyz.status).to.equal(200);
    const metrics = await fetch(`http://127.0.0.1:${s.healthProbePort}/metrics`);
    expect(metrics.status).to.equal(404);
    expect(await metrics.text()).to.equal(`not found: /metrics (serving /healthz, /readyz (metrics on port ${s.metricsPort}))\n`);
  });

  it('serves a certificate replaced on disk to the next connection', async () => {
    const s = await startServer(countingClient().client);
    expect((await tlsGet(s.metricsPort, '/healthz')).fingerprint).to.equal(fingerprintOf(pair.cert));
    const rotated = await generateWebhookCertificates({ hosts: ['127.0.0.1'] });
    writePair(dir, rotated);
    await eventually(async () => expect((await tlsGet(s.metricsPort, '/healthz')).fingerprint).to.equal(fingerprintOf(rotated.cert)), {
      timeoutMs: 15_000,
    });
    // Verified against the new CA: the chain is the rotated one, not just its leaf.
    expect((await tlsGet(s.metricsPort, '/metrics', { ca: rotated.caCert })).status).to.equal(401);
    // A half-written rotation (a key of another pair) is refused and the current pair kept.
    writeFileSync(join(dir, 'tls.key'), pair.key);
    await new Promise((r) => setTimeout(r, 500));
    expect((await tlsGet(s.metricsPort, '/healthz')).fingerprint).to.equal(fingerprintOf(rotated.cert));
  });

  it('as an Operator option: secure server wired to the operator client, and rbacManifest() grants the reviews', async () => {
    const kubeConfig = server().kubeConfig;
    const namespace = await createNamespace(kubeConfig);
    const reader = await serviceAccountToken(kubeConfig, namespace);
    const name = await grantNonResourceUrls(kubeConfig, reader, namespace, ['/metrics']);
    cleanup.push(() => revoke(kubeConfig, name));
    const operator = new Operator({ kubeConfig, server: { port: 0, host: '127.0.0.1', secure: true, healthProbePort: 0 } });
    cleanup.push(() => operator.stop());
    await operator.start();
    const s = operator.server!;
    // Self-signed: no CA to verify it with.
    expect((await tlsGet(s.metricsPort, '/metrics', { token: reader.token })).status).to.equal(200);
    expect((await tlsGet(s.metricsPort, '/metrics')).status).to.equal(401);
    expect((await fetch(`http://127.0.0.1:${s.healthProbePort}/healthz`)).status).to.equal(200);
    const { clusterRules } = await operator.rbacManifest();
    expect(clusterRules).to.deep.include.members([
      { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
      { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
    ]);
  });

  it('a replica that does not lead answers scrapes too: its reviews go out without the leader fence', async () => {
    const kubeConfig = server().kubeConfig;
    const namespace = await createNamespace(kubeConfig);
    const reader = await serviceAccountToken(kubeConfig, namespace);
    const name = await grantNonResourceUrls(kubeConfig, reader, namespace, ['/metrics']);
    cleanup.push(() => revoke(kubeConfig, name));
    const replica = async (identity: string): Promise<Operator> => {
      const operator = new Operator({
        kubeConfig,
        leaderElection: {
          leaseName: 'metrics',
          leaseNamespace: namespace,
          identity,
          leaseDurationMs: 3_000,
          renewDeadlineMs: 2_000,
          retryPeriodMs: 400,
        },
        server: { port: 0, host: '127.0.0.1', secure: true, healthProbePort: 0 },
      });
      cleanup.push(() => operator.stop());
      await operator.start();
      return operator;
    };
    expect((await replica('leader')).isLeader).to.equal(true);
    const follower = await replica('follower');
    expect(follower.isLeader).to.equal(false);
    expect((await tlsGet(follower.server!.metricsPort, '/metrics', { token: reader.token })).status).to.equal(200);
  });

  it('a plain server needs no review permissions and keeps its probes on the one port', async () => {
    const operator = new Operator({ kubeConfig: server().kubeConfig, server: { port: 0, host: '127.0.0.1' } });
    expect(operator.server!.secure).to.equal(false);
    expect(operator.server!.healthProbePort).to.equal(operator.server!.metricsPort);
    const { clusterRules } = await operator.rbacManifest();
    expect(JSON.stringify(clusterRules)).to.not.include('tokenreviews');
  });
});
