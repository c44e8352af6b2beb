// Scale run of the embedded API server: 100k ConfigMaps created over HTTP (batched, concurrent),
// listed whole and paginated, then N updates fanned out to 10 concurrent watchers.
// Prints timings, RSS and events/s. Run: npx tsx scripts/apiserver-scale.ts [objects] [updates]
// Figures, not assertions: performance belongs in benchmarks, never in timed tests.

import http from 'node:http';
import { startEmbeddedApiServer } from '../packages/testing/src/index.js';

const OBJECTS = Number(process.argv[2] ?? 100_000);
const UPDATES = Number(process.argv[3] ?? 10_000);
const WATCHERS = 10;
const CONCURRENCY = 64;
const NAMESPACES = 10;

const server = await startEmbeddedApiServer({ historyWindow: Math.max(1000, UPDATES * 2) });
const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
const base = new URL(server.url);

function request(
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        host: base.hostname,
        port: base.port,
        method,
        path,
        agent,
        headers: {
          authorization: `Bearer ${server.token}`,
          ...(data === undefined ? {} : { 'content-type': contentType, 'content-length': Buffer.byteLength(data) }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

async function pool(count: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < count; i = next++) await task(i);
    }),
  );
}

const mb = (n: number): string => `${(n / 1024 / 1024).toFixed(0)} MiB`;
const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;
// The machine may be shared: CPU time of this process says more about cost than wall time.
let cpuMark = process.cpuUsage();
function cpu(): string {
  const d = process.cpuUsage(cpuMark);
  cpuMark = process.cpuUsage();
  return `cpu ${((d.user + d.system) / 1e6).toFixed(2)} s`;
}
function memory(label: string): void {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  console.log(`  memory ${label}: rss ${mb(m.rss)}, heap used ${mb(m.heapUsed)}`);
}

console.log(
  `embedded apiserver scale run: ${OBJECTS} ConfigMaps in ${NAMESPACES} namespaces, ${UPDATES} updates, ${WATCHERS} watchers (Node ${process.version})`,
);
memory('at start');

for (let n = 0; n < NAMESPACES; n++) {
  await request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: `scale-${n}` } });
}

let t = performance.now();
cpu();
await pool(OBJECTS, async (i) => {
  const ns = `scale-${i % NAMESPACES}`;
  const r = await request('POST', `/api/v1/namespaces/${ns}/configmaps`, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `cm-${String(i).padStart(6, '0')}`, labels: { app: 'scale', shard: String(i % 16) } },
    data: { index: String(i), payload: 'x'.repeat(64) },
  });
  if (r.status !== 201) throw new Error(`create ${i}: ${r.status} ${r.text}`);
});
let ms = performance.now() - t;
console.log(
  `create: ${OBJECTS} objects in ${seconds(ms)} (${Math.round(OBJECTS / (ms / 1000))} creates/s, concurrency ${CONCURRENCY}), ${cpu()}`,
);
memory(`holding ${OBJECTS} objects`);

t = performance.now();
const whole = await request('GET', '/api/v1/configmaps');
ms = performance.now() - t;
const wholeCount = (JSON.parse(whole.text) as { items: unknown[] }).items.length;
console.log(`list all (unpaginated): ${wholeCount} items, ${mb(whole.text.length)} of JSON in ${seconds(ms)}, ${cpu()}`);

t = performance.now();
let pages = 0;
let paged = 0;
let token = '';
do {
  const r = await request('GET', `/api/v1/configmaps?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ''}`);
  const list = JSON.parse(r.text) as { items: unknown[]; metadata: { continue?: string } };
  pages++;
  paged += list.items.length;
  token = list.metadata.continue ?? '';
} while (token !== '');
ms = performance.now() - t;
console.log(`list all (limit=500): ${paged} items in ${pages} pages in ${seconds(ms)}, ${cpu()}`);

t = performance.now();
const selected = await request('GET', '/api/v1/configmaps?labelSelector=shard%3D3');
ms = performance.now() - t;
console.log(
  `list with labelSelector shard=3: ${(JSON.parse(selected.text) as { items: unknown[] }).items.length} items in ${seconds(ms)}, ${cpu()}`,
);

// Watchers start from the current resourceVersion and count events until they have all updates.
const fromRv = server.resourceVersion();
const watchAgent = new http.Agent({ keepAlive: false });
const received: number[] = new Array<number>(WATCHERS).fill(0);
const watchRequests: http.ClientRequest[] = [];
const allReceived = Promise.all(
  Array.from(
    { length: WATCHERS },
    (_, w) =>
      new Promise<number>((resolve, reject) => {
        const req = http.get(
          {
            host: base.hostname,
            port: base.port,
            path: `/api/v1/configmaps?watch=true&resourceVersion=${fromRv}`,
            agent: watchAgent,
            headers: { authorization: `Bearer ${server.token}` },
          },
          (res) => {
            let rest = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              const lines = (rest + chunk).split('\n');
              rest = lines.pop()!;
              for (const line of lines) {
                if ((JSON.parse(line) as { type: string }).type === 'MODIFIED') received[w]!++;
              }
              if (received[w] === UPDATES) resolve(performance.now());
            });
            res.on('error', reject);
          },
        );
        req.on('error', (e) => (received[w] === UPDATES ? undefined : reject(e)));
        watchRequests.push(req);
      }),
  ),
);
await new Promise((r) => setTimeout(r, 200));
console.log(`open watches: ${server.openWatches()}`);

t = performance.now();
cpu();
await pool(UPDATES, async (i) => {
  const ns = `scale-${i % NAMESPACES}`;
  const r = await request(
    'PATCH',
    `/api/v1/namespaces/${ns}/configmaps/cm-${String(i).padStart(6, '0')}`,
    { data: { updated: String(i) } },
    'application/merge-patch+json',
  );
  if (r.status !== 200) throw new Error(`update ${i}: ${r.status} ${r.text}`);
});
const updatesDone = performance.now();
const ends = await allReceived;
const last = Math.max(...ends);
console.log(`updates: ${UPDATES} in ${seconds(updatesDone - t)} (${Math.round(UPDATES / ((updatesDone - t) / 1000))} updates/s)`);
const delivered = UPDATES * WATCHERS;
console.log(
  `watch fan-out: ${delivered} events to ${WATCHERS} watchers, all delivered ${seconds(last - t)} after the first update (${Math.round(delivered / ((last - t) / 1000))} events/s delivered), ${cpu()} for updates and delivery`,
);
memory('at end');

for (const r of watchRequests) r.destroy();
agent.destroy();
watchAgent.destroy();
await server.stop();
