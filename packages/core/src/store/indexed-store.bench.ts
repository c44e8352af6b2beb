// Memory and throughput of IndexedStore and PrimaryToSecondaryIndex. Not a test: numbers only.
// Run: cd packages/core && node --expose-gc --import tsx src/store/indexed-store.bench.ts [count]
import { IndexedStore, PrimaryToSecondaryIndex, ResourceID, type KubernetesObject } from '../index.js';
import { deepFreeze } from '../internal.js';

interface Pod extends KubernetesObject {
  metadata: NonNullable<KubernetesObject['metadata']>;
  spec: { nodeName: string; containers: { name: string; image: string; args: string[] }[] };
}

const count = Number(process.argv[2] ?? 100_000);
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error('run with node --expose-gc');

/** A pod-like object of about 1.7 KB of JSON; every string is unique, as off the wire. */
function makePod(i: number, rv = 1): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `pod-${i}`,
      namespace: `ns-${i % 100}`,
      uid: `6f1c2a9e-${String(i).padStart(4, '0')}-4a1b-9c3d-${String(i * 7919).padStart(12, '0')}`,
      resourceVersion: String(rv * 1_000_000 + i),
      generation: 1,
      creationTimestamp: '2026-11-21T12:00:00Z',
      labels: { app: `app-${i % 1000}`, tier: i % 2 ? 'web' : 'db', 'pod-template-hash': `h${i}` },
      annotations: { 'kindex.dev/owner': `owner-${i % 5000}`, note: 'x'.repeat(200) + i },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `rs-${i % 5000}`, uid: `uid-rs-${i % 5000}`, controller: true }],
    },
    spec: {
      nodeName: `node-${i % 50}`,
      containers: [
        {
          name: 'main',
          image: `registry.example.com/team/app:${i % 1000}`,
          args: ['--port=8080', `--id=${i}`, '--verbose', 'y'.repeat(600)],
        },
        {
          name: 'sidecar',
          image: 'registry.example.com/infra/proxy:1.2.3',
          args: ['--config=/etc/proxy.yaml', `--inst=${i}`, 'z'.repeat(300)],
        },
      ],
    },
  };
}

function heap(): number {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed;
}

function measureMemory(label: string, build: (pods: Pod[]) => unknown): void {
  const pods = Array.from({ length: count }, (_, i) => makePod(i));
  for (const p of pods) deepFreeze(p);
  const before = heap();
  const keep = build(pods);
  const after = heap();
  const perObject = (after - before) / count;
  console.log(`${label}: ${perObject.toFixed(1)} bytes/object retained beyond the objects themselves`);
  (globalThis as { keep?: unknown }).keep = keep;
  (globalThis as { keep?: unknown }).keep = undefined;
}

function time(label: string, ops: number, fn: () => void): void {
  gc!(); // start each measurement from a collected heap, so one step does not pay for another
  const start = process.hrtime.bigint();
  fn();
  const ns = Number(process.hrtime.bigint() - start);
  console.log(`${label}: ${(ns / ops / 1000).toFixed(2)} µs/op (${ops} ops, ${(ns / 1e6).toFixed(0)} ms)`);
}

// Object size, for scale.
{
  const before = heap();
  const pods = Array.from({ length: count }, (_, i) => makePod(i));
  const after = heap();
  console.log(
    `plain object: ${((after - before) / count).toFixed(0)} bytes/object on the heap; JSON ${JSON.stringify(pods[0]).length} chars`,
  );
}

measureMemory('JS Map baseline (key string + entry)', (pods) => new Map(pods.map((p) => [ResourceID.keyOfResource(p), p])));
measureMemory('IndexedStore, no custom index', (pods) => {
  const s = new IndexedStore<Pod>({ assumeFrozen: true });
  s.replace(pods);
  return s;
});
measureMemory('IndexedStore, 2 indexes (node, app label)', (pods) => {
  const s = new IndexedStore<Pod>({
    assumeFrozen: true,
    indexers: { node: (p) => [p.spec.nodeName], app: (p) => [p.metadata.labels?.['app'] ?? ''] },
  });
  s.replace(pods);
  return s;
});
measureMemory('PrimaryToSecondaryIndex, one owner each', (pods) => {
  const idx = new PrimaryToSecondaryIndex<Pod>({
    toPrimaryIds: (p) => [ResourceID.of(p.metadata.ownerReferences![0]!.name, p.metadata.namespace)],
  });
  idx.seed(pods);
  return idx;
});

// Throughput.
{
  const pods = Array.from({ length: count }, (_, i) => makePod(i));
  const store = new IndexedStore<Pod>({
    indexers: { node: (p) => [p.spec.nodeName], app: (p) => [p.metadata.labels?.['app'] ?? ''] },
  });
  time('replace (initial list, 2 indexes, freezing)', count, () => store.replace(pods));
  time('replace again, all unchanged', count, () => store.replace(pods));
  // Writes touch `ops` objects of the `count` cached: fewer live copies keeps GC out of the numbers.
  const ops = Math.min(count, 20_000);
  const updates = Array.from({ length: ops }, (_, i) => makePod(i, 2));
  for (const p of updates) deepFreeze(p);
  time('upsert (update, 2 indexes, values unchanged)', ops, () => {
    for (const p of updates) store.upsert(p);
  });
  const moved = Array.from({ length: ops }, (_, i) => {
    const p = makePod(i, 3);
    p.spec.nodeName = `node-${(i + 1) % 50}`;
    return p;
  });
  for (const p of moved) deepFreeze(p);
  time('upsert (update, 2 indexes, one value moves)', ops, () => {
    for (const p of moved) store.upsert(p);
  });
  time('get by key', count, () => {
    for (let i = 0; i < count; i++) store.get(`ns-${i % 100}/pod-${i}`);
  });
  time(`byIndex node (${count / 50} objects per value), per object returned`, 100 * (count / 50), () => {
    for (let i = 0; i < 100; i++) store.byIndex('node', `node-${i % 50}`);
  });
  time('snapshot', count, () => {
    for (let i = 0; i < count; i++) store.snapshot();
  });
  time('delete', ops, () => {
    for (const p of moved) store.delete(ResourceID.keyOfResource(p));
  });
  const batched = new IndexedStore<Pod>({
    assumeFrozen: true,
    indexers: { node: (p) => [p.spec.nodeName], app: (p) => [p.metadata.labels?.['app'] ?? ''] },
  });
  time('batch upsert (create, 2 indexes)', ops, () =>
    batched.batch((w) => {
      for (const p of moved) w.upsert(p);
    }),
  );
  const plain = new IndexedStore<Pod>({ assumeFrozen: true });
  time('upsert (create, no index)', ops, () => {
    for (const p of moved) plain.upsert(p);
  });

  const index = new PrimaryToSecondaryIndex<Pod>({
    toPrimaryIds: (p) => [ResourceID.of(p.metadata.ownerReferences![0]!.name, p.metadata.namespace)],
  });
  time('reverse index seed', count, () => index.seed(pods));
  time('reverse index onAddOrUpdate (same owner)', ops, () => {
    for (const p of updates) index.onAddOrUpdate(p);
  });
  time('reverse index onDelete', ops, () => {
    for (const p of updates) index.onDelete(p);
  });
}
