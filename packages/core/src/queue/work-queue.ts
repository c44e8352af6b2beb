/**
 * The work queue: the hand-off between event sources and reconcile workers.
 *
 * {@link WorkQueue} follows client-go's `workqueue` (queue.go, delaying_queue.go,
 * rate_limiting_queue.go) so its guarantees carry over: an item is never processed by two
 * workers at once; adds of a queued item coalesce; an add while the item is processed queues it
 * again after `done`. Delays (`addAfter`) and rate-limited requeues (`addRateLimited`) use an
 * injectable {@link Clock}. Rate limiters: {@link RateLimiter} and its built-ins. Retry policy
 * (attempt counting, JOSDK-style): {@link Retry} and {@link GenericRetry}.
 */
import { systemClock, type Clock, type TimerHandle } from './clock.js';
import { defaultControllerRateLimiter } from './default-controller-rate-limiter.js';
import type { RateLimiter } from './rate-limiter.js';
import type { WorkQueueMetrics, WorkQueueMetricsProvider } from './work-queue-metrics.js';
import { rejectUnknownOptions, type OptionKeysOf } from '../options/reject-unknown-options.js';

/**
 * Options of {@link WorkQueue}.
 *
 * @example
 * ```ts
 * import { BucketRateLimiter, WorkQueue, type WorkQueueOptions } from '@kindex/core';
 *
 * const options: WorkQueueOptions = { name: 'webapps', rateLimiter: new BucketRateLimiter({ qps: 5, burst: 20 }) };
 * const queue = new WorkQueue(options);
 * ```
 */
export interface WorkQueueOptions<K extends string = string> {
  /** Decides the wait of `addRateLimited`. Defaults to {@link defaultControllerRateLimiter}. */
  readonly rateLimiter?: RateLimiter<K>;
  /** Time source for delays. Defaults to {@link systemClock}. */
  readonly clock?: Clock;
  /** Name the metrics carry (controller-runtime uses the controller's name). Defaults to `''`. */
  readonly name?: string;
  /** Receives the queue's measurements. Defaults to none (nothing is timed or counted). */
  readonly metrics?: WorkQueueMetricsProvider;
}

/** The keys of {@link WorkQueueOptions}: unknown ones are rejected, not ignored. */
const WORK_QUEUE_OPTION_KEYS = {
  rateLimiter: true,
  clock: true,
  name: true,
  metrics: true,
} as const satisfies OptionKeysOf<WorkQueueOptions>;

interface Delayed {
  /** When the item is due. */
  at: number;
  /**
   * The timer armed for it, set to fire at or before `at`: a later deadline keeps the timer,
   * which re-arms for the rest when it fires (no timer churn when a reconcile pushes its own
   * reschedule further out, as every successful one does).
   */
  timer: TimerHandle;
}

/**
 * A coalescing, delaying, rate-limited queue of keys with client-go semantics.
 *
 * Contract:
 * - `get` hands an item to one worker; until that worker calls `done(item)` no other `get`
 *   returns it. Adding it meanwhile marks it dirty; `done` then queues it once more, so all the
 *   adds during processing collapse into exactly one follow-up.
 * - Adding an item that is already queued does nothing (it keeps its place).
 * - `addAfter` keeps the earliest deadline per item; it never delays an item already queued.
 * - After `shutDown`, adds are ignored and `get` resolves `undefined` (items still queued are
 *   abandoned); items being processed may still be marked `done`.
 *
 * All operations are O(1) (amortized).
 *
 * @example
 * ```ts
 * import { WorkQueue } from '@kindex/core';
 * declare function reconcile(key: string): Promise<void>;
 * const queue = new WorkQueue();
 * queue.add('ns/a');
 * for (let key: string | undefined; (key = await queue.get()) !== undefined; ) {
 *   try { await reconcile(key); queue.forget(key); }
 *   catch { queue.addRateLimited(key); }
 *   finally { queue.done(key); }
 * }
 * ```
 */
export class WorkQueue<K extends string = string> {
  readonly #clock: Clock;
  readonly #rateLimiter: RateLimiter<K>;
  // FIFO as an array with a moving head (shift() on large arrays is O(n)). `remove` is O(1): it
  // leaves a stale entry behind, recognised when taken because #queued maps each waiting item to
  // the absolute position of its one live entry (a re-added item must not jump the line through
  // its stale entry).
  #fifo: K[] = [];
  #head = 0;
  /** Absolute position of #fifo[0]. */
  #fifoStart = 0;
  /** Waiting items and the absolute position of their entry. */
  readonly #queued = new Map<K, number>();
  /** Added while processing: queued again at `done`. */
  readonly #followUp = new Set<K>();
  readonly #processing = new Set<K>();
  readonly #delayed = new Map<K, Delayed>();
  readonly #waiters: ((item: K | undefined) => void)[] = [];
  readonly #drainWaiters: (() => void)[] = [];
  #shuttingDown = false;
  // Only with a metrics provider: when each waiting item was added, and when each item being
  // processed was handed out (clock ms), for the queue and work durations.
  readonly #metrics: WorkQueueMetrics | undefined;
  readonly #addedAt = new Map<K, number>();
  readonly #startedAt = new Map<K, number>();
  readonly #metricsNow: () => number;

  constructor(options: WorkQueueOptions<K> = {}) {
    rejectUnknownOptions('WorkQueue options', options, WORK_QUEUE_OPTION_KEYS);
    this.#clock = options.clock ?? systemClock;
    this.#rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<K>(this.#clock);
    // Date.now() counts whole milliseconds and most queue waits are shorter: with the system
    // clock the durations come from the high-resolution timer (same epoch), else they would
    // mostly read 0. A test's FakeClock is used as given.
    const clock = this.#clock;
    this.#metricsNow = clock === systemClock ? () => performance.timeOrigin + performance.now() : () => clock.now();
    this.#metrics = options.metrics?.forQueue(options.name ?? '', {
      depth: () => this.#queued.size + this.#followUp.size,
      unfinishedWorkSeconds: () => {
        const now = this.#metricsNow();
        let total = 0;
        for (const at of this.#startedAt.values()) total += now - at;
        return total / 1000;
      },
      longestRunningProcessorSeconds: () => {
        const now = this.#metricsNow();
        let longest = 0;
        for (const at of this.#startedAt.values()) longest = Math.max(longest, now - at);
        return longest / 1000;
      },
    });
  }

  /** Queues `item` unless it is already queued; if it is being processed, queues it after `done`. */
  add(item: K): void {
    if (this.#shuttingDown || this.#queued.has(item) || this.#followUp.has(item)) return;
    if (this.#metrics !== undefined) {
      this.#metrics.added();
      this.#addedAt.set(item, this.#metricsNow());
    }
    if (this.#processing.has(item)) this.#followUp.add(item);
    else this.#push(item);
  }

  /**
   * Adds `item` after `delayMs`. A pending delay with an earlier deadline wins; a later one is
   * replaced. A delay of 0 or less adds at once.
   */
  addAfter(item: K, delayMs: number): void {
    if (this.#shuttingDown) return;
    if (!(delayMs > 0)) {
      this.add(item);
      return;
    }
    const at = this.#clock.now() + delayMs;
    const pending = this.#delayed.get(item);
    if (pending !== undefined) {
      if (pending.at <= at) return;
      this.#clock.clearTimeout(pending.timer);
    }
    this.#arm(item, at, delayMs);
  }

  /**
   * Replaces any pending delayed add of `item` (earlier or later) with one after `delayMs`; a
   * delay of 0 or less adds at once. Cheap when the new deadline is later: the timer stays.
   */
  replaceDelayed(item: K, delayMs: number): void {
    if (this.#shuttingDown) return;
    if (!(delayMs > 0)) {
      this.cancelDelayed(item);
      this.add(item);
      return;
    }
    const pending = this.#delayed.get(item);
    const at = this.#clock.now() + delayMs;
    if (pending !== undefined && pending.at <= at) {
      pending.at = at;
      return;
    }
    if (pending !== undefined) this.#clock.clearTimeout(pending.timer);
    this.#arm(item, at, delayMs);
  }

  #arm(item: K, at: number, delayMs: number): void {
    const delayed: Delayed = { at, timer: undefined };
    const fire = (): void => {
      // A replaced timer that fires anyway (clock race) must not add early.
      if (this.#delayed.get(item) !== delayed) return;
      const left = delayed.at - this.#clock.now();
      if (left > 0) {
        delayed.timer = this.#clock.setTimeout(fire, left);
        return;
      }
      this.#delayed.delete(item);
      this.add(item);
    };
    delayed.timer = this.#clock.setTimeout(fire, delayMs);
    this.#delayed.set(item, delayed);
  }

  /**
   * Adds `item` after the rate limiter's wait (which counts as one requeue), or after
   * `minDelayMs` if that is longer.
   */
  addRateLimited(item: K, minDelayMs = 0): void {
    if (!this.#shuttingDown) this.#metrics?.retried();
    this.addAfter(item, Math.max(this.#rateLimiter.when(item), minDelayMs));
  }

  /** Ends the failure streak of `item` in the rate limiter. It does not dequeue it. */
  forget(item: K): void {
    this.#rateLimiter.forget(item);
  }

  /** Rate-limited requeues of `item` since its last `forget`. */
  numRequeues(item: K): number {
    return this.#rateLimiter.numRequeues(item);
  }

  /**
   * Drops all pending work of `item`: its place in the queue, its delayed add and the follow-up
   * of an add during processing. Processing itself is not interrupted; `done` is still
   * expected. Returns whether anything was dropped.
   */
  remove(item: K): boolean {
    const delayed = this.cancelDelayed(item);
    const queued = this.#queued.delete(item);
    const followUp = this.#followUp.delete(item);
    if (queued || followUp) this.#addedAt.delete(item);
    if (queued) this.#compactIfStale();
    return delayed || queued || followUp;
  }

  /** Cancels a pending `addAfter` of `item`; returns whether there was one. */
  cancelDelayed(item: K): boolean {
    const pending = this.#delayed.get(item);
    if (pending === undefined) return false;
    this.#clock.clearTimeout(pending.timer);
    this.#delayed.delete(item);
    return true;
  }

  /** Milliseconds until the pending delayed add of `item`, or `undefined` if none. */
  delayOf(item: K): number | undefined {
    const pending = this.#delayed.get(item);
    return pending === undefined ? undefined : Math.max(0, pending.at - this.#clock.now());
  }

  /**
   * Waits for the next item and marks it processing. Resolves `undefined` once the queue is
   * shut down. Call `done(item)` when finished with it.
   */
  get(): Promise<K | undefined> {
    if (this.#shuttingDown) return Promise.resolve(undefined);
    const item = this.#shift();
    if (item !== undefined) return Promise.resolve(item);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Marks `item` finished; if it was added meanwhile, it is queued again now. */
  done(item: K): void {
    if (!this.#processing.delete(item)) return;
    if (this.#metrics !== undefined) {
      const startedAt = this.#startedAt.get(item);
      this.#startedAt.delete(item);
      if (startedAt !== undefined) this.#metrics.finished((this.#metricsNow() - startedAt) / 1000);
    }
    if (this.#followUp.delete(item) && !this.#shuttingDown) this.#push(item);
    if (this.#processing.size === 0 && this.#shuttingDown) {
      for (const w of this.#drainWaiters.splice(0)) w();
    }
  }

  /** Items waiting to be handed out (not delayed, not processing). */
  len(): number {
    return this.#queued.size;
  }

  /** Whether `item` is handed out and not yet `done`. */
  isProcessing(item: K): boolean {
    return this.#processing.has(item);
  }

  /** Items handed out and not yet `done`. */
  processingCount(): number {
    return this.#processing.size;
  }

  /** Items waiting for a delayed add. */
  delayedCount(): number {
    return this.#delayed.size;
  }

  /** Whether `shutDown` was called. */
  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  /** Stops the queue: adds are ignored, delays cancelled, waiting `get`s resolve `undefined`. */
  shutDown(): void {
    if (this.#shuttingDown) return;
    this.#shuttingDown = true;
    for (const d of this.#delayed.values()) this.#clock.clearTimeout(d.timer);
    this.#delayed.clear();
    this.#fifo = [];
    this.#head = 0;
    this.#fifoStart = 0;
    this.#queued.clear();
    this.#followUp.clear();
    this.#addedAt.clear();
    for (const w of this.#waiters.splice(0)) w(undefined);
  }

  /** Shuts down, then resolves when every item being processed is `done`. */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.#processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drainWaiters.push(resolve));
  }

  #push(item: K): void {
    const waiter = this.#waiters.shift();
    if (waiter !== undefined) {
      this.#processing.add(item);
      this.#handedOut(item);
      waiter(item);
      return;
    }
    this.#queued.set(item, this.#fifoStart + this.#fifo.length);
    this.#fifo.push(item);
  }

  #shift(): K | undefined {
    while (this.#head < this.#fifo.length) {
      const position = this.#fifoStart + this.#head;
      const item = this.#fifo[this.#head++] as K;
      if (this.#head > 1024 && this.#head * 2 > this.#fifo.length) {
        this.#fifo = this.#fifo.slice(this.#head);
        this.#fifoStart += this.#head;
        this.#head = 0;
      }
      if (this.#queued.get(item) === position) {
        this.#queued.delete(item);
        this.#processing.add(item);
        this.#handedOut(item);
        return item;
      }
    }
    return undefined;
  }

  /** Records the wait of an item handed to a worker and starts timing its work. */
  #handedOut(item: K): void {
    if (this.#metrics === undefined) return;
    const now = this.#metricsNow();
    const addedAt = this.#addedAt.get(item);
    this.#addedAt.delete(item);
    this.#startedAt.set(item, now);
    this.#metrics.started(addedAt === undefined ? 0 : (now - addedAt) / 1000);
  }

  /** Rebuilds the FIFO when removed items make up most of it, so add/remove churn stays bounded. */
  #compactIfStale(): void {
    const entries = this.#fifo.length - this.#head;
    if (entries < 1024 || entries < 2 * this.#queued.size) return;
    const fifo: K[] = [];
    for (let i = this.#head; i < this.#fifo.length; i++) {
      const item = this.#fifo[i] as K;
      if (this.#queued.get(item) === this.#fifoStart + i) {
        this.#queued.set(item, fifo.length);
        fifo.push(item);
      }
    }
    this.#fifo = fifo;
    this.#fifoStart = 0;
    this.#head = 0;
  }
}
