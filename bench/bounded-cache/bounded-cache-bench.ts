// Bounded primary caches (`cacheBound`) against the unbounded cache, on one controller over
// `--objects` ConfigMap primaries (the bench fixture's, about 1.7 kB of JSON each): the heap
// (with array buffers) retained once the initial wave is over, the API reads that wave cost, and the API reads per
// reconcile of a cold primary (one triggered by a secondary, not by its own event).
//
// A loopback server (this process) serves the ConfigMap list (one page), single-object GETs
// (counted), and a Secret watch on which it sends one ADDED event per primary to trigger; each
// contender runs in its own child process (`--expose-gc`), one after the other.
//
//   cd bench && npx --yes pnpm@10.34.8 bounded-cache [-- --objects 100000 --bound 1000 --cold 1000]
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
    objects: { type: 'string', default: '100000' },
    bound: { type: 'string', default: '1000' },
    cold: { type: 'string', default: '1000' },
    child: { type: 'string' },
    kubeconfig: { type: 'string' },
    url: { type: 'string' },
  },
});
const OBJECTS = Number(values.objects);
const BOUND = Number(values.bound);
const COLD = Number(values.cold);
const LIST_RV = OBJECTS + 10;
const NO_TIMER = '(maxReconciliationIntervalMs: undefined)';

interface ChildResult {
  readonly mode: string;
  readonly syncMs: number;
  readonly waveMs: number;
  readonly waveGets: number;
  readonly heapBytes: number;
  readonly inMemory: number;
  readonly coldReconciles: number;
  readonly coldGets: number;
  readonly coldMs: number;
}

if (values.child !== undefined) await child(values.child, values.kubeconfig!, values.url!);
else await parent();

async function parent(): Promise<void> {
  const primaries = primaryCount(OBJECTS);
  const objectOf = (i: number) => ({ apiVersion: 'v1', kind: 'ConfigMap', ...configMap(i, primaries, i + 1, 0) });
  const items: string[] = [];
  for (let i = 0; i < OBJECTS; i++) items.push(JSON.stringify(objectOf(i)));
  const listBody = Buffer.from(
    `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"${LIST_RV}"},"items":[${items.join(',')}]}`,
  );
  items.length = 0;
  let gets = 0;
  const secretWatches = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const path = url.pathname;
    const watch = url.searchParams.get('watch') === 'true';
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body));
    };
    if (path === '/bench/stats') return json(200, { gets });
    if (path === '/bench/poke') {
      // One ADDED Secret per name, on every open Secret watch.
      const names = (url.searchParams.get('names') ?? '').split(',');
      let rv = LIST_RV + 1_000;
      const lines = names
        .map((name) =>
          JSON.stringify({
            type: 'ADDED',
            object: {
              apiVersion: 'v1',
              kind: 'Secret',
              metadata: { name, namespace: NAMESPACE, resourceVersion: String(++rv), uid: `s-${name}` },
            },
          }),
        )
        .join('\n');
      for (const w of secretWatches) w.write(`${lines}\n`);
      return json(200, { sent: names.length });
    }
    const configMaps = `/api/v1/namespaces/${NAMESPACE}/configmaps`;
    const secrets = `/api/v1/namespaces/${NAMESPACE}/secrets`;
    if (watch && (path === configMaps || path === secrets)) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      if (path === secrets) {
        secretWatches.add(res);
        res.on('close', () => secretWatches.delete(res));
      }
      return; // open until the client goes; no events of its own
    }
    if (path === configMaps) return json(200, listBody);
    if (path === secrets)
      return json(200, { kind: 'SecretList', apiVersion: 'v1', metadata: { resourceVersion: String(LIST_RV) }, items: [] });
    if (path.startsWith(`${configMaps}/`)) {
      gets++;
      const i = Number(path.slice(configMaps.length + 1 + 'cm-'.length));
      if (!Number.isInteger(i) || i < 0 || i >= OBJECTS)
        return json(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 });
      return json(200, objectOf(i));
    }
    return json(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404 });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const kubeconfig = writeBenchKubeconfig(url, 'kindex-bounded-');
  const results: ChildResult[] = [];
  // The controller's default 10-hour maxReconciliationIntervalMs keeps a timer per primary (the
  // event processor's, whatever the cache): the last two rows leave it out to show the cache alone.
  for (const mode of ['unbounded', 'bounded', `unbounded ${NO_TIMER}`, `bounded ${NO_TIMER}`]) {
    results.push(
      await runJsonChild<ChildResult>(fileURLToPath(import.meta.url), [
        '--child',
        mode,
        '--kubeconfig',
        kubeconfig,
        '--url',
        url,
        '--objects',
        String(OBJECTS),
        '--bound',
        String(BOUND),
        '--cold',
        String(COLD),
      ]),
    );
  }
  server.closeAllConnections();
  server.close();
  const [unbounded, bounded, unboundedAlone, boundedAlone] = results as [ChildResult, ChildResult, ChildResult, ChildResult];
  const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`;
  console.log(
    `\nBounded primary cache: ${OBJECTS.toLocaleString('en')} ConfigMap primaries, cacheBound { maxObjects: ${BOUND} }, ${COLD} cold reconciles\n`,
  );
  console.log(
    '| cache | heap + array buffers after the wave | bytes/primary | in memory | sync | initial wave | GETs in the wave | GETs per cold reconcile |',
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const r of results) {
    console.log(
      `| ${r.mode} | ${mb(r.heapBytes)} | ${Math.round(r.heapBytes / OBJECTS)} | ${r.inMemory.toLocaleString('en')} | ${(r.syncMs / 1000).toFixed(1)} s | ${(r.waveMs / 1000).toFixed(1)} s | ${r.waveGets.toLocaleString('en')} | ${(r.coldGets / r.coldReconciles).toFixed(2)} |`,
    );
  }
  console.log(
    `\nheap, bounded over unbounded: ${(bounded.heapBytes / unbounded.heapBytes).toFixed(3)}x with the default periodic reconcile, ${(boundedAlone.heapBytes / unboundedAlone.heapBytes).toFixed(3)}x without`,
  );
}

async function child(mode: string, kubeconfigPath: string, url: string): Promise<void> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const { ResourceID, UpdateControl } = await import('@kindex/core');
  const { Controller, InformerEventSource, Kinds, KubeClient } = await import('@kindex/informer');
  const gc = (globalThis as { gc?: () => void }).gc!;
  // The V8 heap plus array buffers: a bounded cache keeps its records in typed arrays, whose
  // bytes live outside the heap.
  const heap = () => {
    gc();
    gc();
    const { heapUsed, arrayBuffers } = process.memoryUsage();
    return heapUsed + arrayBuffers;
  };
  const stats = async () => ((await (await fetch(`${url}/bench/stats`)).json()) as { gets: number }).gets;
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfigPath);
  const client = new KubeClient(kubeConfig);
  let reconciles = 0;
  const cold = new Set<string>();
  let coldDone = 0;
  let wake: () => void = () => {};
  const controller = new Controller(
    {
      reconcile: (cm) => {
        reconciles++;
        if (cold.delete(cm.metadata!.name!)) coldDone++;
        if (reconciles === OBJECTS || (coldDone === COLD && cold.size === 0)) wake();
        return UpdateControl.noUpdate();
      },
      prepareEventSources: (context) => [
        InformerEventSource.from(Kinds.Secret, Kinds.ConfigMap)
          .withName('pokes')
          .withSecondaryToPrimaryMapper((secret) => [ResourceID.of(secret.metadata!.name!, secret.metadata!.namespace)])
          .withReflectorOptions({ initialState: 'list' })
          .build(context),
      ],
    },
    {
      kind: Kinds.ConfigMap,
      namespaces: [NAMESPACE],
      reflector: { initialState: 'list' },
      concurrency: 16,
      ...(mode.startsWith('bounded') ? { cacheBound: { maxObjects: BOUND } } : {}),
      ...(mode.endsWith(NO_TIMER) ? { maxReconciliationIntervalMs: undefined } : {}),
    },
    client,
  );
  const base = heap();
  const getsBefore = await stats();
  const started = performance.now();
  const waveOver = new Promise<void>((resolve) => (wake = resolve));
  await controller.start();
  const syncMs = performance.now() - started;
  await waveOver;
  const waveMs = performance.now() - started;
  const waveGets = (await stats()) - getsBefore;
  // Let the queue drain and the cache settle before measuring.
  await new Promise((r) => setTimeout(r, 500));
  const heapBytes = heap() - base;
  const inMemory = controller.primaryCache.size;
  // Cold primaries: spread over the set, triggered by a Secret each (not by their own event).
  const step = Math.floor(OBJECTS / COLD);
  const names = Array.from({ length: COLD }, (_, k) => `cm-${k * step}`);
  for (const n of names) cold.add(n);
  const coldOver = new Promise<void>((resolve) => (wake = resolve));
  const coldStart = performance.now();
  for (let k = 0; k < names.length; k += 200) await fetch(`${url}/bench/poke?names=${names.slice(k, k + 200).join(',')}`);
  await coldOver;
  const coldMs = performance.now() - coldStart;
  const coldGets = (await stats()) - waveGets - getsBefore;
  await controller.stop({ drainTimeoutMs: 1_000 });
  const result: ChildResult = { mode, syncMs, waveMs, waveGets, heapBytes, inMemory, coldReconciles: COLD, coldGets, coldMs };
  console.log(JSON.stringify(result));
  process.exit(0);
}
