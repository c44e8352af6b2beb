import { expect } from 'chai';
import { Subject } from 'rxjs';
import {
  EventProcessor,
  FakeClock,
  GenericRetry,
  ItemExponentialFailureRateLimiter,
  ReconcileTimeoutError,
  ResourceID,
  TerminalError,
  type DispatchRequest,
  type DispatchResult,
  type EventProcessorOptions,
  type ProcessingEvent,
  type Trigger,
} from '../index.js';

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

function trigger(...names: string[]): Trigger {
  return { primaryIds: names.map((n) => ResourceID.of(n, 'ns')), source: 'test', cause: { type: 'external', detail: 'test' } };
}

/** A dispatcher whose calls the test resolves or rejects by hand. */
class ManualDispatcher {
  readonly calls: { key: string; request: DispatchRequest; resolve: (r?: DispatchResult) => void; reject: (e: unknown) => void }[] = [];
  readonly running = new Map<string, number>();
  maxConcurrentPerKey = 0;

  readonly dispatch = (key: string, request: DispatchRequest): Promise<DispatchResult | void> => {
    const n = (this.running.get(key) ?? 0) + 1;
    this.running.set(key, n);
    this.maxConcurrentPerKey = Math.max(this.maxConcurrentPerKey, n);
    return new Promise<DispatchResult | void>((resolve, reject) => {
      const done = () => this.running.set(key, (this.running.get(key) ?? 1) - 1);
      this.calls.push({
        key,
        request,
        resolve: (r) => (done(), resolve(r)),
        reject: (e) => (done(), reject(e)),
      });
    });
  };

  callsOf(key: string) {
    return this.calls.filter((c) => c.key === key);
  }
}

function setup(options: Partial<EventProcessorOptions> = {}) {
  const clock = new FakeClock();
  const dispatcher = new ManualDispatcher();
  const source = new Subject<Trigger>();
  const exhausted: { key: string; error: unknown; attemptCount: number; terminal: boolean }[] = [];
  const processor = new EventProcessor({
    dispatch: dispatcher.dispatch,
    clock,
    sources: [source],
    rateLimiter: new ItemExponentialFailureRateLimiter({ baseDelayMs: 1, maxDelayMs: 1 }),
    maxReconciliationIntervalMs: undefined,
    reconcileTimeoutMs: undefined,
    onRetriesExhausted: (key, error, info) => {
      exhausted.push({ key, error, attemptCount: info.retryInfo.attemptCount, terminal: info.terminal });
    },
    ...options,
  });
  const events: ProcessingEvent[] = [];
  processor.events$.subscribe((e) => events.push(e));
  return { clock, dispatcher, source, processor, events, exhausted };
}

describe('EventProcessor', () => {
  it('reconciles a triggered primary through the dispatcher', async () => {
    const t = setup();
    t.processor.start();
    t.source.next(trigger('a'));
    await tick();
    expect(t.dispatcher.calls.map((c) => c.key)).to.deep.equal(['ns/a']);
    expect(t.dispatcher.calls[0]?.request.retryInfo).to.equal(undefined);
    t.dispatcher.calls[0]?.resolve();
    await tick();
    expect(t.events.map((e) => e.type)).to.deep.equal(['enqueued', 'started', 'finished']);
    await t.processor.stop();
  });

  it('reports a dispatch that called no reconciler as a success carrying the reason, and a reconcile without one', async () => {
    const t = setup();
    t.processor.start();
    t.source.next(trigger('a', 'b'));
    await tick();
    t.dispatcher.callsOf('ns/a')[0]?.resolve({ skipped: 'not-cached' });
    t.dispatcher.callsOf('ns/b')[0]?.resolve();
    await tick();
    const outcomes = t.events.flatMap((e) => (e.type === 'finished' ? [[e.key, e.outcome]] : []));
    expect(outcomes).to.deep.equal([
      ['ns/a', { type: 'success', rescheduleAfterMs: undefined, skipped: 'not-cached' }],
      ['ns/b', { type: 'success', rescheduleAfterMs: undefined }],
    ]);
    await t.processor.stop();
  });

  it('queues triggers that arrive before start', async () => {
    const t = setup();
    t.source.next(trigger('early'));
    await tick();
    expect(t.dispatcher.calls).to.have.length(0);
    t.processor.start();
    await tick();
    expect(t.dispatcher.calls.map((c) => c.key)).to.deep.equal(['ns/early']);
    t.dispatcher.calls[0]?.resolve();
    await t.processor.stop();
  });

  it('never runs one primary concurrently under a burst of 1,000 triggers and reconciles after the last', async () => {
    const t = setup({ concurrency: 4 });
    t.processor.start();
    let lastTriggerAt = -1;
    for (let i = 0; i < 1000; i++) {
      t.source.next(trigger('a'));
      lastTriggerAt = t.dispatcher.calls.length;
      if (i % 97 === 0) {
        await tick();
        // finish whatever is running, in the middle of the burst
        for (const c of t.dispatcher.calls) c.resolve();
      }
    }
    for (let round = 0; round < 10; round++) {
      await tick();
      for (const c of t.dispatcher.calls) c.resolve();
    }
    expect(t.dispatcher.maxConcurrentPerKey).to.equal(1);
    // a call started after the last trigger was sent
    expect(t.dispatcher.calls.length).to.be.greaterThan(lastTriggerAt);
    expect(t.dispatcher.calls.length).to.be.lessThan(30);
    await t.processor.stop();
  });

  it('coalesces triggers during a reconcile into exactly one follow-up', async () => {
    const t = setup();
    t.processor.start();
    t.source.next(trigger('a'));
    await tick();
    for (let i = 0; i < 50; i++) t.source.next(trigger('a'));
    await tick();
    expect(t.dispatcher.calls).to.have.length(1);
    t.dispatcher.calls[0]?.resolve();
    await tick();
    expect(t.dispatcher.calls).to.have.length(2);
    t.dispatcher.calls[1]?.resolve();
    await tick();
    await tick();
    expect(t.dispatcher.calls).to.have.length(2);
    await t.processor.stop();
  });

  it('retries a failure with backoff, passing retry info, until the attempts run out, then calls the hook once', async () => {
    const t = setup({ retry: new GenericRetry({ maxAttempts: 3, initialIntervalMs: 100, intervalMultiplier: 2 }) });
    t.processor.start();
    t.source.next(trigger('a'));
    await tick();
    const delays: number[] = [];
    for (let attempt = 0; attempt < 4; attempt++) {
      const call = t.dispatcher.calls[attempt];
      expect(call, `attempt ${attempt}`).to.not.equal(undefined);
      if (attempt > 0) expect(call?.request.retryInfo).to.deep.equal({ attemptCount: attempt, isLastAttempt: attempt === 3 });
      call?.reject(new Error(`fail ${attempt}`));
      await tick();
      const scheduled = t.events.filter((e) => e.type === 'retry-scheduled').at(-1);
      if (attempt < 3 && scheduled?.type === 'retry-scheduled') {
        delays.push(scheduled.delayMs);
        await t.clock.advance(scheduled.delayMs - 1);
        expect(t.dispatcher.calls).to.have.length(attempt + 1);
        await t.clock.advance(1);
      }
    }
    expect(delays).to.deep.equal([100, 200, 400]);
    await t.clock.advance(100_000);
    expect(t.dispatcher.calls).to.have.length(4);
    expect(t.exhausted).to.have.length(1);
    expect(t.exhausted[0]).to.include({ key: 'ns/a', attemptCount: 3, terminal: false });
    expect((t.exhausted[0]?.error as Error).message).to.equal('fail 3');
    await t.processor.stop();
  });

  it('does not retry a TerminalError and reports it to the hook at once', async () => {
    const t = setup();
    t.processor.start();
    t.source.next(trigger('a'));
    await tick();
    t.dispatcher.calls[0]?.reject(new TerminalError('bad spec', { objectKey: 'ns/a', field: 'spec.x' }));
    await tick();
    await t.clock.advance(1_000_000);
    expect(t.dispatcher.calls).to.have.length(1);
    expect(t.exhausted).to.have.length(1);
    expect(t.exhausted[0]).to.include({ terminal: true, attemptCount: 0 });
    const finished = t.events.find((e) => e.type === 'finished');
    expect(finished?.type === 'finished' && finished.outcome.type === 'error' && finished.outcome.terminal).to.equal(true);
    await t.processor.stop();
  });

  it('starts a fresh retry streak after a success', async () => {
    const t = setup({ retry: new GenericRetry({ maxAttempts: 5, initialIntervalMs: 10 }) });
    t.processor.start();
    t.source.next(trigger('a'));
    await tick();
    t.dispatcher.calls[0]?.reject(new Error('x'));
    await t.clock.advance(10);
    expect(t.dispatcher.calls[1]?.request.retryInfo?.attemptCount).to.equal(1);
    t.dispatcher.calls[1]?.resolve();
    await tick();
    t.source.next(trigger('a'));
    await tick();
    expect(t.dispatcher.calls[2]?.request.retryInfo).to.equal(undefined);
    t.dispatcher.calls[2]?.resolve();
    await t.processor.stop();
  });

  it('keeps other primaries moving while one reconcile hangs and another throws', async () => {
    const t = setup({ concurrency: 2, reconcileTimeoutMs: 1000 });
    t.processor.start();
    t.source.next(trigger('hang', 'boom', 'b', 'c'));
    await tick();
    expect(t.dispatcher.calls.map((c) => c.key)).to.deep.equal(['ns/hang', 'ns/boom']);
    t.dispatcher.calls[1]?.reject(new Error('boom'));
    await tick();
    expect(t.dispatcher.calls.map((c) => c.key)).to.deep.equal(['ns/hang', 'ns/boom', 'ns/b']);
    t.dispatcher.calls[2]?.resolve();
    await tick();
    expect(t.dispatcher.callsOf('ns/c')).to.have.length(1);
    t.dispatcher.callsOf('ns/c')[0]?.resolve();
    // 'hang' still holds a worker; time it out so a second worker is free again
    await t.clock.advance(1000);
    const hung = t.dispatcher.callsOf('ns/hang')[0];
    expect(hung?.request.signal.aborted).to.equal(true);
    expect(hung?.request.signal.reason).to.be.instanceOf(ReconcileTimeoutError);
    expect(t.events.some((e) => e.type === 'timed-out' && e.key === 'ns/hang')).to.equal(true);
    t.source.next(trigger('d', 'e'));
    await tick();
    expect(t.dispatcher.callsOf('ns/d')).to.have.length(1);
    t.dispatcher.callsOf('ns/d')[0]?.resolve();
    await tick();
    expect(t.dispatcher.callsOf('ns/e')).to.have.length(1);
    t.dispatcher.callsOf('ns/e')[0]?.resolve();
    await tick();
    hung?.resolve();
    await t.processor.stop();
  });

  it('times out each attempt at its own deadline, with one timer for all of them', async () => {
    const t = setup({ concurrency: 3, reconcileTimeoutMs: 100 });
    t.processor.start();
    t.source.next(trigger('first'));
    await tick();
    await t.clock.advance(40);
    t.source.next(trigger('second', 'quick'));
    await tick();
    expect(t.clock.pendingTimers(), 'one timer for three attempts').to.equal(1);
    t.dispatcher.callsOf('ns/quick')[0]?.resolve();
    await tick();
    const timedOut = () => t.events.filter((e) => e.type === 'timed-out').map((e) => (e as { key: string }).key);
    await t.clock.advance(59);
    expect(timedOut()).to.deep.equal([]);
    await t.clock.advance(1);
    expect(timedOut()).to.deep.equal(['ns/first']);
    expect(t.dispatcher.callsOf('ns/second')[0]?.request.signal.aborted).to.equal(false);
    await t.clock.advance(39);
    expect(timedOut()).to.deep.equal(['ns/first']);
    await t.clock.advance(1);
    expect(timedOut()).to.deep.equal(['ns/first', 'ns/second']);
    expect(t.dispatcher.callsOf('ns/second')[0]?.request.signal.reason).to.be.instanceOf(ReconcileTimeoutError);
    expect(t.clock.pendingTimers(), 'nothing left to time').to.equal(0);
    for (const call of t.dispatcher.calls) call.resolve();
    await tick();
    await t.processor.stop();
  });

  it('does not reconcile a timed-out primary again until its hung call settles, then retries it', async () => {
    const t = setup({ concurrency: 2, reconcileTimeoutMs: 1000, retry: new GenericRetry({ initialIntervalMs: 50 }) });
    t.processor.start();
    t.source.next(trigger('hang'));
    await tick();
    await t.clock.advance(1000);
    t.source.next(trigger('hang'));
    await t.clock.advance(10_000);
    expect(t.dispatcher.callsOf('ns/hang')).to.have.length(1);
    expect(t.dispatcher.maxConcurrentPerKey).to.equal(1);
    t.dispatcher.callsOf('ns/hang')[0]?.resolve();
    await tick();
    const finished = t.events.find((e) => e.type === 'finished');
    expect(finished?.type === 'finished' && finished.outcome.type === 'error' && finished.outcome.timedOut).to.equal(true);
    // the coalesced trigger runs at once, as a retry
    expect(t.dispatcher.callsOf('ns/hang')).to.have.length(2);
    expect(t.dispatcher.callsOf('ns/hang')[1]?.request.retryInfo?.attemptCount).to.equal(1);
    t.dispatcher.callsOf('ns/hang')[1]?.resolve();
    await t.processor.stop();
  });

  it('drops the pending work of a deleted primary, including retries and the in-flight follow-up', async () => {
    const t = setup({ retry: new GenericRetry({ initialIntervalMs: 10 }) });
    t.processor.start();
    t.source.next(trigger('a'));
    await tick();
    t.source.next(trigger('a')); // follow-up pending
    t.source.next({ primaryIds: [ResourceID.of('a', 'ns')], source: 'primary', cause: { type: 'primary-deleted' } });
    t.dispatcher.calls[0]?.reject(new Error('failed while being deleted'));
    await tick();
    await t.clock.advance(100_000);
    expect(t.dispatcher.calls).to.have.length(1);
    expect(t.events.some((e) => e.type === 'dropped' && e.key === 'ns/a')).to.equal(true);
    expect(t.events.some((e) => e.type === 'retry-scheduled')).to.equal(false);
    // a trigger after the delete (re-created primary) is processed normally
    t.source.next(trigger('a'));
    await tick();
    expect(t.dispatcher.calls).to.have.length(2);
    t.dispatcher.calls[1]?.resolve();
    await t.processor.stop();
  });

  it('drops a queued primary and its reschedule when deleted', async () => {
    const t = setup({ concurrency: 1 });
    t.processor.start();
    t.source.next(trigger('x', 'y'));
    await tick();
    t.processor.primaryDeleted(ResourceID.of('y', 'ns'));
    t.dispatcher.calls[0]?.resolve();
    await tick();
    await tick();
    expect(t.dispatcher.calls.map((c) => c.key)).to.deep.equal(['ns/x']);
    await t.processor.stop();
  });

  it('reschedules after the requested delay, bounded by the max reconciliation interval', async () => {
    const t = setup({ maxReconciliationIntervalMs: 5000 });
    t.processor.start();
    t.source.next(trigger('a', 'b'));
    await tick();
    expect(t.processor.stats()).to.deep.equal({ queued: 0, processing: 2, delayed: 0 });
    t.dispatcher.callsOf('ns/a')[0]?.resolve({ rescheduleAfterMs: 300 });
    t.dispatcher.callsOf('ns/b')[0]?.resolve({ rescheduleAfterMs: 60_000 });
    await tick();
    // The requested 300 ms is a delay of its own; 60 s is beyond the interval: the sweep's.
    expect(t.processor.stats()).to.deep.equal({ queued: 0, processing: 0, delayed: 1 });
    await t.clock.advance(299);
    expect(t.dispatcher.calls).to.have.length(2);
    await t.clock.advance(1);
    expect(t.dispatcher.callsOf('ns/a')).to.have.length(2);
    t.dispatcher.callsOf('ns/a')[1]?.resolve();
    await t.clock.advance(4699);
    expect(t.dispatcher.callsOf('ns/b')).to.have.length(1); // never before the interval
    // The sweep's bound: 11 steps of interval / 64 late at most.
    await t.clock.advance(1 + Math.ceil((11 * 5000) / 64));
    expect(t.dispatcher.callsOf('ns/b')).to.have.length(2);
    expect(t.dispatcher.callsOf('ns/b')[1]?.request.causes.causes.map((c) => `${c.type}:${c.source}`)).to.deep.equal([
      'reschedule:max-interval',
    ]);
    const reasons = t.events.flatMap((e) => (e.type === 'rescheduled' ? [[e.key, e.delayMs, e.reason]] : []));
    expect(reasons.slice(0, 2)).to.deep.equal([
      ['ns/a', 300, 'requested'],
      ['ns/b', 0, 'max-interval'],
    ]);
    // ns/a, reconciled at 300 ms, came due meanwhile too.
    for (const call of t.dispatcher.calls.slice(3)) call.resolve();
    await t.processor.stop();
  });

  it('replaces a pending reschedule after a success without one', async () => {
    const t = setup();
    t.processor.start();
    t.source.next(trigger('a'));
    await tick();
    t.dispatcher.calls[0]?.resolve({ rescheduleAfterMs: 1000 });
    await tick();
    t.source.next(trigger('a'));
    await tick();
    t.dispatcher.calls[1]?.resolve();
    await t.clock.advance(10_000);
    expect(t.dispatcher.calls).to.have.length(2);
    await t.processor.stop();
  });

  it('waits for in-flight reconciles on stop and ignores later triggers', async () => {
    const t = setup();
    t.processor.start();
    t.source.next(trigger('a'));
    await tick();
    let stopped = false;
    const stopping = t.processor.stop().then(() => (stopped = true));
    await tick();
    expect(stopped).to.equal(false);
    t.source.next(trigger('b'));
    t.dispatcher.calls[0]?.resolve();
    await stopping;
    expect(t.dispatcher.calls).to.have.length(1);
  });

  it('gives up draining after drainTimeoutMs and aborts the stragglers', async () => {
    const t = setup();
    t.processor.start();
    t.source.next(trigger('a'));
    await tick();
    const stopping = t.processor.stop({ drainTimeoutMs: 500 });
    await t.clock.advance(500);
    await stopping;
    expect(t.dispatcher.calls[0]?.request.signal.aborted).to.equal(true);
  });

  it('detaches a trigger stream that errors and keeps the others', async () => {
    const t = setup();
    const broken = new Subject<Trigger>();
    t.processor.addSource(broken);
    t.processor.start();
    broken.error(new Error('source broke'));
    t.source.next(trigger('a'));
    await tick();
    expect(t.events.some((e) => e.type === 'source-failed')).to.equal(true);
    expect(t.dispatcher.calls).to.have.length(1);
    t.dispatcher.calls[0]?.resolve();
    await t.processor.stop();
  });

  it('skips a malformed trigger and keeps listening', async () => {
    const t = setup();
    t.processor.start();
    t.source.next({ primaryIds: [undefined as unknown as ResourceID], source: 'bad', cause: { type: 'timer' } });
    t.source.next({ primaryIds: null as unknown as ResourceID[], source: 'bad', cause: { type: 'timer' } });
    t.source.next(trigger('a'));
    await tick();
    expect(t.events.filter((e) => e.type === 'source-failed')).to.have.length(2);
    expect(t.dispatcher.calls.map((c) => c.key)).to.deep.equal(['ns/a']);
    t.dispatcher.calls[0]?.resolve();
    await t.processor.stop();
  });

  it('reports a throwing retries-exhausted hook without blocking the primary', async () => {
    const t = setup({
      retry: GenericRetry.noRetry(),
      onRetriesExhausted: () => {
        throw new Error('hook broke');
      },
    });
    t.processor.start();
    t.source.next(trigger('a'));
    await tick();
    t.dispatcher.calls[0]?.reject(new Error('x'));
    await tick();
    expect(t.events.some((e) => e.type === 'hook-failed')).to.equal(true);
    t.source.next(trigger('a'));
    await tick();
    expect(t.dispatcher.calls).to.have.length(2);
    t.dispatcher.calls[1]?.resolve();
    await t.processor.stop();
  });

  it('exposes the merged triggers as an observable', async () => {
    const t = setup();
    const seen: Trigger[] = [];
    t.processor.triggers$.subscribe((tr) => seen.push(tr));
    t.source.next(trigger('a'));
    expect(seen).to.have.length(1);
    await t.processor.stop();
  });
});
