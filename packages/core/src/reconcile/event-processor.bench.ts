// Bytes and CPU per event on the event processor's path. Not a test: numbers only.
// Run: cd packages/core && node --expose-gc --max-semi-space-size=512 --min-semi-space-size=512 \
//        --import tsx src/reconcile/event-processor.bench.ts [events] [--no-listener]
//
// Each event is one trigger for one of 1,000 primaries, accepted as a source's call does, then a
// microtask turn in which the processor takes it and runs a synchronous dispatch (noUpdate): the
// end-to-end bench's steady stream, one event per socket read. An onEvent listener stands for the
// controller's, which always listens (--no-listener leaves it out). Bytes are the heap growth over
// a round, with semi-spaces large enough that no scavenge runs during it (hence the flags).
import { EventProcessor, ResourceID, UpdateControl, type Trigger } from '../index.js';

const events = Number(process.argv[2] ?? 150_000);
const ids = Array.from({ length: 1000 }, (_, i) => ResourceID.of(`p-${i}`, 'ns'));
const processor = new EventProcessor({
  name: 'bench',
  sources: [],
  concurrency: 10,
  maxReconciliationIntervalMs: undefined,
  dispatch: () => {
    UpdateControl.noUpdate();
  },
});
if (!process.argv.includes('--no-listener')) processor.onEvent(() => {});
processor.start();

async function run(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const id = ids[i % 1000]!;
    const trigger: Trigger = { primaryIds: [id], source: 'bench', cause: { type: 'resource', event: 'update', objectKey: id.key } };
    processor.accept(trigger);
    await Promise.resolve(); // one microtask turn: the processor takes the key and dispatches
  }
}

const gc = (globalThis as { gc?: () => void }).gc;
await run(200_000); // warm-up: optimised code
for (let r = 0; r < 5; r++) {
  gc?.();
  const before = process.memoryUsage().heapUsed;
  const start = process.hrtime.bigint();
  await run(events);
  const ns = Number(process.hrtime.bigint() - start) / events;
  const bytes = (process.memoryUsage().heapUsed - before) / events;
  console.log(`${ns.toFixed(0)} ns, ${bytes.toFixed(0)} B an event`);
}
await processor.stop();
