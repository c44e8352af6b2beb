import type { Clock, TimerHandle } from '../clock.js';

interface Delayed<K> {
  readonly item: K;
  /** When the item is due. */
  at: number;
  /** Priority of the add when it comes due (0 for queues without priorities). */
  priority: number;
  /** Order among items due at the same time: the one given its deadline first goes first. */
  seq: number;
  /** Its place in the heap. */
  index: number;
}

/**
 * The pending delayed adds of a work queue, one per item, shared by {@link WorkQueue} and
 * {@link PriorityWorkQueue} so both keep the same delay rules: the earliest deadline wins on
 * `addAfter`, `replace` moves it either way, and a due item is handed to `onDue`.
 *
 * One timer serves them all, armed for the earliest deadline of a binary heap: a controller
 * with a periodic reconcile holds a delay for every primary it knows, and a timer each (a Node
 * `Timeout`, its closure and its timer list) cost about 800 bytes a primary where a heap entry
 * costs under 100. A deadline moved later keeps the armed timer, which re-arms for what is left
 * when it fires (no timer churn when a reconcile pushes its own reschedule further out, as every
 * successful one does).
 */
export class DelayedAdds<K> {
  readonly #clock: Clock;
  readonly #onDue: (item: K, priority: number) => void;
  readonly #delayed = new Map<K, Delayed<K>>();
  readonly #heap: Delayed<K>[] = [];
  #seq = 0;
  #timer: TimerHandle | undefined;
  /** The deadline the armed timer fires for (`Infinity` when none is armed). */
  #armedAt = Infinity;
  #firing = false;

  constructor(clock: Clock, onDue: (item: K, priority: number) => void) {
    this.#clock = clock;
    this.#onDue = onDue;
  }

  /**
   * Adds `item` after `delayMs` (> 0). A pending delay with an earlier deadline keeps its time;
   * either way the higher of the two priorities is kept.
   */
  addAfter(item: K, delayMs: number, priority: number): void {
    const at = this.#clock.now() + delayMs;
    const pending = this.#delayed.get(item);
    if (pending === undefined) return this.#insert(item, at, priority);
    if (priority > pending.priority) pending.priority = priority;
    if (pending.at <= at) return;
    this.#moveEarlier(pending, at);
  }

  /** Replaces any pending delay of `item` (earlier or later) with one after `delayMs` (> 0). */
  replace(item: K, delayMs: number, priority: number): void {
    const at = this.#clock.now() + delayMs;
    const pending = this.#delayed.get(item);
    if (pending === undefined) return this.#insert(item, at, priority);
    pending.priority = priority;
    if (at < pending.at) return this.#moveEarlier(pending, at);
    pending.at = at;
    pending.seq = this.#seq++;
    this.#down(pending.index);
  }

  /** Cancels the pending delay of `item`; returns whether there was one. */
  cancel(item: K): boolean {
    const pending = this.#delayed.get(item);
    if (pending === undefined) return false;
    this.#delayed.delete(item);
    this.#removeAt(pending.index);
    if (this.#heap.length === 0) this.#disarm();
    return true;
  }

  /** Milliseconds until the pending delay of `item` is due, or `undefined` if none. */
  delayOf(item: K): number | undefined {
    const pending = this.#delayed.get(item);
    return pending === undefined ? undefined : Math.max(0, pending.at - this.#clock.now());
  }

  get size(): number {
    return this.#delayed.size;
  }

  /** Cancels every pending delay. */
  clear(): void {
    this.#disarm();
    this.#delayed.clear();
    this.#heap.length = 0;
  }

  #insert(item: K, at: number, priority: number): void {
    const delayed: Delayed<K> = { item, at, priority, seq: this.#seq++, index: this.#heap.length };
    this.#delayed.set(item, delayed);
    this.#heap.push(delayed);
    this.#up(delayed.index);
    this.#arm();
  }

  #moveEarlier(pending: Delayed<K>, at: number): void {
    pending.at = at;
    pending.seq = this.#seq++;
    this.#up(pending.index);
    this.#arm();
  }

  /** Arms the timer for the earliest deadline unless one armed as early is already set. */
  #arm(): void {
    if (this.#firing) return; // #fire arms once it has handed over every due item
    const first = this.#heap[0];
    if (first === undefined) return this.#disarm();
    if (this.#timer !== undefined && this.#armedAt <= first.at) return;
    this.#disarm();
    this.#armedAt = first.at;
    this.#timer = this.#clock.setTimeout(() => this.#fire(), first.at - this.#clock.now());
  }

  #disarm(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armedAt = Infinity;
  }

  #fire(): void {
    this.#timer = undefined;
    this.#armedAt = Infinity;
    const now = this.#clock.now();
    this.#firing = true;
    try {
      for (let first = this.#heap[0]; first !== undefined && first.at <= now; first = this.#heap[0]) {
        this.#removeAt(0);
        this.#delayed.delete(first.item);
        this.#onDue(first.item, first.priority);
      }
    } finally {
      this.#firing = false;
      this.#arm();
    }
  }

  #removeAt(index: number): void {
    const heap = this.#heap;
    const last = heap.pop()!;
    if (index === heap.length) return;
    heap[index] = last;
    last.index = index;
    this.#up(index);
    this.#down(last.index);
  }

  #before(a: Delayed<K>, b: Delayed<K>): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  #up(index: number): void {
    const heap = this.#heap;
    const entry = heap[index]!;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parent = heap[parentIndex]!;
      if (!this.#before(entry, parent)) break;
      heap[index] = parent;
      parent.index = index;
      index = parentIndex;
    }
    heap[index] = entry;
    entry.index = index;
  }

  #down(index: number): void {
    const heap = this.#heap;
    const entry = heap[index]!;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && this.#before(heap[right]!, heap[left]!) ? right : left;
      if (!this.#before(heap[child]!, entry)) break;
      heap[index] = heap[child]!;
      heap[index]!.index = index;
      index = child;
    }
    heap[index] = entry;
    entry.index = index;
  }
}
