import type { Observable } from 'rxjs';
import { Listeners } from '../event/listeners.js';
import { systemClock, type Clock } from '../queue/clock.js';
import type { RetryInfo } from '../queue/retry.js';
import { ResourceID } from '../resource/resource-id.js';
import type { EventSource } from '../source/event-source.js';
import type { Trigger } from '../source/trigger.js';
import type { TriggerSink } from '../source/trigger-sink.js';
import { processingConfiguration, type ProcessingConfiguration } from './controller-configuration.js';
import { AttemptFollowUp } from './internal/attempt-follow-up.js';
import { AttemptRequest } from './internal/attempt-request.js';
import { AttemptTimeouts, errorOutcome, isThenable, successOutcome, type Attempt } from './internal/attempt.js';
import { LazyAbortController } from './internal/lazy-abort-controller.js';
import { MaxIntervalSweep } from './internal/max-interval-sweep.js';
import { PendingCauses } from './internal/pending-causes.js';
import { PrimaryStates, type PrimaryState } from './internal/primary-state.js';
import { settledWithin } from './internal/within-timeout.js';
import type { ProcessingEvent, ReconcileOutcome } from './processing-event.js';
import type { ReconcileCauses } from './reconcile-cause.js';
import { createReconcileQueue, type ReconcileQueue } from './reconcile-queue.js';
import { MapReconcileStamps } from './reconcile-stamps.js';
import { ReconcileTimeoutError } from './reconcile-timeout-error.js';
import type { DispatchResult, EventProcessorOptions, ReconcileDispatcher, StopOptions } from './event-processor-options.js';

/** Keys taken in a chain of microtasks before the processor lets the event loop turn (see `#takenSinceInput`). */
const YIELD_EVERY = 1024;
/** Takes go through a settled promise: `queueMicrotask` wraps each callback in an `AsyncResource` (75 against 25 ns). */
const settled = Promise.resolve();

/**
 * Turns triggers into reconciles: the engine room of a controller (JOSDK `EventProcessor`,
 * controller-runtime's internal controller).
 *
 * Pipeline: each source hands its triggers over by a direct call (the processor is the
 * {@link TriggerSink} of a source that has `connect`, so the source calls
 * {@link EventProcessor.accept}; else the processor listens through `onTrigger`; a source with
 * neither is subscribed through `triggers$`, and one whose stream errors is detached and
 * reported, the others go on); each primary ID goes, at the trigger's `priority`, into the
 * injected {@link ReconcileQueue} (the `queue` option: FIFO {@link WorkQueue} by default);
 * when the queue announces a waiting key, the processor takes keys (in a microtask, never inside
 * the source's call) while fewer than `concurrency` attempts run, and calls the dispatcher: a
 * pull by direct call (JOSDK's executor hand-off), no worker loop awaiting a promise per key. {@link EventProcessor.triggers$} and
 * {@link EventProcessor.events$} are derived for whoever subscribes; `onQueuedTrigger` and
 * `onEvent` give the same by a direct call.
 *
 * Guarantees:
 * - A primary is never dispatched while an earlier dispatch for it is unsettled, even after a
 *   timeout; triggers meanwhile coalesce into exactly one follow-up.
 * - A failure retries per `retry` (the wait is the longer of the retry delay and the
 *   `rateLimiter` wait); when no retry is left, `onRetriesExhausted` runs once, and the primary
 *   is tried again at the max reconciliation interval (nothing stops for good).
 * - Success ends the failure streak and replaces pending delays with the requested reschedule
 *   (when shorter than the max reconciliation interval).
 * - The max reconciliation interval is one sweep, not a delay per primary: a timer walks the
 *   `reconcileStamps` and queues (low priority, cause `reschedule` from `max-interval`) each
 *   primary not reconciled for the interval, never earlier, late by at most 11 × min(interval / 64,
 *   7.5 s) while the queue holds under 1,024 keys (above, it waits for the queue to drain).
 * - A trigger with cause `primary-deleted` (or `primaryDeleted(key)`) drops the primary's queued
 *   work, delays and retry state; an attempt in flight finishes but schedules nothing.
 * - A dispatch that outlives `reconcileTimeoutMs` frees its slot for other primaries; the
 *   primary stays blocked until the call settles, then counts as failed. A call that never
 *   settles blocks that primary (and a draining `stop()`) for good: honour the abort signal.
 * - The event loop turns at least every 1,024 keys taken with no trigger in between: a wave of
 *   reconciles that return at once, or a reconcile that asks to run again at once, does not hold
 *   the process's watches, lease renewals and probes until it ends.
 * - `stop()` stops listening, drops queued work, and waits for in-flight attempts.
 *
 * @example
 * ```ts
 * import { EventProcessor, TimerEventSource, type EventSource, type ProcessingEvent, type ReconcileDispatcher } from '@kindex/core';
 * declare const dispatch: ReconcileDispatcher;
 * declare const primarySource: EventSource<unknown, never>;
 * declare function log(event: ProcessingEvent): void;
 * const timers = new TimerEventSource();
 * const processor = new EventProcessor({ dispatch, sources: [primarySource, timers], concurrency: 4 });
 * processor.events$.subscribe((e) => log(e));
 * processor.start();
 * // ... until shutdown:
 * await processor.stop();
 * ```
 */
export class EventProcessor implements TriggerSink {
  /**
   * Every trigger received, from every source, after the processor queued it; completes after
   * `stop()`. Derived: it costs nothing while nobody subscribes.
   */
  readonly triggers$: Observable<Trigger>;
  /**
   * What the processor does, as it happens; completes after `stop()`. Subscribers must not
   * throw: rxjs rethrows their errors asynchronously, as uncaught exceptions.
   */
  readonly events$: Observable<ProcessingEvent>;
  /** The queue (`queue` option: FIFO by default), for inspection (`len()`, `delayOf(key)`); do not add to it directly. */
  readonly queue: ReconcileQueue;
  readonly #config: ProcessingConfiguration;
  readonly #dispatch: ReconcileDispatcher;
  readonly #followUp: AttemptFollowUp;
  readonly #clock: Clock;
  readonly #triggers = new Listeners<Trigger>();
  readonly #events = new Listeners<ProcessingEvent>();
  /** How to disconnect from each source: its sink, its `onTrigger` listener or its `triggers$` subscription. */
  readonly #connections: Array<() => void> = [];
  /** {@link accept} as a function, for sources without `connect` (`onTrigger`, `triggers$`). */
  readonly #accept = this.accept.bind(this);
  readonly #states: PrimaryStates; // a record per primary: one lookup per trigger, one per dispatch
  /** One timer for every attempt's timeout (none per attempt). */
  readonly #timeouts: AttemptTimeouts;
  readonly #causes: PendingCauses;
  readonly #sweep: MaxIntervalSweep | undefined;
  /** Attempts holding one of the `concurrency` slots (a timed-out attempt gives its slot back). */
  #busy = 0;
  /** Whether a microtask to take waiting keys is queued (one for any number of announcements). */
  #takeQueued = false;
  /** Whether `#take` runs: an announcement or a freed slot then needs no microtask of its own. */
  #taking = false;
  /**
   * Attempts that settled in the call that started them, with their records, side by side: their
   * tails run at the end of `#take`, once every key taken in that turn has started (else a burst's
   * last event would wait for every earlier tail). No closure or microtask per attempt.
   */
  readonly #settled: Attempt[] = [];
  readonly #settledStates: PrimaryState[] = [];
  readonly #takeTask = (): void => ((this.#takeQueued = false), this.#take());
  /**
   * Keys taken since a source last delivered a trigger. Takes chain through microtasks, in which
   * Node reads no socket and fires no timer (watches, lease renewals, probes would wait for a
   * whole wave): past {@link YIELD_EVERY} keys, the next take waits for `setImmediate`.
   */
  #takenSinceInput = 0;
  #paused = false;
  #started = false;
  #stopped = false;

  constructor(options: EventProcessorOptions) {
    this.#config = processingConfiguration(options);
    this.#dispatch = options.dispatch;
    this.#clock = options.clock ?? systemClock;
    this.queue = createReconcileQueue(this.#config.queue, {
      clock: this.#clock,
      rateLimiter: this.#config.rateLimiter,
      ...(options.name !== undefined ? { name: options.name } : {}),
      ...(options.queueMetrics !== undefined ? { metrics: options.queueMetrics } : {}),
    });
    this.#states = new PrimaryStates(this.queue);
    this.#causes = new PendingCauses(options.maxCausesPerReconcile ?? 16, options.keepCauses ?? true);
    const interval = this.#config.maxReconciliationIntervalMs;
    const target = { clock: this.#clock, queue: this.queue, states: this.#states, causes: this.#causes, events: this.#events };
    const stamps = options.reconcileStamps ?? new MapReconcileStamps();
    this.#sweep = interval === undefined ? undefined : new MaxIntervalSweep(stamps, interval, target);
    const onExhausted = options.onRetriesExhausted;
    this.#followUp = new AttemptFollowUp(this.queue, this.#config, this.#states, this.#events, onExhausted, this.#sweep);
    this.#timeouts = new AttemptTimeouts(
      this.#clock,
      () => this.#states.running,
      (attempt) => {
        const timeoutMs = this.#config.reconcileTimeoutMs ?? 0;
        this.#events.emit({ type: 'timed-out', key: attempt.key, timeoutMs });
        attempt.abort.abort(new ReconcileTimeoutError(attempt.key, timeoutMs));
        // Frees the slot; the primary stays blocked until the call settles.
        this.#release(attempt);
      },
    );
    this.events$ = this.#events.observe((event) => event);
    this.triggers$ = this.#triggers.observe((trigger) => trigger);
    this.queue.onAvailable(() => this.#wake());
    for (const source of options.sources ?? []) this.addSource(source);
  }

  /**
   * Listens to one more event source (or trigger stream): as its sink when it has `connect` (the
   * source then calls {@link accept}), else through its `onTrigger` (each trigger is one direct
   * call either way), else through its `triggers$`, where an error detaches that source alone and
   * is reported as `source-failed`. Triggers that arrive before `start()` wait in the queue.
   */
  addSource(
    source: EventSource<unknown, never> | Pick<EventSource<unknown, never>, 'triggers$' | 'onTrigger' | 'connect'> | Observable<Trigger>,
  ): void {
    if (this.#stopped) return;
    if (!('triggers$' in source)) {
      this.#subscribe(source);
    } else if (typeof source.connect === 'function') {
      this.#connections.push(source.connect(this));
    } else if (typeof source.onTrigger === 'function') {
      this.#connections.push(source.onTrigger(this.#accept));
    } else {
      this.#subscribe(source.triggers$);
    }
  }

  #subscribe(triggers: Observable<Trigger>): void {
    const subscription = triggers.subscribe({
      next: this.#accept,
      error: (error: unknown) => this.#events.emit({ type: 'source-failed', error }),
    });
    this.#connections.push(() => subscription.unsubscribe());
  }

  /**
   * Calls `listener` with every processing event as {@link EventProcessor.events$} emits it, by a
   * direct call (how a controller's metrics and logs follow it without an rxjs hop per event).
   * The listener must not throw. Returns the function that removes it.
   */
  onEvent(listener: (event: ProcessingEvent) => void): () => void {
    return this.#events.add(listener);
  }

  /** Calls `listener` with every trigger once queued, as {@link EventProcessor.triggers$} emits it, by a direct call. */
  onQueuedTrigger(listener: (trigger: Trigger) => void): () => void {
    return this.#triggers.add(listener);
  }

  /** Queues a reconcile of a primary, as a trigger would. */
  enqueue(primary: ResourceID | string): void {
    this.#enqueue(typeof primary === 'string' ? primary : primary.key, undefined);
  }

  /** Drops all pending work of a deleted primary (see the class contract). */
  primaryDeleted(primary: ResourceID | string): void {
    const key = typeof primary === 'string' ? primary : primary.key;
    this.queue.remove(key);
    this.queue.forget(key);
    this.#states.deleted(key);
    this.#sweep?.forget(key);
    this.#events.emit({ type: 'dropped', key });
  }

  /**
   * Counts for tests and health: primaries waiting, being reconciled (including timed-out
   * calls not yet settled), and waiting for a delay (retries, reschedules).
   */
  stats(): { readonly queued: number; readonly processing: number; readonly delayed: number } {
    return { queued: this.queue.len(), processing: this.queue.processingCount(), delayed: this.queue.delayedCount() };
  }

  /**
   * The causes gathered for a primary since its last dispatch (what its next reconcile will be
   * told), or undefined when none are pending. For debugging; it takes nothing.
   */
  pendingCauses(primary: ResourceID | string): ReconcileCauses | undefined {
    return this.#causes.peek(this.#states.get(typeof primary === 'string' ? primary : primary.key));
  }

  /** When the max-interval sweep queues a primary at the earliest (ms since the epoch); undefined when off or never reconciled. */
  maxIntervalDueAt(primary: ResourceID | string): number | undefined {
    return this.#sweep?.dueAt(typeof primary === 'string' ? primary : primary.key);
  }

  /** Starts dispatching, keys queued before it first. Idempotent; a stopped processor cannot start again. */
  start(): void {
    if (this.#started || this.#stopped) return;
    this.#started = true;
    this.#sweep?.start();
    this.#wake();
  }

  /** Whether dispatching is paused. */
  get paused(): boolean {
    return this.#paused;
  }

  /**
   * Stops dispatching without stopping listening: triggers still queue and coalesce, and run
   * after `resume()`. Leader election uses it for warm standby (followers keep their queues
   * current) and fencing (a deposed leader stops at once). With `abortReason`, the signals of
   * in-flight attempts are aborted with it; they still settle as usual. Idempotent.
   */
  pause(abortReason?: unknown): void {
    this.#paused = true;
    if (abortReason !== undefined) for (const attempt of [...this.#states.running]) attempt.abort.abort(abortReason);
  }

  /**
   * Aborts the signal of the attempt in flight for one primary (it still settles as usual: a
   * reconciler that honours the signal fails fast and is retried per the retry policy). Sharding
   * uses it when a shard's lease is lost under a running reconcile. Returns whether an attempt
   * was running and not aborted yet.
   */
  abortInFlight(primary: ResourceID | string, reason: unknown): boolean {
    const attempt = this.#states.get(typeof primary === 'string' ? primary : primary.key)?.attempt;
    if (attempt === undefined || attempt.abort.aborted) return false;
    attempt.abort.abort(reason);
    return true;
  }

  /** Dispatches again after `pause()`. Idempotent. */
  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.#wake();
  }

  /** Stops listening and drains: resolves when in-flight attempts have settled. */
  async stop(options: StopOptions = {}): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    for (const disconnect of this.#connections.splice(0)) disconnect();
    this.#triggers.complete();
    this.#sweep?.stop();
    const drained = this.queue.shutDownWithDrain();
    this.#states.clearPending();
    const inTime = await settledWithin(this.#clock, drained, options.drainTimeoutMs);
    this.#timeouts.clear();
    if (!inTime) {
      for (const attempt of [...this.#states.running]) attempt.abort.abort(new Error('event processor stopped'));
    }
    this.#events.complete();
  }

  /**
   * Takes one trigger from a source (the {@link TriggerSink} every connected source calls): queues
   * each of its primaries at its priority, or drops their work for a `primary-deleted` cause.
   * Runs inside the source's own call (or an rxjs subscriber), where a throw would break that
   * source's loop or surface as an uncaught exception: a malformed trigger is reported as
   * `source-failed` and skipped instead.
   */
  accept(trigger: Trigger): void {
    this.#takenSinceInput = 0;
    try {
      const deleted = trigger.cause?.type === 'primary-deleted';
      for (const id of trigger.primaryIds) {
        const key: unknown = typeof id === 'string' ? id : id?.key;
        if (typeof key !== 'string' || key === '') {
          const error = new TypeError(`trigger from ${String(trigger.source)} names a primary without a key: ${String(id)}`);
          this.#events.emit({ type: 'source-failed', error });
        } else if (deleted) this.primaryDeleted(key);
        else this.#enqueue(key, trigger);
      }
    } catch (error) {
      this.#events.emit({ type: 'source-failed', error });
    }
    if (this.#triggers.listening) this.#triggers.emit(trigger);
  }

  #enqueue(key: string, trigger: Trigger | undefined): void {
    if (this.#stopped) return;
    const state = this.#states.of(key);
    state.droppedInFlight = false; // a trigger after the delete (re-created primary) revives it
    if (trigger !== undefined) this.#causes.addTrigger(state, trigger, this.#clock);
    else this.#causes.add(state, { type: 'enqueue', source: 'enqueue' }, this.#clock);
    this.queue.add(key, trigger?.priority);
    if (this.#events.listening) this.#events.emit({ type: 'enqueued', key, trigger });
  }

  /** Takes waiting keys in a microtask: never inside a source's call or the queue's `add`. */
  #wake(): void {
    if (this.#takeQueued || this.#taking) return;
    this.#takeQueued = true;
    if (this.#takenSinceInput < YIELD_EVERY) {
      void settled.then(this.#takeTask);
    } else {
      this.#takenSinceInput = 0;
      setImmediate(this.#takeTask);
    }
  }

  /**
   * Starts attempts for waiting keys while a slot is free, then runs the tails of those that
   * settled at once; if that freed slots for keys still waiting, takes again in the next microtask
   * (a reconcile that asks for an immediate reschedule cannot spin here).
   */
  #take(): void {
    const concurrency = this.#config.concurrency;
    this.#taking = true;
    try {
      while (this.#busy < concurrency && this.#started && !this.#paused && !this.#stopped) {
        const key = this.queue.tryGet();
        if (key === undefined) break;
        this.#busy++;
        this.#takenSinceInput++;
        this.#process(key);
      }
      const settled = this.#settled;
      const states = this.#settledStates;
      if (settled.length === 0) return;
      for (let i = 0; i < settled.length; i++) {
        const attempt = settled[i]!;
        this.#finish(states[i]!, attempt, attempt.outcome!);
      }
      settled.length = 0;
      states.length = 0;
    } finally {
      this.#taking = false;
    }
    // The tails freed slots: take again (the paused or stopped check is the loop's, next turn).
    if (this.queue.len() > 0) this.#wake();
  }

  /** Gives the slot of `attempt` back (once: when it ends, or earlier when it times out). */
  #release(attempt: Attempt): void {
    if (attempt.released) return;
    attempt.released = true;
    this.#busy--;
    this.#sweep?.drained();
    if (this.queue.len() > 0) this.#wake();
  }

  /** Runs one attempt: it holds a slot until it settles or times out (then goes on in the background). */
  #process(key: string): void {
    const state = this.#states.of(key);
    const exec = state.retry;
    const retryInfo: RetryInfo | undefined =
      exec === undefined ? undefined : Object.freeze({ attemptCount: exec.attemptCount, isLastAttempt: exec.isLastAttempt });
    const scheduled = state.scheduled;
    // A retry or reschedule whose delay is no longer pending has fired: it is (one of) the causes.
    if (scheduled !== undefined && this.#states.delayFired(state)) {
      state.scheduled = undefined;
      this.#causes.add(state, { type: scheduled, source: scheduled }, this.#clock);
    }
    const causes = this.#causes.take(state);
    const timeoutMs = this.#config.reconcileTimeoutMs;
    const now = this.#clock.now();
    const deadline = now + (timeoutMs ?? Infinity);
    const attempt: Attempt = {
      key,
      abort: new LazyAbortController(),
      deadline,
      startedAt: now,
      timedOut: false,
      released: false,
      outcome: undefined,
    };
    this.#states.started(state, attempt);
    if (this.#events.listening) this.#events.emit({ type: 'started', key, retryInfo, causes });
    if (timeoutMs !== undefined) this.#timeouts.watch(attempt.deadline);
    this.#attempt(state, attempt, retryInfo, causes);
  }

  /**
   * Dispatches and settles one attempt. A dispatch that returns its result (not a promise) is
   * settled at the end of the `#take` that started it, with no promise, closure or microtask of
   * its own; one that returns a promise is settled when it does.
   */
  #attempt(state: PrimaryState, attempt: Attempt, retryInfo: RetryInfo | undefined, causes: ReconcileCauses): void {
    let result: ReturnType<ReconcileDispatcher>;
    try {
      result = this.#dispatch(attempt.key, new AttemptRequest(retryInfo, causes, attempt.abort, attempt.startedAt));
    } catch (error) {
      this.#finish(state, attempt, this.#errorOutcome(attempt, error));
      return;
    }
    if (isThenable(result)) {
      result.then(
        (value) => this.#finish(state, attempt, this.#successOutcome(state, attempt, value)),
        (error: unknown) => this.#finish(state, attempt, this.#errorOutcome(attempt, error)),
      );
    } else {
      // Its tail (reports, reschedule, done) runs at the end of this `#take` (see #settled).
      attempt.outcome = this.#successOutcome(state, attempt, result);
      this.#settled.push(attempt);
      this.#settledStates.push(state);
    }
  }

  #successOutcome(state: PrimaryState, attempt: Attempt, result: DispatchResult | void): ReconcileOutcome {
    if (result?.reschedulePriority !== undefined) state.reschedulePriority = result.reschedulePriority;
    return successOutcome(attempt, result, this.#config.reconcileTimeoutMs);
  }

  #errorOutcome(attempt: Attempt, error: unknown): ReconcileOutcome {
    return errorOutcome(attempt, error, this.#config.reconcileTimeoutMs);
  }

  /** Reports and schedules what follows an attempt, then lets its primary and slot go. */
  #finish(state: PrimaryState, attempt: Attempt, outcome: ReconcileOutcome): void {
    const key = attempt.key;
    try {
      if (this.#events.listening) this.#events.emit({ type: 'finished', key, outcome, durationMs: this.#clock.now() - attempt.startedAt });
      // Synchronous unless the retries-exhausted hook runs: no promise and no extra turn per reconcile.
      const hook = this.#followUp.settle(state, outcome);
      if (hook !== undefined) {
        hook.then(
          () => this.#end(state, attempt),
          (error: unknown) => {
            this.#events.emit({ type: 'hook-failed', key, error });
            this.#end(state, attempt);
          },
        );
        return;
      }
    } catch (error) {
      this.#events.emit({ type: 'hook-failed', key, error });
    }
    this.#end(state, attempt);
  }

  #end(state: PrimaryState, attempt: Attempt): void {
    this.#states.ended(state, attempt);
    this.queue.done(attempt.key);
    // After done: a record is dropped only once the queue no longer hands the primary out.
    this.#states.release(state);
    this.#release(attempt);
  }

  /** @internal For the property tests: how many primaries the processor keeps a record of. */
  trackedPrimaries(): number {
    return this.#states.size;
  }
}
