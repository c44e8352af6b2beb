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
import { systemClock, type Clock } from './clock.js';
import { defaultControllerRateLimiter } from './default-controller-rate-limiter.js';
import { DelayedAdds } from './internal/delayed-adds.js';
import { QueueTiming } from './internal/queue-timing.js';
import type { RateLimiter } from './rate-limiter.js';
import type { WorkQueueMetricsProvider } from './work-queue-metrics.js';

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
  readonly #delayed: DelayedAdds<K>;
  readonly #waiters: ((item: K | undefined) => void)[] = [];
  readonly #drainWaiters: (() => void)[] = [];
  #shuttingDown = false;
  /** Only with a metrics provider. */
  readonly #timing: QueueTiming<K> | undefined;

  constructor(options: WorkQueueOptions<K> = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<K>(this.#clock);
    this.#delayed = new DelayedAdds<K>(this.#clock, (item) => this.add(item));
    const metrics = options.metrics;
    this.#timing =
      metrics === undefined
        ? undefined
        : new QueueTiming<K>(metrics, options.name ?? '', this.#clock, () => this.#queued.size + this.#followUp.size);
  }

  /** Queues `item` unless it is already queued; if it is being processed, queues it after `done`. */
  add(item: K): void {
    if (this.#shuttingDown || this.#queued.has(item) || this.#followUp.has(item)) return;
    this.#timing?.added(item);
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
    this.#delayed.addAfter(item, delayMs, 0);
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
    this.#delayed.replace(item, delayMs, 0);
  }

  /**
   * Adds `item` after the rate limiter's wait (which counts as one requeue), or after
   * `minDelayMs` if that is longer.
   */
  addRateLimited(item: K, minDelayMs = 0): void {
    if (!this.#shuttingDown) this.#timing?.retried();
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
    if (queued || followUp) this.#timing?.dropped(item);
    if (queued) this.#compactIfStale();
    return delayed || queued || followUp;
  }

  /** Cancels a pending `addAfter` of `item`; returns whether there was one. */
  cancelDelayed(item: K): boolean {
    return this.#delayed.cancel(item);
  }

  /** Milliseconds until the pending delayed add of `item`, or `undefined` if none. */
  delayOf(item: K): number | undefined {
    return this.#delayed.delayOf(item);
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
    this.#timing?.finished(item);
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
    this.#delayed.clear();
    this.#fifo = [];
    this.#head = 0;
    this.#fifoStart = 0;
    this.#queued.clear();
    this.#followUp.clear();
    this.#timing?.droppedAll();
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
      this.#timing?.handedOut(item);
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
        this.#timing?.handedOut(item);
        return item;
      }
    }
    return undefined;
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
