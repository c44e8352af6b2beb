import type { Clock, TimerHandle } from '../clock.js';

interface Delayed {
  /** When the item is due. */
  at: number;
  /**
   * The timer armed for it, set to fire at or before `at`: a later deadline keeps the timer,
   * which re-arms for the rest when it fires (no timer churn when a reconcile pushes its own
   * reschedule further out, as every successful one does).
   */
  timer: TimerHandle;
  /** Priority of the add when it comes due (0 for queues without priorities). */
  priority: number;
}

/**
 * The pending delayed adds of a work queue, one per item, shared by {@link WorkQueue} and
 * {@link PriorityWorkQueue} so both keep the same delay rules: the earliest deadline wins on
 * `addAfter`, `replace` moves it either way, and a due item is handed to `onDue`.
 */
export class DelayedAdds<K> {
  readonly #clock: Clock;
  readonly #onDue: (item: K, priority: number) => void;
  readonly #delayed = new Map<K, Delayed>();

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
    if (pending !== undefined) {
      if (priority > pending.priority) pending.priority = priority;
      if (pending.at <= at) return;
      this.#clock.clearTimeout(pending.timer);
      priority = pending.priority;
    }
    this.#arm(item, at, delayMs, priority);
  }

  /** Replaces any pending delay of `item` (earlier or later) with one after `delayMs` (> 0). */
  replace(item: K, delayMs: number, priority: number): void {
    const pending = this.#delayed.get(item);
    const at = this.#clock.now() + delayMs;
    if (pending !== undefined && pending.at <= at) {
      pending.at = at;
      pending.priority = priority;
      return;
    }
    if (pending !== undefined) this.#clock.clearTimeout(pending.timer);
    this.#arm(item, at, delayMs, priority);
  }

  #arm(item: K, at: number, delayMs: number, priority: number): void {
    const delayed: Delayed = { at, timer: undefined, priority };
    const fire = (): void => {
      // A replaced timer that fires anyway (clock race) must not add early.
      if (this.#delayed.get(item) !== delayed) return;
      const left = delayed.at - this.#clock.now();
      if (left > 0) {
        delayed.timer = this.#clock.setTimeout(fire, left);
        return;
      }
      this.#delayed.delete(item);
      this.#onDue(item, delayed.priority);
    };
    delayed.timer = this.#clock.setTimeout(fire, delayMs);
    this.#delayed.set(item, delayed);
  }

  /** Cancels the pending delay of `item`; returns whether there was one. */
  cancel(item: K): boolean {
    const pending = this.#delayed.get(item);
    if (pending === undefined) return false;
    this.#clock.clearTimeout(pending.timer);
    this.#delayed.delete(item);
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
    for (const d of this.#delayed.values()) this.#clock.clearTimeout(d.timer);
    this.#delayed.clear();
  }
}
