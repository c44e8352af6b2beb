// Admission round trip through an API server: what a validating webhook adds to a write.
// Not a test: numbers only (timing claims stay out of unit tests).
// Run: cd packages/informer && node --import tsx src/webhook/webhook-roundtrip.bench.ts [requests] [concurrency] [embedded|real]
// (`pnpm bench -- --scenarios webhooks` runs it on both servers). The embedded server is started
// with TLS, as the real one serves; the real one needs scripts/real-apiserver/build.sh. Each write
// is a server-side dry run (`?dryRun=All`), so storage is out of the measure and the API server
// still calls the webhook (it declares sideEffects: None). Three rows: the dry-run create without
// any webhook (the baseline), the same with one validating webhook, and the webhook server alone
// (an HTTPS POST of an AdmissionReview straight to it, as the API server sends).
import { Agent, request, type RequestOptions } from 'node:https';
import { createNamespace, startEmbeddedApiServer, uniqueName, eventually } from '@kindex/testing';
import { startRealApiServer } from '@kindex/testing/internal';
import { KubeClient, Operator, resourceKind, startLocalWebhooks } from '../index.js';
import { createWebPageCrd } from './webhook.fixture.test.js';

const requests = Number(process.argv[2] ?? 2000);
const concurrency = Number(process.argv[3] ?? 16);
const flavor = process.argv[4] ?? 'real';
if (flavor !== 'embedded' && flavor !== 'real') throw new Error(`the server is 'embedded' or 'real', not '${flavor}'`);
interface Row {
  readonly name: string;
  readonly p50: number;
  readonly p99: number;
  readonly perSecond: number;
}

/** Sequential latencies (p50, p99) over `requests` calls, then throughput with `concurrency` in flight. */
async function measure(name: string, call: () => Promise<void>): Promise<Row> {
  for (let i = 0; i < 50; i++) await call(); // warm connections and JIT
  const latencies: number[] = [];
  for (let i = 0; i < requests; i++) {
    const t = process.hrtime.bigint();
    await call();
    latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  latencies.sort((a, b) => a - b);
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < requests) await call();
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const at = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return { name, p50: at(0.5), p99: at(0.99), perSecond: requests / seconds };
}

const server = flavor === 'real' ? await startRealApiServer() : await startEmbeddedApiServer({ tls: true });
try {
  const kubeConfig = server.kubeConfig;
  const client = new KubeClient(kubeConfig);
  const group = `${uniqueName('bench')}.kindex.test`;
  await createWebPageCrd(client, group, ['v1']);
  const namespace = await createNamespace(kubeConfig);
  const path = `/apis/${group}/v1/namespaces/${namespace}/webpages?dryRun=All`;
  const body = JSON.stringify({ apiVersion: `${group}/v1`, kind: 'WebPage', metadata: { name: 'home', namespace }, spec: { replicas: 1 } });
  // One keep-alive agent, as client-go's transport: a TLS handshake per write would be the measure otherwise.
  const tls: RequestOptions = { headers: {} };
  await kubeConfig.applyToHTTPSOptions(tls);
  const apiAgent = new Agent({
    keepAlive: true,
    maxSockets: concurrency,
    ca: tls.ca,
    cert: tls.cert,
    key: tls.key,
    // The embedded server's kubeconfig skips verification (its certificate is self-signed).
    rejectUnauthorized: kubeConfig.getCurrentCluster()?.skipTLSVerify !== true,
  });
  const post = (objectBody: string): Promise<number> =>
    new Promise((resolve, reject) => {
      request(
        new URL(path, server.url),
        { method: 'POST', agent: apiAgent, headers: { ...tls.headers, 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        },
      )
        .on('error', reject)
        .end(objectBody);
    });
  const create = async (): Promise<void> => {
    const status = await post(body);
    if (status !== 201) throw new Error(`dry-run create: ${status}`);
  };
  await eventually(create, { timeoutMs: 30_000, description: 'serving the CRD' });
  const rows: Row[] = [await measure('dry-run create, no webhook', create)];

  const operator = new Operator({ kubeConfig, webhooks: { port: 0, host: '127.0.0.1' } });
  let calls = 0;
  // Denies the probe object only, so the bench can see when the configuration is active.
  operator.webhooks!.validating({
    kind: resourceKind({ group, version: 'v1', kind: 'WebPage', plural: 'webpages', namespaced: true }),
    validate: ({ object }) => (calls++, object?.metadata?.name === 'probe' ? { allowed: false, message: 'probe' } : { allowed: true }),
  });
  const local = await startLocalWebhooks(operator.webhooks!, { kubeConfig, name: 'bench' });
  try {
    const probe = body.replace('"home"', '"probe"');
    await eventually(
      async () => {
        if ((await post(probe)) !== 403) throw new Error('webhook not active yet');
      },
      { timeoutMs: 30_000 },
    );
    const before = calls;
    rows.push(await measure('dry-run create, one validating webhook', create));
    if (calls - before < 2 * requests) throw new Error(`the webhook was called ${calls - before} times for ${2 * requests} writes`);

    const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
    const url = `${local.url}/validate/validate.webpages.${group}`;
    const review = JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: 'bench',
        kind: { group, version: 'v1', kind: 'WebPage' },
        resource: { group, version: 'v1', resource: 'webpages' },
        operation: 'CREATE',
        userInfo: { username: 'bench' },
        object: JSON.parse(body) as unknown,
      },
    });
    const direct = (): Promise<void> =>
      new Promise((resolve, reject) => {
        request(url, { method: 'POST', agent, ca: operator.webhooks!.caCert!, headers: { 'content-type': 'application/json' } }, (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(String(res.statusCode)))));
        })
          .on('error', reject)
          .end(review);
      });
    rows.push(await measure('webhook server alone (HTTPS POST)', direct));
    agent.destroy();
  } finally {
    await local.dispose();
    apiAgent.destroy();
  }
  console.log(
    `admission round trip through the ${flavor} API server, ${requests} requests sequential (p50, p99) then ${concurrency} in flight (req/s), node ${process.version}`,
  );
  console.log('| path | p50 ms | p99 ms | req/s |\n| --- | --- | --- | --- |');
  for (const r of rows) console.log(`| ${r.name} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.perSecond.toFixed(0)} |`);
  console.log(`webhook share of a write at p50: ${(rows[1]!.p50 - rows[0]!.p50).toFixed(2)} ms`);
} finally {
  await server.stop();
}
