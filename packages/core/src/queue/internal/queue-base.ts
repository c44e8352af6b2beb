import { systemClock, type Clock } from '../clock.js';
import { defaultControllerRateLimiter } from '../default-controller-rate-limiter.js';
import type { RateLimiter } from '../rate-limiter.js';
import { WORK_QUEUE_OPTIONS, type WorkQueueOptions } from '../work-queue-options.js';
import { DelayedAdds } from './delayed-adds.js';
import { QueueTiming } from './queue-timing.js';
import { SlotMap } from './slot-map.js';

/**
 * What {@link WorkQueue} and {@link PriorityWorkQueue} share: handing items to workers (one
 * worker per item, waiting `get`s), delays, rate limiting, metrics timing, shutdown and drain.
 * A subclass keeps the waiting items in its own order and says how to add, take and drop them.
 */
export abstract class QueueBase<K extends string> {
  protected readonly clock: Clock;
  readonly #rateLimiter: RateLimiter<K>;
  readonly #delayed: DelayedAdds<K>;
  /** @internal Only with a metrics provider. */
  protected readonly timing: QueueTiming<K> | undefined;
  /**
   * @internal Items handed out and not yet `done`, with the priority they were handed out at;
   * usually one at a time, and emptied after each (see SlotMap).
   */
  protected readonly processing = new SlotMap<K>();
  readonly #waiters: ((item: K | undefined) => void)[] = [];
  readonly #drainWaiters: (() => void)[] = [];
  #onAvailable: (() => void) | undefined;
  #onDelayedAdd: ((item: K) => void) | undefined;
  #shuttingDown = false;

  constructor(options: WorkQueueOptions<K>) {
    // Named after the queue built (WorkQueue or PriorityWorkQueue), as its user wrote it.
    WORK_QUEUE_OPTIONS.check(options, `${new.target.name} options`);
    this.clock = options.clock ?? systemClock;
    this.#rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<K>(this.clock);
    this.#delayed = new DelayedAdds<K>(this.clock, (item, priority) => {
      this.#onDelayedAdd?.(item);
      this.add(item, priority);
    });
    const metrics = options.metrics;
    const byPriority = this.depthByPriority !== undefined;
    this.timing =
      metrics === undefined
        ? undefined
        : new QueueTiming<K>(
            metrics,
            options.name ?? '',
            this.clock,
            () => this.depth(),
            byPriority ? () => this.depthByPriority?.() ?? new Map<number, number>() : undefined,
          );
  }

  /** Items waiting, including follow-ups of items being processed (the depth metric). */
  protected abstract depth(): number;

  /** The same split by priority, for queues that order by it. */
  protected depthByPriority?(): ReadonlyMap<number, number>;

  /** Queues `item` unless it is already waiting; if it is being processed, queues it after `done`. */
  abstract add(item: K, priority?: number): void;

  /** Items waiting to be handed out (not delayed, not processing). */
  abstract len(): number;

  /** Takes the next waiting item and hands it out (`handOut`), or returns undefined. */
  protected abstract takeNext(): K | undefined;

  /** Queues the follow-up of `item` (added while it was processed), if it has one. */
  protected abstract releaseFollowUp(item: K): void;

  /** Drops the waiting entry and the follow-up of `item`; returns whether there was either. */
  protected abstract dropWaiting(item: K): boolean;

  /** Drops every waiting entry and follow-up (shutdown). */
  protected abstract dropAllWaiting(): void;

  /** The priority to keep for a delayed add; throws for one the queue cannot order. */
  protected checkPriority(priority: number): number {
    return priority;
  }

  /**
   * Adds `item` after `delayMs`. A pending delay with an earlier deadline keeps its time (and
   * the higher priority is kept); a later one is replaced. A delay of 0 or less adds at once.
   */
  addAfter(item: K, delayMs: number, priority = 0): void {
    if (this.#shuttingDown) return;
    if (!(delayMs > 0)) {
      this.add(item, priority);
      return;
    }
    this.#delayed.addAfter(item, delayMs, this.checkPriority(priority));
  }

  /**
   * Replaces any pending delayed add of `item` (earlier or later) with one after `delayMs`; a
   * delay of 0 or less adds at once. Cheap when the new deadline is later: the timer stays.
   */
  replaceDelayed(item: K, delayMs: number, priority = 0): void {
    if (this.#shuttingDown) return;
    if (!(delayMs > 0)) {
      this.cancelDelayed(item);
      this.add(item, priority);
      return;
    }
    this.#delayed.replace(item, delayMs, this.checkPriority(priority));
  }

  /**
   * Adds `item` after the rate limiter's wait (which counts as one requeue), or after
   * `minDelayMs` if that is longer.
   */
  addRateLimited(item: K, minDelayMs = 0, priority = 0): void {
    if (!this.#shuttingDown) this.timing?.retried();
    this.addAfter(item, Math.max(this.#rateLimiter.when(item), minDelayMs), priority);
  }

  /**
   * Calls `listener` with each item whose delayed add comes due, before it is added (one
   * listener: a later call replaces it). The event processor uses it to tell a fired retry or
   * reschedule without a lookup per dispatch.
   */
  onDelayedAdd(listener: ((item: K) => void) | undefined): void {
    this.#onDelayedAdd = listener;
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
    const waiting = this.dropWaiting(item);
    if (waiting) this.timing?.dropped(item);
    return delayed || waiting;
  }

  /** Cancels a pending delayed add of `item`; returns whether there was one. */
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
    const item = this.takeNext();
    if (item !== undefined) return Promise.resolve(item);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /**
   * Takes the next waiting item and marks it processing, or returns `undefined` when none waits
   * (or the queue is shut down). It never waits: a consumer that pulls (the event processor)
   * calls it when {@link QueueBase.onAvailable} says an item came, and after each `done`, with no
   * promise per item.
   */
  tryGet(): K | undefined {
    return this.#shuttingDown ? undefined : this.takeNext();
  }

  /**
   * Calls `listener` each time an item starts waiting to be taken (and no `get` took it at once):
   * an add, a delayed add coming due, a follow-up released by `done`. One listener: a later call
   * replaces it. It runs inside that add or `done`, so it should schedule the taking (`tryGet`),
   * not do the work there.
   */
  onAvailable(listener: (() => void) | undefined): void {
    this.#onAvailable = listener;
  }

  /** Marks `item` finished; if it was added meanwhile, it is queued again now. */
  done(item: K): void {
    if (!this.processing.delete(item)) return;
    this.timing?.finished(item);
    if (!this.#shuttingDown) this.releaseFollowUp(item);
    if (this.processing.size === 0 && this.#shuttingDown) {
      for (const w of this.#drainWaiters.splice(0)) w();
    }
  }

  /** Whether `item` is handed out and not yet `done`. */
  isProcessing(item: K): boolean {
    return this.processing.has(item);
  }

  /** Items handed out and not yet `done`. */
  processingCount(): number {
    return this.processing.size;
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
    this.dropAllWaiting();
    this.timing?.droppedAll();
    for (const w of this.#waiters.splice(0)) w(undefined);
  }

  /** Shuts down, then resolves when every item being processed is `done`. */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#drainWaiters.push(resolve));
  }

  /** Hands `item` to a worker waiting in `get`, if there is one; returns whether it did. */
  protected handToWaiter(item: K, priority: number): boolean {
    const waiter = this.#waiters.shift();
    if (waiter === undefined) return false;
    this.handOut(item, priority);
    waiter(item);
    return true;
  }

  /** Tells the `onAvailable` listener that an item now waits (called by a subclass after it queued one). */
  protected announceAvailable(): void {
    this.#onAvailable?.();
  }

  /** Marks `item` processing and starts timing its work. */
  protected handOut(item: K, priority: number): void {
    this.processing.set(item, priority);
    this.timing?.handedOut(item);
  }
}
