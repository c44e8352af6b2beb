import { expect } from 'chai';
import {
  EventProcessor,
  FakeClock,
  GenericRetry,
  ItemExponentialFailureRateLimiter,
  MapReconcileStamps,
  ResourceID,
  type DispatchResult,
  type EventProcessorOptions,
  type ProcessingEvent,
} from '../index.js';

const INTERVAL = 6_400;
/** The sweep's step for that interval (interval / 64) and its lateness bound (11 steps). */
const STEP = INTERVAL / 64;
const LATE = 11 * STEP;
const tick = (): Promise<void> => new Promise((r) => setImmediate(r));
const key = (name: string): string => ResourceID.of(name, 'ns').key;

/** A processor whose dispatches succeed at once, recording each key with the time and causes. */
function setup(options: Partial<EventProcessorOptions> = {}, result: (key: string) => DispatchResult | void = () => {}) {
  const clock = new FakeClock(1_000_000);
  const calls: { key: string; at: number; causes: string[] }[] = [];
  const processor = new EventProcessor({
    clock,
    maxReconciliationIntervalMs: INTERVAL,
    reconcileTimeoutMs: undefined,
    ...options,
    dispatch: (k, request) => {
      calls.push({ key: k, at: clock.now(), causes: request.causes.causes.map((c) => `${c.type}:${c.source}`) });
      return result(k);
    },
  });
  const events: ProcessingEvent[] = [];
  processor.onEvent((e) => events.push(e));
  const callsOf = (k: string) => calls.filter((c) => c.key === k);
  return { clock, processor, calls, callsOf, events };
}

describe('EventProcessor max reconciliation interval (the sweep)', () => {
  it('reconciles a primary idle for the interval once, at low priority, with a max-interval cause', async () => {
    const t = setup({ queue: 'priority' });
    t.processor.start();
    t.processor.enqueue(key('a'));
    await tick();
    await t.clock.advance(INTERVAL - 1);
    expect(t.callsOf(key('a'))).to.have.length(1);
    await t.clock.advance(1 + LATE);
    expect(t.callsOf(key('a'))).to.have.length(2);
    const swept = t.callsOf(key('a'))[1]!;
    expect(swept.causes).to.deep.equal(['reschedule:max-interval']);
    expect(swept.at - t.callsOf(key('a'))[0]!.at).to.be.within(INTERVAL + 1, INTERVAL + LATE);
    const rescheduled = t.events.filter((e) => e.type === 'rescheduled');
    expect(rescheduled).to.deep.equal([{ type: 'rescheduled', key: key('a'), delayMs: 0, reason: 'max-interval' }]);
    await t.processor.stop();
  });

  it('does not sweep a primary reconciled within the interval', async () => {
    const t = setup();
    t.processor.start();
    t.processor.enqueue(key('a'));
    t.processor.enqueue(key('b'));
    await tick();
    await t.clock.advance(INTERVAL / 2);
    t.processor.enqueue(key('b')); // b's event: its interval starts again
    await tick();
    await t.clock.advance(INTERVAL / 2 + LATE);
    expect(t.callsOf(key('a'))).to.have.length(2);
    expect(t.callsOf(key('b'))).to.have.length(2);
    await t.clock.advance(INTERVAL / 2 - LATE - 1);
    expect(t.callsOf(key('b'))).to.have.length(2);
    await t.processor.stop();
  });

  it('queues no pending delay per primary: the safety net costs one timer for all of them', async () => {
    const t = setup();
    t.processor.start();
    for (let i = 0; i < 500; i++) t.processor.enqueue(key(`p${i}`));
    await tick();
    expect(t.calls).to.have.length(500);
    expect(t.processor.stats()).to.deep.equal({ queued: 0, processing: 0, delayed: 0 });
    expect(t.processor.trackedPrimaries()).to.equal(0);
    expect(t.clock.pendingTimers()).to.equal(1);
    await t.processor.stop();
  });

  it('keeps a requested reschedule shorter than the interval exact, and sweeps one beyond it', async () => {
    const t = setup({}, (k) => (k === key('a') ? { rescheduleAfterMs: 1_000 } : { rescheduleAfterMs: INTERVAL * 10 }));
    t.processor.start();
    t.processor.enqueue(key('a'));
    t.processor.enqueue(key('b'));
    await tick();
    expect(t.processor.stats().delayed).to.equal(1);
    await t.clock.advance(1_000);
    expect(t.callsOf(key('a')).map((c) => c.at - 1_000_000)).to.deep.equal([0, 1_000]);
    await t.clock.advance(INTERVAL - 1_000 + LATE);
    expect(t.callsOf(key('b'))).to.have.length(2);
    await t.processor.stop();
  });

  it('never enqueues more than its backlog of sweep entries at once, and refills as the queue drains', async () => {
    const t = setup();
    const n = 3_000;
    let maxQueued = 0;
    t.processor.start();
    for (let i = 0; i < n; i++) t.processor.enqueue(key(`p${i}`));
    for (let turns = 0; turns < 10 && t.calls.length < n; turns++) await tick(); // it yields every 1,024
    expect(t.calls).to.have.length(n);
    // Paused (a follower): everything comes due and nothing drains.
    t.processor.pause();
    for (let ms = 0; ms < INTERVAL + LATE; ms += STEP) {
      await t.clock.advance(STEP);
      maxQueued = Math.max(maxQueued, t.processor.stats().queued);
    }
    expect(maxQueued).to.equal(1024);
    t.processor.resume();
    for (let ms = 0; ms < LATE && t.calls.length < 2 * n; ms += STEP) await t.clock.advance(STEP);
    expect(t.calls).to.have.length(2 * n);
    expect(new Set(t.calls.slice(n).map((c) => c.key)).size).to.equal(n);
    await t.processor.stop();
  });

  it('leaves no timer running after stop', async () => {
    const t = setup();
    t.processor.start();
    t.processor.enqueue(key('a'));
    await tick();
    expect(t.clock.pendingTimers()).to.equal(1);
    await t.processor.stop();
    expect(t.clock.pendingTimers()).to.equal(0);
    await t.clock.advance(INTERVAL * 2);
    expect(t.calls).to.have.length(1);
  });

  it('leaves a failing primary to its retries, and sweeps it once they are exhausted', async () => {
    let failing = true;
    const t = setup(
      {
        retry: new GenericRetry({ maxAttempts: 2, initialIntervalMs: INTERVAL * 2, intervalMultiplier: 1 }),
        rateLimiter: new ItemExponentialFailureRateLimiter({ baseDelayMs: 1, maxDelayMs: 1 }),
      },
      () => {
        if (failing) throw new Error('boom');
      },
    );
    t.processor.start();
    t.processor.enqueue(key('a'));
    await tick();
    // The retry waits twice the interval: the sweep must not run it before.
    await t.clock.advance(INTERVAL * 2 - 1);
    expect(t.calls).to.have.length(1);
    await t.clock.advance(1);
    expect(t.calls).to.have.length(2);
    await t.clock.advance(INTERVAL * 2);
    expect(t.calls).to.have.length(3); // the last attempt: exhausted
    failing = false;
    await t.clock.advance(INTERVAL + LATE);
    expect(t.calls).to.have.length(4);
    expect(t.calls[3]!.causes).to.deep.equal(['reschedule:max-interval']);
    await t.processor.stop();
  });

  it('forgets a deleted primary', async () => {
    const t = setup();
    t.processor.start();
    t.processor.enqueue(key('a'));
    await tick();
    t.processor.primaryDeleted(key('a'));
    await t.clock.advance(INTERVAL * 2);
    expect(t.calls).to.have.length(1);
    await t.processor.stop();
  });

  it('forgets a primary whose dispatch found it not cached (it left the namespaces or shards)', async () => {
    const stamps = new MapReconcileStamps();
    const t = setup({ reconcileStamps: stamps }, (k) => (k === key('gone') ? { skipped: 'not-cached' } : undefined));
    t.processor.start();
    t.processor.enqueue(key('gone'));
    t.processor.enqueue(key('here'));
    await tick();
    expect(stamps.size).to.equal(1);
    await t.clock.advance(INTERVAL + LATE);
    expect(t.calls.map((c) => c.key)).to.deep.equal([key('gone'), key('here'), key('here')]);
    await t.processor.stop();
  });

  it('stamps into the reconcileStamps given, and reports when a primary comes due', async () => {
    const stamps = new MapReconcileStamps();
    const t = setup({ reconcileStamps: stamps });
    expect(t.processor.maxIntervalDueAt(key('a'))).to.equal(undefined);
    t.processor.start();
    t.processor.enqueue(key('a'));
    await tick();
    expect(stamps.size).to.equal(1);
    expect(stamps.stampOf(key('a'))).to.be.above(0);
    const due = t.processor.maxIntervalDueAt(key('a'))!;
    expect(due - t.clock.now()).to.be.within(INTERVAL, INTERVAL + 2 * STEP);
    await t.processor.stop();
  });

  it('stamps a primary the stamps hold without a reconcile when first walked, and sweeps it an interval later', async () => {
    const stamps = new MapReconcileStamps();
    stamps.stamp(key('known'), 0);
    const t = setup({ reconcileStamps: stamps });
    t.processor.start();
    await t.clock.advance(2 * STEP);
    expect(stamps.stampOf(key('known'))).to.be.above(0);
    await t.clock.advance(INTERVAL - 2 * STEP);
    expect(t.calls).to.have.length(0);
    await t.clock.advance(LATE + 2 * STEP);
    expect(t.calls.map((c) => c.key)).to.deep.equal([key('known')]);
    await t.processor.stop();
  });
});

describe('MapReconcileStamps', () => {
  it('walks in slices from where the last walk stopped, and starts a new pass after the end', () => {
    const stamps = new MapReconcileStamps();
    for (const k of ['a', 'b', 'c']) stamps.stamp(k, 1);
    const seen: string[] = [];
    const visit = (k: string): boolean => (seen.push(k), true);
    expect(stamps.walk(2, visit)).to.equal(false);
    expect(seen).to.deep.equal(['a', 'b']);
    expect(stamps.walk(2, visit)).to.equal(true);
    expect(seen).to.deep.equal(['a', 'b', 'c']);
    stamps.walk(1, visit);
    expect(seen.at(-1)).to.equal('a');
  });

  it('visits first the primary a walk stopped before, with its current stamp, unless it was forgotten', () => {
    const stamps = new MapReconcileStamps();
    for (const k of ['a', 'b']) stamps.stamp(k, 1);
    expect(stamps.walk(2, (k) => k !== 'a')).to.equal(false);
    stamps.stamp('a', 9);
    const seen: [string, number][] = [];
    stamps.walk(1, (k, t) => (seen.push([k, t]), true));
    expect(seen).to.deep.equal([['a', 9]]);
    stamps.walk(1, (k) => k !== 'b');
    stamps.forget('b');
    stamps.walk(5, (k) => (seen.push([k, 0]), true));
    expect(seen.map(([k]) => k)).to.deep.equal(['a']);
  });
});
