import { expect } from 'chai';
import fc from 'fast-check';
import { Subject } from 'rxjs';
import { EventProcessor, FakeClock, GenericRetry, ItemExponentialFailureRateLimiter, ResourceID, type Trigger } from '../index.js';

type Step = { kind: 'trigger'; key: string } | { kind: 'finish'; pick: number; fail: boolean } | { kind: 'advance'; ms: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('trigger' as const), key: fc.constantFrom('a', 'b', 'c') }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('finish' as const), pick: fc.nat(), fail: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 50 }) }) },
);

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('EventProcessor (properties)', () => {
  it('never overlaps reconciles of one primary, stays within concurrency, and reconciles every primary after its last trigger', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 3 }), fc.array(step, { maxLength: 60 }), async (concurrency, steps) => {
        const clock = new FakeClock();
        const triggers = new Subject<Trigger>();
        let seq = 0;
        const lastTrigger = new Map<string, number>();
        const lastStart = new Map<string, number>();
        const running: { key: string; settle: (fail: boolean) => void }[] = [];
        let maxRunning = 0;
        const overlaps: string[] = [];
        const processor = new EventProcessor({
          concurrency,
          clock,
          sources: [triggers],
          retry: new GenericRetry({ maxAttempts: 2, initialIntervalMs: 10 }),
          rateLimiter: new ItemExponentialFailureRateLimiter({ baseDelayMs: 1, maxDelayMs: 1 }),
          maxReconciliationIntervalMs: undefined,
          reconcileTimeoutMs: undefined,
          dispatch: (key) =>
            new Promise<void>((resolve, reject) => {
              // Recorded, not thrown: a throw here would only fail the dispatch.
              if (running.some((r) => r.key === key)) overlaps.push(key);
              lastStart.set(key, seq++);
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
        for (const s of steps) {
          if (s.kind === 'trigger') {
            lastTrigger.set(s.key, seq++);
            triggers.next({ primaryIds: [ResourceID.of(s.key)], source: 'p', cause: { type: 'timer' } });
          } else if (s.kind === 'finish' && running.length > 0) {
            running[s.pick % running.length]?.settle(s.fail);
          } else if (s.kind === 'advance') {
            await clock.advance(s.ms);
          }
          await tick();
        }
        for (let i = 0; i < 50 && (running.length > 0 || processor.queue.len() > 0 || clock.pendingTimers() > 0); i++) {
          for (const r of [...running]) r.settle(false);
          await clock.advance(100);
        }
        expect(overlaps).to.deep.equal([]);
        expect(maxRunning).to.be.at.most(concurrency);
        for (const [key, t] of lastTrigger) expect(lastStart.get(key) ?? -1, key).to.be.greaterThan(t);
        await processor.stop();
      }),
      { numRuns: 150 },
    );
  });
});
