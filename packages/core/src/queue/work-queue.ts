/**
 * The work queue: the hand-off between event sources and reconcile workers.
 *
 * {@link WorkQueue} follows client-go's `workqueue` (queue.go, delaying_queue.go,
 * rate_limiting_queue.go) so its guarantees carry over: an item is never processed by two
 * workers at once; adds of a queued item coalesce; an add while the item is processed queues it
 * again after `done`. Delays (`addAfter`) and rate-limited requeues (`addRateLimited`) use an
 * injectable {@link Clock}. Rate limiters: {@link RateLimiter} and its built-ins. Retry policy
 * (attempt counting, JOSDK-style): {@link Retry} and {@link GenericRetry}.
 *
 * Two queues, one contract (the event processor takes either through its `queue` option):
 * - {@link WorkQueue} hands items out in arrival order (FIFO), O(1) per operation. The default:
 *   every controller was written against its order, and it is the cheaper of the two.
 * - {@link PriorityWorkQueue} (controller-runtime's priority queue) hands out the highest priority
 *   first, FIFO within one, O(log n). Choose it for operators with many primaries that restart
 *   or resync: the list's events come at {@link LOW_PRIORITY}, so real changes are reconciled
 *   first instead of waiting for the whole wave.
 */
import { QueueBase } from './internal/queue-base.js';
import { SlotMap } from './internal/slot-map.js';
import type { WorkQueueOptions } from './work-queue-options.js';

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
export class WorkQueue<K extends string = string> extends QueueBase<K> {
  // FIFO as an array with a moving head (shift() on large arrays is O(n)). `remove` is O(1): it
  // leaves a stale entry behind, recognised when taken because #queued maps each waiting item to
  // the absolute position of its one live entry (a re-added item must not jump the line through
  // its stale entry).
  #fifo: K[] = [];
  #head = 0;
  /** Absolute position of #fifo[0]. */
  #fifoStart = 0;
  /**
   * Waiting items and the absolute position of their entry. Usually a few at a time, emptied and
   * refilled at every event: a SlotMap, whose arrays no delete reallocates (see SlotMap).
   */
  readonly #queued = new SlotMap<K>();
  /** Added while processing: queued again at `done`. */
  readonly #followUp = new Set<K>();

  constructor(options: WorkQueueOptions<K> = {}) {
    super(options);
  }

  /**
   * Queues `item` unless it is already queued; if it is being processed, queues it after `done`.
   * A FIFO queue has no priorities: `_priority` is accepted (so the queues are interchangeable)
   * and ignored.
   */
  add(item: K, _priority?: number): void {
    if (this.shuttingDown || this.#queued.has(item) || (this.#followUp.size !== 0 && this.#followUp.has(item))) return;
    this.timing?.added(item);
    if (this.processing.has(item)) this.#followUp.add(item);
    else this.#push(item);
  }

  /** Items waiting to be handed out (not delayed, not processing). */
  len(): number {
    return this.#queued.size;
  }

  protected depth(): number {
    return this.#queued.size + this.#followUp.size;
  }

  protected takeNext(): K | undefined {
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
        this.handOut(item, 0);
        return item;
      }
    }
    return undefined;
  }

  protected releaseFollowUp(item: K): void {
    if (this.#followUp.size !== 0 && this.#followUp.delete(item)) this.#push(item);
  }

  protected dropWaiting(item: K): boolean {
    const queued = this.#queued.delete(item);
    const followUp = this.#followUp.delete(item);
    if (queued) this.#compactIfStale();
    return queued || followUp;
  }

  protected dropAllWaiting(): void {
    this.#fifo = [];
    this.#head = 0;
    this.#fifoStart = 0;
    this.#queued.clear();
    this.#followUp.clear();
  }

  #push(item: K): void {
    if (this.handToWaiter(item, 0)) return;
    this.#queued.set(item, this.#fifoStart + this.#fifo.length);
    this.#fifo.push(item);
    this.announceAvailable();
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
