import type { Clock, TimerHandle } from '../clock.js';

/**
 * The pending delayed adds of a work queue, one per item, shared by {@link WorkQueue} and
 * {@link PriorityWorkQueue} so both keep the same delay rules: the earliest deadline wins on
 * `addAfter`, `replace` moves it either way, and a due item is handed to `onDue`.
 *
 * One timer serves them all, armed for the earliest deadline of a binary heap: a controller
 * with a periodic reconcile holds a delay for every primary it knows, and a timer each (a Node
 * `Timeout`, its closure and its timer list) cost about 800 bytes a primary where a heap entry
 * costs about 83 (a map entry for its place, 40 bytes of typed arrays, a slot for the item: see
 * below).
 *
 * A deadline moved later moves nothing: every successful reconcile pushes its own periodic
 * reschedule further out, and sifting that entry down to a leaf cost a map update per level of
 * the heap (the largest part of the work queue's time per event in a CPU profile). The entry
 * keeps its place and its earlier heap key, and takes its real deadline when that key comes due
 * (then it sinks, once); the armed timer stays, and fires early at most once per such move.
 */
export class DelayedAdds<K> {
  readonly #clock: Clock;
  readonly #onDue: (item: K, priority: number) => void;
  /** Each pending item's place in the heap. */
  readonly #position = new Map<K, number>();
  // The heap as parallel arrays, one entry per place: an object per pending item (with its
  // deadline boxed as a heap number) cost about 119 bytes a delay, these about 67 (measured with
  // 100,000 delays, key strings aside). Each move within the heap updates #position.
  readonly #items: K[] = [];
  /** The heap's key of each place: when the item is due, or earlier if its deadline moved later since. */
  #at = new Float64Array(MIN_CAPACITY);
  /** Order among keys of the same time: the one given its deadline first goes first. */
  #seq = new Float64Array(MIN_CAPACITY);
  /** When each item is due (never before its key). */
  #dueAt = new Float64Array(MIN_CAPACITY);
  /** The order of that deadline among those of the same time. */
  #dueSeq = new Float64Array(MIN_CAPACITY);
  /** Priority of the add when it comes due (0 for queues without priorities). */
  #priority = new Float64Array(MIN_CAPACITY);
  #nextSeq = 0;
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
    const place = this.#position.get(item);
    if (place === undefined) return this.#insert(item, at, priority);
    if (priority > this.#priority[place]!) this.#priority[place] = priority;
    if (this.#dueAt[place]! <= at) return;
    this.#reschedule(place, at);
  }

  /** Replaces any pending delay of `item` (earlier or later) with one after `delayMs` (> 0). */
  replace(item: K, delayMs: number, priority: number): void {
    const at = this.#clock.now() + delayMs;
    const place = this.#position.get(item);
    if (place === undefined) return this.#insert(item, at, priority);
    this.#priority[place] = priority;
    this.#reschedule(place, at);
  }

  /** Cancels the pending delay of `item`; returns whether there was one. */
  cancel(item: K): boolean {
    const place = this.#position.get(item);
    if (place === undefined) return false;
    this.#position.delete(item);
    this.#removeAt(place);
    if (this.#items.length === 0) this.#disarm();
    return true;
  }

  /** Milliseconds until the pending delay of `item` is due, or `undefined` if none. */
  delayOf(item: K): number | undefined {
    const place = this.#position.get(item);
    return place === undefined ? undefined : Math.max(0, this.#dueAt[place]! - this.#clock.now());
  }

  get size(): number {
    return this.#items.length;
  }

  /** Cancels every pending delay. */
  clear(): void {
    this.#disarm();
    this.#position.clear();
    this.#items.length = 0;
    this.#resize(MIN_CAPACITY);
  }

  #insert(item: K, at: number, priority: number): void {
    const place = this.#items.length;
    if (place === this.#spare) this.#resize(place + (place >> 1));
    this.#items.push(item);
    const seq = this.#nextSeq++;
    this.#at[place] = this.#dueAt[place] = at;
    this.#seq[place] = this.#dueSeq[place] = seq;
    this.#priority[place] = priority;
    this.#position.set(item, place);
    this.#up(place);
    this.#arm();
  }

  /**
   * Gives the entry at `place` the deadline `at` (a new one in the order of deadlines). Before its
   * heap key, it moves up now; at or after it, only the deadline changes (see the class doc).
   */
  #reschedule(place: number, at: number): void {
    const seq = this.#nextSeq++;
    this.#dueAt[place] = at;
    this.#dueSeq[place] = seq;
    if (!before(at, seq, this.#at[place]!, this.#seq[place]!)) return;
    this.#at[place] = at;
    this.#seq[place] = seq;
    this.#up(place);
    this.#arm();
  }

  /** Arms the timer for the earliest deadline unless one armed as early is already set. */
  #arm(): void {
    if (this.#firing) return; // #fire arms once it has handed over every due item
    if (this.#items.length === 0) return this.#disarm();
    const first = this.#at[0]!;
    if (this.#timer !== undefined && this.#armedAt <= first) return;
    this.#disarm();
    this.#armedAt = first;
    this.#timer = this.#clock.setTimeout(() => this.#fire(), first - this.#clock.now());
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
      while (this.#items.length > 0 && this.#at[0]! <= now) {
        if (this.#at[0] !== this.#dueAt[0] || this.#seq[0] !== this.#dueSeq[0]) {
          // Its deadline moved later since it took this key: the real one is its key now.
          this.#at[0] = this.#dueAt[0]!;
          this.#seq[0] = this.#dueSeq[0]!;
          this.#down(0);
          continue;
        }
        const item = this.#items[0]!;
        const priority = this.#priority[0]!;
        this.#position.delete(item);
        this.#removeAt(0);
        this.#onDue(item, priority);
      }
    } finally {
      this.#firing = false;
      this.#arm();
    }
  }

  /** Removes the entry at `place` (its item already out of #position): the last one fills it. */
  #removeAt(place: number): void {
    const items = this.#items;
    const last = items.length - 1;
    const item = items.pop()!;
    if (place !== last) {
      this.#copy(last, place);
      items[place] = item;
      this.#position.set(item, place);
      this.#down(this.#up(place));
    }
    // Give back what a burst of delays took once most have come due or been cancelled.
    const capacity = this.#at.length;
    if (capacity > MIN_CAPACITY && items.length * 4 < capacity) this.#resize(capacity >> 1);
  }

  /** Moves the entry at `place` up to where it belongs; returns its new place. */
  #up(place: number): number {
    const item = this.#items[place]!;
    this.#hold(place);
    const at = this.#at[this.#spare]!;
    const seq = this.#seq[this.#spare]!;
    while (place > 0) {
      const parent = (place - 1) >> 1;
      if (!before(at, seq, this.#at[parent]!, this.#seq[parent]!)) break;
      this.#move(parent, place);
      place = parent;
    }
    this.#release(place, item);
    return place;
  }

  /** Moves the entry at `place` down to where it belongs. */
  #down(place: number): void {
    const length = this.#items.length;
    const item = this.#items[place]!;
    this.#hold(place);
    const at = this.#at[this.#spare]!;
    const seq = this.#seq[this.#spare]!;
    for (;;) {
      const left = 2 * place + 1;
      if (left >= length) break;
      const right = left + 1;
      const child = right < length && before(this.#at[right]!, this.#seq[right]!, this.#at[left]!, this.#seq[left]!) ? right : left;
      if (!before(this.#at[child]!, this.#seq[child]!, at, seq)) break;
      this.#move(child, place);
      place = child;
    }
    this.#release(place, item);
  }

  /**
   * The place past the last one the arrays can hold: a sift keeps the entry it moves there while
   * the others shift, so a sift allocates nothing and moves each field once per level.
   */
  get #spare(): number {
    return this.#at.length - 1;
  }

  /** Keeps the fields of the entry at `place` in the spare place (its item stays with the caller). */
  #hold(place: number): void {
    this.#copy(place, this.#spare);
  }

  /** Puts the held entry, `item`, at `place`. */
  #release(place: number, item: K): void {
    this.#copy(this.#spare, place);
    this.#items[place] = item;
    this.#position.set(item, place);
  }

  /** Moves the entry at `from` to `to` (during a sift). */
  #move(from: number, to: number): void {
    const item = this.#items[from]!;
    this.#copy(from, to);
    this.#items[to] = item;
    this.#position.set(item, to);
  }

  /** Copies the fields of the entry at `from` to `to`. */
  #copy(from: number, to: number): void {
    this.#at[to] = this.#at[from]!;
    this.#seq[to] = this.#seq[from]!;
    this.#dueAt[to] = this.#dueAt[from]!;
    this.#dueSeq[to] = this.#dueSeq[from]!;
    this.#priority[to] = this.#priority[from]!;
  }

  /** Reallocates the typed arrays to `capacity` entries (at least the entries held). */
  #resize(capacity: number): void {
    const grow = (from: Float64Array) => {
      const to = new Float64Array(Math.max(capacity, MIN_CAPACITY));
      to.set(from.subarray(0, Math.min(this.#items.length, to.length)));
      return to;
    };
    this.#at = grow(this.#at);
    this.#seq = grow(this.#seq);
    this.#dueAt = grow(this.#dueAt);
    this.#dueSeq = grow(this.#dueSeq);
    this.#priority = grow(this.#priority);
  }
}

/** Entries held without reallocating. */
const MIN_CAPACITY = 16;

/** Whether an entry due `at` (given its deadline `seq`-th) goes before one due `otherAt`. */
function before(at: number, seq: number, otherAt: number, otherSeq: number): boolean {
  return at < otherAt || (at === otherAt && seq < otherSeq);
}
