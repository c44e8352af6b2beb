import { QueueBase } from './internal/queue-base.js';
import type { WorkQueueOptions } from './work-queue-options.js';

/**
 * The priority that events of a list (the initial list after a start, a relist) and of resyncs
 * carry: controller-runtime's `handler.LowPriority` (-100), which its `WithLowPriorityWhenUnchanged`
 * gives to objects nobody changed, so that real changes go first after a restart.
 *
 * @example
 * ```ts
 * import { LOW_PRIORITY, PriorityWorkQueue } from '@kindex/core';
 *
 * const queue = new PriorityWorkQueue();
 * queue.add('ns/unchanged', LOW_PRIORITY);
 * queue.add('ns/changed');
 * const first = await queue.get(); // 'ns/changed'
 * ```
 */
export const LOW_PRIORITY = -100;

/** One place in the heap; stale once #queued maps its item to another entry (or none). */
interface Entry<K> {
  readonly item: K;
  readonly priority: number;
  /** Add order: FIFO within one priority. */
  readonly seq: number;
}

/**
 * A work queue that hands out the highest priority first (controller-runtime's
 * `pkg/controller/priorityqueue`), with {@link WorkQueue}'s other guarantees.
 *
 * Contract (beyond WorkQueue's, which all hold: one worker per item, coalescing, follow-up after
 * `done`, earliest delay wins, shutdown and drain):
 * - `get` hands out the waiting item of highest priority; within one priority, the one added
 *   first.
 * - Re-adding a waiting item keeps its place in line and the higher of the two priorities (a
 *   low-priority item that gets a real event moves up, to where its first add puts it among
 *   the items of that priority); re-adding never lowers a priority.
 * - Delayed adds (`addAfter`, `addRateLimited`) carry their priority until they come due; two
 *   delays of one item keep the earlier time and the higher priority.
 *
 * Caveats: low-priority items wait as long as higher ones keep coming (no aging), as in
 * controller-runtime. A delayed add of an item that is already waiting does not merge into it
 * (controller-runtime's single entry would): it stays pending and comes due later, exactly as
 * in WorkQueue, so the event processor schedules the same way with either queue.
 *
 * Operations are O(log n) in the waiting items.
 *
 * @example
 * ```ts
 * import { LOW_PRIORITY, PriorityWorkQueue } from '@kindex/core';
 * declare function reconcile(key: string): Promise<void>;
 *
 * const queue = new PriorityWorkQueue({ name: 'webapps' });
 * for (const key of ['ns/a', 'ns/b']) queue.add(key, LOW_PRIORITY); // initial list
 * queue.add('ns/c'); // a real change: handed out first
 * for (let key: string | undefined; (key = await queue.get()) !== undefined; ) {
 *   try { await reconcile(key); queue.forget(key); }
 *   catch { queue.addRateLimited(key, 0, queue.priorityOf(key)); }
 *   finally { queue.done(key); }
 * }
 * ```
 */
export class PriorityWorkQueue<K extends string = string> extends QueueBase<K> {
  /** Binary heap: highest priority, then lowest seq, at index 0. Holds stale entries too. */
  #heap: Entry<K>[] = [];
  /** Waiting items and their live heap entry. */
  readonly #queued = new Map<K, Entry<K>>();
  /** Added while processing: queued again at `done`, in the place of that add. */
  readonly #followUp = new Map<K, Entry<K>>();
  /** Waiting items (queued and follow-ups) per priority; kept only with a metrics provider. */
  readonly #depth = new Map<number, number>();
  #seq = 0;

  constructor(options: WorkQueueOptions<K> = {}) {
    super(options);
  }

  /**
   * Queues `item` at `priority` (higher first; defaults to 0) unless it is already waiting
   * (then its priority rises to this one if higher); if it is being processed, queues it after
   * `done`.
   */
  add(item: K, priority = 0): void {
    if (this.shuttingDown) return;
    this.checkPriority(priority);
    const queued = this.#queued.get(item);
    if (queued !== undefined) {
      if (priority > queued.priority) {
        // The old entry goes stale in the heap; the new one keeps the first add's place in line.
        const raised: Entry<K> = { item, priority, seq: queued.seq };
        this.#queued.set(item, raised);
        this.#heapPush(raised);
        this.#countDepth(queued.priority, -1);
        this.#countDepth(priority, 1);
        this.#compactIfStale();
      }
      return;
    }
    const followUp = this.#followUp.get(item);
    if (followUp !== undefined) {
      if (priority > followUp.priority) {
        this.#followUp.set(item, { item, priority, seq: followUp.seq });
        this.#countDepth(followUp.priority, -1);
        this.#countDepth(priority, 1);
      }
      return;
    }
    this.timing?.added(item);
    const entry: Entry<K> = { item, priority, seq: this.#seq++ };
    if (this.processing.has(item)) {
      this.#followUp.set(item, entry);
      this.#countDepth(priority, 1);
    } else this.#push(entry);
  }

  /**
   * The priority `item` was handed out at while it is processed (what a retry or requeue keeps,
   * as controller-runtime's `GetWithPriority`), else its waiting priority, else `undefined`.
   */
  priorityOf(item: K): number | undefined {
    return this.processing.get(item) ?? this.#queued.get(item)?.priority;
  }

  /** Items waiting to be handed out (not delayed, not processing). */
  len(): number {
    return this.#queued.size;
  }

  protected depth(): number {
    return this.#queued.size + this.#followUp.size;
  }

  protected override depthByPriority(): ReadonlyMap<number, number> {
    return this.#depth;
  }

  /** Anything but a finite number would break the order of the heap. */
  protected override checkPriority(priority: number): number {
    if (typeof priority !== 'number' || !Number.isFinite(priority)) {
      throw new RangeError(
        `PriorityWorkQueue: a priority must be a finite number (higher goes first, 0 by default), got ${String(priority)}`,
      );
    }
    return priority;
  }

  protected takeNext(): K | undefined {
    const heap = this.#heap;
    while (heap.length > 0) {
      const top = heap[0] as Entry<K>;
      const last = heap.pop() as Entry<K>;
      if (heap.length > 0) {
        heap[0] = last;
        this.#siftDown(0);
      }
      if (this.#queued.get(top.item) !== top) continue; // stale: removed or raised
      this.#queued.delete(top.item);
      this.#countDepth(top.priority, -1);
      this.handOut(top.item, top.priority);
      return top.item;
    }
    return undefined;
  }

  protected releaseFollowUp(item: K): void {
    const followUp = this.#followUp.get(item);
    if (followUp === undefined) return;
    this.#followUp.delete(item);
    this.#countDepth(followUp.priority, -1);
    this.#push(followUp);
  }

  protected dropWaiting(item: K): boolean {
    const queued = this.#queued.get(item);
    const followUp = this.#followUp.get(item);
    if (queued !== undefined) {
      this.#queued.delete(item);
      this.#countDepth(queued.priority, -1);
      this.#compactIfStale();
    }
    if (followUp !== undefined) {
      this.#followUp.delete(item);
      this.#countDepth(followUp.priority, -1);
    }
    return queued !== undefined || followUp !== undefined;
  }

  protected dropAllWaiting(): void {
    this.#heap = [];
    this.#queued.clear();
    this.#followUp.clear();
    this.#depth.clear();
  }

  /** Hands `entry` to a waiting `get`, or queues it (and says so to the `onAvailable` listener). */
  #push(entry: Entry<K>): void {
    if (this.handToWaiter(entry.item, entry.priority)) return;
    this.#queued.set(entry.item, entry);
    this.#heapPush(entry);
    this.#countDepth(entry.priority, 1);
    this.announceAvailable();
  }

  #countDepth(priority: number, delta: 1 | -1): void {
    if (this.timing === undefined) return;
    const depth = this.#depth;
    const n = (depth.get(priority) ?? 0) + delta;
    // A priority nobody waits at any more leaves the map (and the metric), so one-off
    // priorities do not pile up label values.
    if (n === 0) depth.delete(priority);
    else depth.set(priority, n);
  }

  #heapPush(entry: Entry<K>): void {
    const heap = this.#heap;
    heap.push(entry);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(entry, heap[parent] as Entry<K>)) break;
      heap[i] = heap[parent] as Entry<K>;
      i = parent;
    }
    heap[i] = entry;
  }

  #siftDown(start: number): void {
    const heap = this.#heap;
    const n = heap.length;
    const entry = heap[start] as Entry<K>;
    let i = start;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && before(heap[right] as Entry<K>, heap[left] as Entry<K>) ? right : left;
      if (!before(heap[child] as Entry<K>, entry)) break;
      heap[i] = heap[child] as Entry<K>;
      i = child;
    }
    heap[i] = entry;
  }

  /** Rebuilds the heap when stale entries (removed or raised items) make up most of it. */
  #compactIfStale(): void {
    if (this.#heap.length < 1024 || this.#heap.length < 2 * this.#queued.size) return;
    this.#heap = [...this.#queued.values()];
    for (let i = (this.#heap.length >> 1) - 1; i >= 0; i--) this.#siftDown(i);
  }
}

/** Heap order: higher priority first, then earlier add. */
function before<K>(a: Entry<K>, b: Entry<K>): boolean {
  return a.priority !== b.priority ? a.priority > b.priority : a.seq < b.seq;
}
