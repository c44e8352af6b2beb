// Request round trips over TLS: what one read or one write costs the operator's process, kindex's
// KubeClient against client-node's generated API (what a hand-rolled client-node loop calls).
// Not a test: numbers only (timing claims stay out of unit tests).
// Run: cd packages/informer && node --import tsx src/client/request-roundtrip.bench.ts [requests] [embedded|real]
// (`pnpm bench -- --scenarios requests` runs it on both servers). The embedded server is started
// with TLS, as the real one serves (the real one needs scripts/real-apiserver/build.sh). Requests
// are sequential; CPU is this process's per request: on the real server the client's alone, on
// the embedded server (in this process) the client's and the server's together.
import { CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { ResourceID } from '@kindex/core';
import { createNamespace, startEmbeddedApiServer } from '@kindex/testing';
import { startRealApiServer } from '@kindex/testing/internal';
import { KubeClient, Kinds } from '../index.js';
import { measureSequential, type LatencyRow } from '../internal/sequential-latency.bench.js';

const requests = Number(process.argv[2] ?? 1000);
const flavor = process.argv[3] ?? 'real';
if (flavor !== 'embedded' && flavor !== 'real') throw new Error(`the server is 'embedded' or 'real', not '${flavor}'`);

/** Sequential latencies (p50, p99) and CPU per call over `requests` calls, after a warm-up. */
const measure = (name: string, call: (i: number) => Promise<void>): Promise<LatencyRow> => measureSequential(name, requests, 50, call);

const server = flavor === 'real' ? await startRealApiServer() : await startEmbeddedApiServer({ tls: true });
try {
  const kubeConfig = server.kubeConfig;
  const namespace = await createNamespace(kubeConfig);
  const name = 'roundtrip';
  const client = new KubeClient(kubeConfig);
  await client.create(Kinds.ConfigMap, { metadata: { name, namespace }, data: { n: '0' } });
  const id = ResourceID.of(name, namespace);
  const api = kubeConfig.makeApiClient(CoreV1Api);
  const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
  const rows: LatencyRow[] = [
    await measure('kindex KubeClient.get', async () => {
      if ((await client.get(Kinds.ConfigMap, id)) === undefined) throw new Error('not found');
    }),
    await measure('client-node CoreV1Api.readNamespacedConfigMap', async () => {
      await api.readNamespacedConfigMap({ name, namespace });
    }),
    await measure('kindex KubeClient.patch (merge)', async (i) => {
      await client.patch(Kinds.ConfigMap, id, { data: { n: `kindex-${i}` } });
    }),
    await measure('client-node CoreV1Api.patchNamespacedConfigMap (merge)', async (i) => {
      await api.patchNamespacedConfigMap({ name, namespace, body: { data: { n: `client-node-${i}` } } }, mergePatch);
    }),
  ];
  const who = flavor === 'real' ? "this process's (the client's)" : "this process's (client and embedded server)";
  console.log(`request round trips over TLS to the ${flavor} API server, ${requests} sequential requests each, node ${process.version}`);
  console.log(`| request | p50 ms | p99 ms | CPU ms per request, ${who} |\n| --- | --- | --- | --- |`);
  for (const r of rows) console.log(`| ${r.name} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.cpuMs.toFixed(3)} |`);
} finally {
  await server.stop();
}
