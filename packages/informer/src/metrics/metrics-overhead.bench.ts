// Cost of the work-queue metrics on the reconcile path, and of a scrape. Not a test: numbers only.
// Run: cd packages/informer && node --import tsx src/metrics/metrics-overhead.bench.ts [reconciles]
// Each round pushes `reconciles` triggers (1,000 distinct primaries, so adds coalesce as in real
// use) through an EventProcessor whose dispatch does nothing, with and without the prom-client
// provider, alternating, and reports the median per-reconcile time of 5 rounds each.
import { Subject } from 'rxjs';
import { Registry } from 'prom-client';
import { EventProcessor, ResourceID, type Trigger } from '@kindex/core';
import { PrometheusWorkQueueMetrics } from '../index.js';

const reconciles = Number(process.argv[2] ?? 200_000);
const ids = Array.from({ length: 1000 }, (_, i) => ResourceID.of(`p-${i}`, 'ns'));

async function round(withMetrics: boolean): Promise<number> {
  const source = new Subject<Trigger>();
  let done = 0;
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const processor = new EventProcessor({
    name: 'bench',
    sources: [source],
    concurrency: 4,
    maxReconciliationIntervalMs: undefined,
    ...(withMetrics ? { queueMetrics: new PrometheusWorkQueueMetrics(new Registry()) } : {}),
    dispatch: async () => {
      if (++done === reconciles) finish();
    },
  });
  processor.start();
  const started = process.hrtime.bigint();
  let sent = 0;
  while (done < reconciles) {
    // Feed in batches and yield, so the workers drain the queue as they would under load.
    for (let i = 0; i < 1000; i++, sent++) {
      source.next({
        primaryIds: [ids[sent % ids.length]!],
        source: 'bench',
        cause: { type: 'resource', event: 'update', objectKey: `ns/s-${sent % 50}` },
      });
    }
    await new Promise((r) => setImmediate(r));
  }
  await finished;
  const ns = Number(process.hrtime.bigint() - started);
  await processor.stop();
  return ns / reconciles;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const off: number[] = [];
const on: number[] = [];
await round(false);
await round(true);
for (let i = 0; i < 5; i++) {
  off.push(await round(false));
  on.push(await round(true));
}
console.log(`per reconcile (trigger -> queue -> dispatch), median of 5 rounds of ${reconciles}:`);
console.log(`  without metrics: ${(median(off) / 1000).toFixed(2)} µs`);
console.log(
  `  with workqueue_* metrics: ${(median(on) / 1000).toFixed(2)} µs (+${(((median(on) - median(off)) / median(off)) * 100).toFixed(1)}%)`,
);

// Scrape: one registry with the work-queue series of 50 controllers.
const registry = new Registry();
const provider = new PrometheusWorkQueueMetrics(registry);
for (let c = 0; c < 50; c++) {
  const m = provider.forQueue(`controller-${c}`, {
    depth: () => c,
    unfinishedWorkSeconds: () => 0,
    longestRunningProcessorSeconds: () => 0,
  });
  for (let i = 0; i < 100; i++) {
    m.added();
    m.started(i / 1e4);
    m.finished(i / 1e3);
  }
}
const scrapes: number[] = [];
for (let i = 0; i < 50; i++) {
  const t = process.hrtime.bigint();
  await registry.metrics();
  scrapes.push(Number(process.hrtime.bigint() - t) / 1e6);
}
console.log(`scrape of 50 controllers' workqueue series: median ${median(scrapes).toFixed(2)} ms`);
