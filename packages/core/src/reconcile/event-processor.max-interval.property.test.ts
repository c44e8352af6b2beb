import { expect } from 'chai';
import fc from 'fast-check';
import { EventProcessor, FakeClock, ResourceID } from '../index.js';

type Step =
  { kind: 'trigger'; name: string } | { kind: 'wave'; count: number } | { kind: 'delete'; name: string } | { kind: 'wait'; steps: number };

// More primaries than steps to a pass (8), so the walk is paced over several steps.
const name = fc.integer({ min: 0, max: 23 }).map((i) => `p${i}`);
const steps: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('trigger' as const), name }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('wave' as const), count: fc.integer({ min: 9, max: 24 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), name }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('wait' as const), steps: fc.integer({ min: 1, max: 100 }) }) },
);

/**
 * The sweep against the model it replaces (a timer per primary, set to the interval at each
 * reconcile): no primary goes longer than the interval plus the sweep's bound (11 steps of
 * min(interval / 64, 7.5 s)) without a reconcile, and none is swept before its interval.
 */
describe('EventProcessor max-interval sweep (property)', () => {
  it('reconciles every primary within interval + 11 steps of its last reconcile, and never sweeps one early', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.integer({ min: 64, max: 20_000 }), fc.integer({ min: 480_000, max: 2_000_000 })),
        fc.integer({ min: 0, max: 1e12 }),
        fc.array(steps, { maxLength: 60 }),
        async (interval, start, script) => {
          const clock = new FakeClock(start);
          const step = Math.min(interval / 64, 7_500);
          const bound = interval + 11 * step;
          /** The model: each live primary's last reconcile. */
          const last = new Map<string, number>();
          const problems: string[] = [];
          const processor = new EventProcessor({
            clock,
            maxReconciliationIntervalMs: interval,
            reconcileTimeoutMs: undefined,
            dispatch: (key, request) => {
              const now = clock.now();
              const swept = request.causes.causes.every((c) => c.source === 'max-interval');
              const before = last.get(key);
              if (swept && (before === undefined || now - before < interval))
                problems.push(`${key} swept ${before === undefined ? 'while deleted' : `after ${now - before} ms`}`);
              last.set(key, now);
            },
          });
          processor.start();
          const check = () => {
            for (const [key, at] of last) {
              if (clock.now() - at > bound) problems.push(`${key} not reconciled for ${clock.now() - at} ms (bound ${bound})`);
            }
          };
          for (const s of script) {
            const key = s.kind === 'trigger' || s.kind === 'delete' ? ResourceID.of(s.name, 'ns').key : '';
            if (s.kind === 'trigger') processor.enqueue(key);
            else if (s.kind === 'wave') for (let i = 0; i < s.count; i++) processor.enqueue(ResourceID.of(`p${i}`, 'ns'));
            else if (s.kind === 'delete') {
              processor.primaryDeleted(key);
              last.delete(key);
            } else {
              for (let i = 0; i < s.steps; i++) {
                await clock.advance(step);
                check();
              }
            }
            await clock.advance(0);
          }
          await processor.stop();
          expect(problems).to.deep.equal([]);
        },
      ),
      // Besides random scripts: a wave of 24 primaries due at once, the case the pacing is for.
      {
        numRuns: 60,
        examples: [
          [
            6_400,
            0,
            [
              { kind: 'wave', count: 24 },
              { kind: 'wait', steps: 100 },
            ],
          ],
        ],
      },
    );
  });
});
