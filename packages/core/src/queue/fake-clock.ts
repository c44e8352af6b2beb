import type { Clock, TimerHandle } from './clock.js';

interface FakeTimer {
  readonly id: number;
  readonly at: number;
  readonly callback: () => void;
}

/**
 * A {@link Clock} whose time moves only when a test calls {@link FakeClock.advance}.
 *
 * Timers fire in deadline order (ties in creation order), each with `now()` equal to its
 * deadline, so a callback that arms a new timer inside the advanced window sees it fire too.
 *
 * @example
 * ```ts
 * import { FakeClock, WorkQueue } from '@kindex/core';
 * const clock = new FakeClock();
 * const queue = new WorkQueue({ clock });
 * queue.addAfter('a', 1000);
 * await clock.advance(1000); // 'a' is now queued
 * ```
 */
export class FakeClock implements Clock {
  #now: number;
  #nextId = 1;
  readonly #timers = new Map<number, FakeTimer>();

  /** @param startMs the initial time. Defaults to 0. */
  constructor(startMs = 0) {
    this.#now = startMs;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, delayMs: number): TimerHandle {
    const id = this.#nextId++;
    this.#timers.set(id, { id, at: this.#now + Math.max(0, delayMs), callback });
    return id;
  }

  clearTimeout(handle: TimerHandle): void {
    if (typeof handle === 'number') this.#timers.delete(handle);
  }

  /** Number of timers armed and not yet fired. */
  pendingTimers(): number {
    return this.#timers.size;
  }

  /**
   * Moves time forward by `ms`, firing due timers in order.
   *
   * Between timers it lets pending promise callbacks run (a macrotask turn), so async work
   * started by a timer settles before the next one fires, as it would in real time.
   */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    await settle();
    for (;;) {
      const next = this.#earliest();
      if (next === undefined || next.at > target) break;
      this.#timers.delete(next.id);
      this.#now = Math.max(this.#now, next.at);
      next.callback();
      await settle();
    }
    this.#now = target;
    await settle();
  }

  #earliest(): FakeTimer | undefined {
    let best: FakeTimer | undefined;
    for (const t of this.#timers.values()) {
      if (best === undefined || t.at < best.at || (t.at === best.at && t.id < best.id)) best = t;
    }
    return best;
  }
}

/** Lets queued microtasks and one macrotask turn run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
