import { expect } from 'chai';
import fc from 'fast-check';
import { Subject } from 'rxjs';
import {
  EventProcessor,
  FakeClock,
  GenericRetry,
  ItemExponentialFailureRateLimiter,
  ResourceID,
  WorkQueue,
  type EventProcessorOptions,
  type ReconcileQueue,
  type Trigger,
} from '../index.js';

type Step =
  | { kind: 'trigger'; key: string }
  | { kind: 'finish'; pick: number; fail: boolean }
  | { kind: 'advance'; ms: number }
  | { kind: 'delete'; key: string };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('trigger' as const), key: fc.constantFrom('a', 'b', 'c') }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('finish' as const), pick: fc.nat(), fail: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 50 }) }) },
);

const withDeletes: fc.Arbitrary<Step> = fc.oneof(
  { weight: 8, arbitrary: step },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), key: fc.constantFrom('a', 'b', 'c') }) },
);

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

/** A processor over a trigger stream whose dispatches run until the test settles them. */
function harness(concurrency: number, onStart: (key: string) => void = () => {}, options: Partial<EventProcessorOptions> = {}) {
  const clock = new FakeClock();
  const triggers = new Subject<Trigger>();
  const running: { key: string; settle: (fail: boolean) => void }[] = [];
  const overlaps: string[] = [];
  let maxRunning = 0;
  const processor = new EventProcessor({
    concurrency,
    clock,
    sources: [triggers],
    retry: new GenericRetry({ maxAttempts: 2, initialIntervalMs: 10 }),
    rateLimiter: new ItemExponentialFailureRateLimiter({ baseDelayMs: 1, maxDelayMs: 1 }),
    maxReconciliationIntervalMs: undefined,
    reconcileTimeoutMs: undefined,
    ...options,
    dispatch: (key) =>
      new Promise<void>((resolve, reject) => {
        // Recorded, not thrown: a throw here would only fail the dispatch.
        if (running.some((r) => r.key === key)) overlaps.push(key);
        onStart(key);
        running.push({
          key,
          settle: (fail) => {
            running.splice(
              running.findIndex((r) => r.key === key),
              1,
            );
            if (fail) reject(new Error('fail'));
            else resolve();
          },
        });
        maxRunning = Math.max(maxRunning, running.length);
      }),
  });
  processor.start();
  return {
    clock,
    processor,
    running,
    overlaps,
    maxRunning: () => maxRunning,
    /** Applies one step (a trigger, a delete, a dispatch settling, time passing), then lets the processor run. */
    async apply(s: Step): Promise<void> {
      if (s.kind === 'trigger') {
        triggers.next({ primaryIds: [ResourceID.of(s.key)], source: 'p', cause: { type: 'timer' } });
      } else if (s.kind === 'delete') {
        triggers.next({ primaryIds: [ResourceID.of(s.key)], source: 'p', cause: { type: 'primary-deleted' } });
      } else if (s.kind === 'finish' && running.length > 0) {
        running[s.pick % running.length]?.settle(s.fail);
      } else if (s.kind === 'advance') {
        await clock.advance(s.ms);
      }
      await tick();
    },
    /** Settles every dispatch and lets every delay fire until nothing is left to do. */
    async drain(): Promise<void> {
      for (let i = 0; i < 50 && (running.length > 0 || processor.queue.len() > 0 || clock.pendingTimers() > 0); i++) {
        for (const r of [...running]) r.settle(false);
        await clock.advance(100);
        await tick();
      }
    },
  };
}

describe('EventProcessor (properties)', () => {
  it('never overlaps reconciles of one primary, stays within concurrency, and reconciles every primary after its last trigger', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.array(step, { maxLength: 60 }), async (concurrency, steps) => {
        let seq = 0;
        const lastTrigger = new Map<string, number>();
        const lastStart = new Map<string, number>();
        const h = harness(concurrency, (key) => lastStart.set(key, seq++));
        for (const s of steps) {
          if (s.kind === 'trigger') lastTrigger.set(s.key, seq++);
          await h.apply(s);
        }
        await h.drain();
        expect(h.overlaps).to.deep.equal([]);
        expect(h.maxRunning()).to.be.at.most(concurrency);
        for (const [key, t] of lastTrigger) expect(lastStart.get(key) ?? -1, key).to.be.greaterThan(t);
        await h.processor.stop();
      }),
      { numRuns: 150 },
    );
  });

  it('keeps a per-primary record only while something is pending: none is left once all work is done, deletes included', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.array(withDeletes, { maxLength: 60 }), async (concurrency, steps) => {
        const h = harness(concurrency);
        const { processor } = h;
        for (const s of steps) {
          await h.apply(s);
          // Never more records than primaries: one record per primary, whatever it went through.
          expect(processor.trackedPrimaries()).to.be.at.most(3);
          // A deleted primary that is not being reconciled keeps nothing.
          if (s.kind === 'delete' && processor.stats().processing === 0) {
            expect(processor.pendingCauses(s.key), `causes of deleted ${s.key}`).to.equal(undefined);
          }
        }
        await h.drain();
        expect(h.overlaps).to.deep.equal([]);
        expect(processor.stats()).to.deep.equal({ queued: 0, processing: 0, delayed: 0 });
        expect(processor.trackedPrimaries(), 'records left once nothing is pending').to.equal(0);
        for (const key of ['a', 'b', 'c']) expect(processor.pendingCauses(key), key).to.equal(undefined);
        await processor.stop();
      }),
      { numRuns: 150 },
    );
  });

  it('lists a fired retry or reschedule as a cause the same whether the queue reports delays coming due or is asked', async () => {
    // The same queue with its onDelayedAdd hidden: the processor then asks delayOf at each dispatch.
    const asking = (options: ConstructorParameters<typeof WorkQueue>[0]): ReconcileQueue => {
      const queue = new WorkQueue(options);
      return new Proxy(queue, {
        get: (target, property) => {
          if (property === 'onDelayedAdd') return undefined;
          const value: unknown = Reflect.get(target, property, target);
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        },
      });
    };
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.array(withDeletes, { maxLength: 60 }), async (concurrency, steps) => {
        const runs = await Promise.all(
          [{}, { queue: asking }].map(async (queue) => {
            const started: string[] = [];
            const h = harness(concurrency, undefined, { maxReconciliationIntervalMs: 30, ...queue });
            h.processor.onEvent((e) => {
              if (e.type === 'started') started.push(`${e.key}:${e.causes.causes.map((c) => `${c.type}x${c.count}`).join(',')}`);
            });
            for (const s of steps) await h.apply(s);
            for (const r of [...h.running]) r.settle(false);
            await h.processor.stop();
            return started;
          }),
        );
        expect(runs[0]).to.deep.equal(runs[1]);
      }),
      { numRuns: 100 },
    );
  });
});
