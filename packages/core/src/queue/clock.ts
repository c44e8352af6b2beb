/**
 * An opaque handle for a timer started by a {@link Clock}.
 *
 * @example
 * ```ts
 * import { systemClock, type TimerHandle } from '@kindex/core';
 *
 * const handle: TimerHandle = systemClock.setTimeout(() => console.log('tick'), 1000);
 * systemClock.clearTimeout(handle);
 * ```
 */
export type TimerHandle = unknown;

/**
 * The time source and timer service of the queue, the event processor and the built-in sources.
 *
 * Every component that waits takes a `Clock` so tests swap in {@link FakeClock} and advance
 * time by hand: no real sleeps, no flaky timing in unit tests.
 *
 * @example
 * ```ts
 * import { WorkQueue, type Clock } from '@kindex/core';
 *
 * // A clock that runs time 10x faster, for a demo of retries.
 * const start = Date.now();
 * const fastClock: Clock = {
 *   now: () => start + (Date.now() - start) * 10,
 *   setTimeout: (callback, delayMs) => setTimeout(callback, delayMs / 10),
 *   clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
 * };
 * const queue = new WorkQueue({ clock: fastClock });
 * ```
 */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `callback` once after `delayMs` milliseconds. */
  setTimeout(callback: () => void, delayMs: number): TimerHandle;
  /** Cancels a timer; unknown or already fired handles are ignored. */
  clearTimeout(handle: TimerHandle): void;
}

/**
 * The real clock: `Date.now` and Node timers.
 *
 * Timers are `unref`'d so a forgotten reschedule never keeps the process alive after shutdown.
 *
 * @example
 * ```ts
 * import { systemClock, TimerEventSource } from '@kindex/core';
 *
 * // The real clock is the default; pass it explicitly when a constructor takes a clock and you want real time.
 * const timers = new TimerEventSource({ clock: systemClock });
 * ```
 */
export const systemClock: Clock = Object.freeze({
  now: () => Date.now(),
  setTimeout: (callback: () => void, delayMs: number): TimerHandle => {
    // Node caps timers at 2^31-1 ms (about 24.8 days) and fires at once beyond it.
    const timer = setTimeout(callback, Math.min(Math.max(0, delayMs), 2_147_483_647));
    timer.unref();
    return timer;
  },
  clearTimeout: (handle: TimerHandle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
});
