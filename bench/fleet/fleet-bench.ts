// A fleet against one big cluster: one Operator reconciling ConfigMaps in `--clusters` clusters of
// `--objects` each (`Operator.registerFleet`, a controller, client and caches per cluster) against
// one Operator reconciling the same number of ConfigMaps in one cluster (`Operator.register`).
// Measured per mode: the time from `start()` until every primary was reconciled once (startup),
// the heap retained after that wave (after GC) and the process RSS. Target: the fleet at most
// 1.1x the single cluster in heap and startup.
//
// Each cluster is a loopback server of this process serving the ConfigMap list (one page) and a
// watch that stays open and silent; each mode runs in its own child process (`--expose-gc`).
//
//   cd bench && npx --yes pnpm@10.34.8 fleet [-- --clusters 10 --objects 10000]
import { once } from 'node:events';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { configMap, NAMESPACE, primaryCount } from '../src/fixture/config-map-fixture.js';
import { writeBenchKubeconfig } from '../src/server/bench-kubeconfig.js';
import { runJsonChild } from '../src/measure/json-child.js';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((arg) => arg !== '--'),
  options: {
    clusters: { type: 'string', default: '10' },
    objects: { type: 'string', default: '10000' },
    reps: { type: 'string', default: '1' },
    child: { type: 'string' },
    kubeconfigs: { type: 'string' },
  },
});
const CLUSTERS = Number(values.clusters);
const OBJECTS = Number(values.objects);
const TOTAL = CLUSTERS * OBJECTS;
const REPS = Number(values.reps);

interface ChildResult {
  readonly mode: string;
  readonly startupMs: number;
  readonly heapBytes: number;
  readonly rssBytes: number;
}

if (values.child !== undefined) await child(values.child, values.kubeconfigs!.split(','));
else await parent();

/** A loopback API server holding `objects` ConfigMaps; resolves to its kubeconfig's path and a closer. */
async function serve(objects: number): Promise<{ kubeconfig: string; close(): void }> {
  const primaries = primaryCount(objects);
  const items: string[] = [];
  for (let i = 0; i < objects; i++)
    items.push(JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', ...configMap(i, primaries, i + 1, 0) }));
  const rv = objects + 10;
  const listBody = Buffer.from(
    `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"${rv}"},"items":[${items.join(',')}]}`,
  );
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== `/api/v1/namespaces/${NAMESPACE}/configmaps`) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    if (url.searchParams.get('watch') === 'true')
      res.flushHeaders(); // open until the client goes
    else res.end(listBody);
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    kubeconfig: writeBenchKubeconfig(url, 'kindex-fleet-'),
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

function runChild(mode: string, kubeconfigs: readonly string[]): Promise<ChildResult> {
  const args = ['--child', mode, '--kubeconfigs', kubeconfigs.join(','), '--clusters', String(CLUSTERS), '--objects', String(OBJECTS)];
  return runJsonChild<ChildResult>(fileURLToPath(import.meta.url), args);
}

async function parent(): Promise<void> {
  const results: ChildResult[] = [];
  for (let rep = 0; rep < REPS; rep++) {
    // One mode's servers at a time: the parent holds their list bodies.
    const single = await serve(TOTAL);
    results.push(await runChild('single', [single.kubeconfig]));
    single.close();
    const fleet = await Promise.all(Array.from({ length: CLUSTERS }, () => serve(OBJECTS)));
    results.push(
      await runChild(
        'fleet',
        fleet.map((s) => s.kubeconfig),
      ),
    );
    for (const s of fleet) s.close();
  }
  const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`;
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const row = (mode: string) => {
    const rs = results.filter((r) => r.mode === mode);
    return {
      startupMs: median(rs.map((r) => r.startupMs)),
      heapBytes: median(rs.map((r) => r.heapBytes)),
      rssBytes: median(rs.map((r) => r.rssBytes)),
    };
  };
  const single = row('single');
  const fleet = row('fleet');
  console.log(
    `\nFleet: ${CLUSTERS} clusters of ${OBJECTS.toLocaleString('en')} ConfigMaps against 1 cluster of ${TOTAL.toLocaleString('en')} (median of ${REPS})\n`,
  );
  console.log('| operator | startup (all reconciled once) | heap after the wave | RSS |');
  console.log('|---|---|---|---|');
  console.log(
    `| 1 cluster, Operator.register | ${(single.startupMs / 1000).toFixed(2)} s | ${mb(single.heapBytes)} | ${mb(single.rssBytes)} |`,
  );
  console.log(
    `| ${CLUSTERS} clusters, Operator.registerFleet | ${(fleet.startupMs / 1000).toFixed(2)} s | ${mb(fleet.heapBytes)} | ${mb(fleet.rssBytes)} |`,
  );
  console.log(
    `\nfleet over single: startup ${(fleet.startupMs / single.startupMs).toFixed(2)}x, heap ${(fleet.heapBytes / single.heapBytes).toFixed(2)}x, RSS ${(fleet.rssBytes / single.rssBytes).toFixed(2)}x (target at most 1.1x)`,
  );
}

async function child(mode: string, kubeconfigs: readonly string[]): Promise<void> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const { UpdateControl } = await import('@kindex/core');
  const { Kinds, Operator, StaticClusterProvider } = await import('@kindex/informer');
  const gc = (globalThis as { gc?: () => void }).gc!;
  const heap = () => {
    gc();
    gc();
    return process.memoryUsage().heapUsed;
  };
  const configs = kubeconfigs.map((path) => {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(path);
    return kubeConfig;
  });
  let reconciles = 0;
  let wake: () => void = () => {};
  const reconcile = () => {
    if (++reconciles === TOTAL) wake();
    return UpdateControl.noUpdate();
  };
  const options = { kind: Kinds.ConfigMap, namespaces: [NAMESPACE], reflector: { initialState: 'list' as const }, concurrency: 16 };
  const operator = new Operator({ kubeConfig: configs[0]!, inspection: false });
  if (mode === 'single') operator.register({ reconcile }, options);
  else {
    const clusters = new StaticClusterProvider(configs.map((kubeConfig, i) => ({ name: `cluster-${i}`, kubeConfig })));
    operator.registerFleet({ reconcile }, { ...options, clusters });
  }
  const base = heap();
  const waveOver = new Promise<void>((resolve) => (wake = resolve));
  const started = performance.now();
  await operator.start();
  await waveOver;
  const startupMs = performance.now() - started;
  // Let the queues drain and the caches settle before measuring.
  await new Promise((r) => setTimeout(r, 500));
  const heapBytes = heap() - base;
  const rssBytes = process.memoryUsage().rss;
  await operator.stop({ drainTimeoutMs: 1_000 });
  console.log(JSON.stringify({ mode, startupMs, heapBytes, rssBytes } satisfies ChildResult));
  process.exit(0);
}
