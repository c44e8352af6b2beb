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
  // leaves a stale entry behind, recognised when taken because #state maps each waiting item to
  // the absolute position of its one live entry (a re-added item must not jump the line through
  // its stale entry).
  #fifo: K[] = [];
  #head = 0;
  /** Absolute position of #fifo[0]. */
  #fifoStart = 0;
  /**
   * Each item's state: the absolute position of its entry while it waits, FOLLOW_UP when added
   * while processing (queued again at `done`), GONE when neither. A GONE entry is left in place
   * rather than deleted: a map emptied and refilled at every event reallocated its hash table
   * each time (V8 shrinks a table under half full), so stale entries are swept in bulk instead
   * (#sweepIfStale), and one lookup answers both "waiting?" and "follow-up?" on `add`.
   */
  readonly #state = new Map<K, number>();
  /** Items waiting (entries of #state at a position). */
  #waiting = 0;
  /** Entries of #state at FOLLOW_UP. */
  #followUps = 0;
  /** Entries of #state at GONE. */
  #gone = 0;

  constructor(options: WorkQueueOptions<K> = {}) {
    super(options);
  }

  /**
   * Queues `item` unless it is already queued; if it is being processed, queues it after `done`.
   * A FIFO queue has no priorities: `_priority` is accepted (so the queues are interchangeable)
   * and ignored.
   */
  add(item: K, _priority?: number): void {
    if (this.shuttingDown) return;
    const state = this.#state.get(item);
    if (state !== undefined && state !== GONE) return; // waiting or already a follow-up
    this.timing?.added(item);
    if (state === GONE) this.#gone--;
    if (this.processing.has(item)) {
      this.#state.set(item, FOLLOW_UP);
      this.#followUps++;
    } else this.#push(item);
  }

  /** Items waiting to be handed out (not delayed, not processing). */
  len(): number {
    return this.#waiting;
  }

  protected depth(): number {
    return this.#waiting + this.#followUps;
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
      if (this.#state.get(item) === position) {
        this.#leave(item);
        this.#waiting--;
        this.handOut(item, 0);
        return item;
      }
    }
    return undefined;
  }

  protected releaseFollowUp(item: K): void {
    if (this.#followUps === 0 || this.#state.get(item) !== FOLLOW_UP) return;
    this.#followUps--;
    this.#push(item);
  }

  protected dropWaiting(item: K): boolean {
    const state = this.#state.get(item);
    if (state === undefined || state === GONE) return false;
    if (state === FOLLOW_UP) this.#followUps--;
    else this.#waiting--;
    this.#leave(item);
    if (state !== FOLLOW_UP) this.#compactIfStale();
    return true;
  }

  protected dropAllWaiting(): void {
    this.#fifo = [];
    this.#head = 0;
    this.#fifoStart = 0;
    this.#state.clear();
    this.#waiting = 0;
    this.#followUps = 0;
    this.#gone = 0;
  }

  /** Queues `item`, whose state is not counted as GONE (absent, FOLLOW_UP, or GONE already uncounted). */
  #push(item: K): void {
    if (this.handToWaiter(item, 0)) {
      this.#leave(item);
      return;
    }
    this.#state.set(item, this.#fifoStart + this.#fifo.length);
    this.#waiting++;
    this.#fifo.push(item);
    this.announceAvailable();
  }

  /** `item` neither waits nor follows up any more: marked GONE, swept later. */
  #leave(item: K): void {
    this.#state.set(item, GONE);
    if (++this.#gone > 1024 && this.#gone > 2 * (this.#state.size - this.#gone)) this.#sweep();
  }

  /** Deletes the GONE entries, all at once (each delete then resizes the table at most once per halving). */
  #sweep(): void {
    for (const [item, state] of this.#state) if (state === GONE) this.#state.delete(item);
    this.#gone = 0;
  }

  /** Rebuilds the FIFO when removed items make up most of it, so add/remove churn stays bounded. */
  #compactIfStale(): void {
    const entries = this.#fifo.length - this.#head;
    if (entries < 1024 || entries < 2 * this.#waiting) return;
    const fifo: K[] = [];
    for (let i = this.#head; i < this.#fifo.length; i++) {
      const item = this.#fifo[i] as K;
      if (this.#state.get(item) === this.#fifoStart + i) {
        this.#state.set(item, fifo.length);
        fifo.push(item);
      }
    }
    this.#fifo = fifo;
    this.#fifoStart = 0;
    this.#head = 0;
  }
}

/** #state of an item added while processing: queued again at `done`. */
const FOLLOW_UP = -1;
/** #state of an item that neither waits nor follows up (kept until the next sweep). */
const GONE = -2;
