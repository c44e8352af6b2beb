// What the secure operator server adds to a scrape of /metrics: the same registry served plain
// (HTTP, no authentication) and secure (HTTPS, TokenReview + SubjectAccessReview), with the
// reviews cached as they are between a scraper's requests, and with no cache (two reviews a
// scrape: what a scrape costs once per TTL). Not a test: numbers only.
// Run: cd packages/informer && node --import tsx src/server/secure/secure-scrape.bench.ts [scrapes] [embedded|real]
// (`pnpm bench -- --scenarios scrapes` runs it on both servers). Scrapes are sequential over one
// keep-alive connection, as Prometheus scrapes a target; CPU is this process's per scrape (the
// operator server's and the scraper's, and on the embedded server the API server's too).
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { RbacAuthorizationV1Api } from '@kubernetes/client-node';
import { createNamespace, createServiceAccount, startEmbeddedApiServer } from '@kindex/testing';
import { startRealApiServer } from '@kindex/testing/internal';
import { HealthChecks, KubeClient, OperatorMetrics, OperatorServer, type OperatorServerOptions } from '../../index.js';
import { measureSequential, type LatencyRow } from '../../internal/sequential-latency.bench.js';

const scrapes = Number(process.argv[2] ?? 2000);
const flavor = process.argv[3] ?? 'real';
if (flavor !== 'embedded' && flavor !== 'real') throw new Error(`the server is 'embedded' or 'real', not '${flavor}'`);

/** Sequential scrapes after a warm-up; a scrape answered anything but 200 fails the run. */
function measure(name: string, scrape: () => Promise<number>): Promise<LatencyRow> {
  return measureSequential(name, scrapes, 100, async () => {
    const status = await scrape();
    if (status !== 200) throw new Error(`${name}: scrape answered ${status}`);
  });
}

function scraper(port: number, secure: boolean, token: string | undefined): () => Promise<number> {
  const agent = secure ? new HttpsAgent({ keepAlive: true, maxSockets: 1 }) : new HttpAgent({ keepAlive: true, maxSockets: 1 });
  const request = secure ? httpsRequest : httpRequest;
  return () =>
    new Promise((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: '/metrics',
          agent,
          rejectUnauthorized: false,
          headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end();
    });
}

const apiServer = flavor === 'real' ? await startRealApiServer() : await startEmbeddedApiServer({ tls: true, authorization: 'RBAC' });
const servers: OperatorServer[] = [];
try {
  const kubeConfig = apiServer.kubeConfig;
  const namespace = await createNamespace(kubeConfig);
  const sa = await createServiceAccount(kubeConfig, namespace);
  const rbac = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  const name = `scrape-bench-${namespace}`;
  await rbac.createClusterRole({ body: { metadata: { name }, rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }] } });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ kind: 'ServiceAccount', name: sa.name, namespace }],
    },
  });
  const token = sa.kubeConfig.getCurrentUser()!.token!;
  // One registry for every row: the body scraped is the same.
  const metrics = new OperatorMetrics();
  const start = async (options: Partial<OperatorServerOptions>): Promise<OperatorServer> => {
    const server = new OperatorServer(
      { port: 0, host: '127.0.0.1', ...options },
      { metrics, health: new HealthChecks(), controllers: () => [], client: new KubeClient(kubeConfig) },
    );
    await server.listen();
    servers.push(server);
    return server;
  };
  const plain = await start({});
  const cached = await start({ secure: true, healthProbePort: 0 });
  const uncached = await start({
    secure: { reviewCacheTtl: { authenticatedMs: 0, rejectedMs: 0, allowedMs: 0, deniedMs: 0 } },
    healthProbePort: 0,
  });
  // The binding reaches the real server's authorizer through an informer: wait for a 200.
  const first = scraper(uncached.metricsPort, true, token);
  for (let i = 0; (await first()) !== 200; i++) {
    if (i > 100) throw new Error('the ServiceAccount never got get on /metrics');
    await new Promise((r) => setTimeout(r, 100));
  }
  const rows = [
    await measure('plain HTTP, no authentication', scraper(plain.metricsPort, false, undefined)),
    await measure('HTTPS, TokenReview + SubjectAccessReview cached', scraper(cached.metricsPort, true, token)),
    await measure('HTTPS, both reviews sent each scrape (no cache)', scraper(uncached.metricsPort, true, token)),
  ];
  const who =
    flavor === 'real'
      ? "this process's (operator server and scraper)"
      : "this process's (operator server, scraper and embedded API server)";
  console.log(
    `/metrics scrapes through the ${flavor} API server's reviews, ${scrapes} sequential scrapes over one keep-alive connection each, ${(await metrics.scrape()).length} bytes a scrape, node ${process.version}`,
  );
  console.log(`| server | p50 ms | p99 ms | p50 added to plain ms | CPU ms per scrape, ${who} |\n| --- | --- | --- | --- | --- |`);
  for (const r of rows) {
    console.log(`| ${r.name} | ${r.p50.toFixed(3)} | ${r.p99.toFixed(3)} | ${(r.p50 - rows[0]!.p50).toFixed(3)} | ${r.cpuMs.toFixed(3)} |`);
  }
  await rbac.deleteClusterRoleBinding({ name });
  await rbac.deleteClusterRole({ name });
} finally {
  for (const s of servers) await s.close();
  await apiServer.stop();
}
