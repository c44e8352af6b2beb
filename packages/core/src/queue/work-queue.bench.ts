// CPU per event of the work queue on the event processor's path. Not a test: numbers only.
// Run: cd packages/core && node --import tsx src/queue/work-queue.bench.ts [events]
//
// Each event adds a fresh key string (built as a trigger builds it) for one of 1,000 primaries,
// with a metrics provider attached (the Operator always has one); then, as the event processor
// does, the waiting keys are taken with tryGet and each is forgotten (a success) and done. Bursts:
// 1 is one event per socket read (the end-to-end bench at 1,000 events/s), 10 what one tryGet
// loop takes at the default concurrency, 100 and 1,000 a backlog (a relist, a restart).
import { WorkQueue, type WorkQueueMetricsProvider } from '../index.js';

const events = Number(process.argv[2] ?? 500_000);
const metrics: WorkQueueMetricsProvider = { forQueue: () => ({ added() {}, started() {}, finished() {}, retried() {} }) };
const names = Array.from({ length: 1000 }, (_, i) => `cm-${String(i).padStart(6, '0')}`);
const namespace = 'kindex-bench';

function run(queue: WorkQueue, burst: number, count: number): number {
  const handed: string[] = [];
  let taken = 0;
  for (let i = 0; i < count; i += burst) {
    for (let j = 0; j < burst; j++) queue.add(namespace + '/' + names[(i + j) % 1000]);
    for (let key; (key = queue.tryGet()) !== undefined;) handed.push(key);
    for (const key of handed) {
      queue.forget(key);
      queue.done(key);
      taken++;
    }
    handed.length = 0;
  }
  return taken;
}

for (const burst of [1, 10, 100, 1000]) {
  const queue = new WorkQueue({ name: 'bench', metrics });
  run(queue, burst, 200_000); // warm-up: optimised code
  const perEvent: number[] = [];
  for (let r = 0; r < 7; r++) {
    const start = process.hrtime.bigint();
    run(queue, burst, events);
    perEvent.push(Number(process.hrtime.bigint() - start) / events);
  }
  perEvent.sort((a, b) => a - b);
  console.log(
    `burst ${String(burst).padStart(4)}: ${perEvent[3]!.toFixed(0)} ns an event (median of 7; fastest ${perEvent[0]!.toFixed(0)})`,
  );
}
