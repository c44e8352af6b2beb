import type { Clock, TimerHandle } from '@kindex/core';

/**
 * The clock of lease-based coordination (leader election, shard ownership). `Date.now()` can
 * jump (NTP, a suspended VM); lease expiry is measured on this monotonic clock, which is also
 * what the lease timestamps are written from. Its timers do not keep the process alive.
 */
export const monotonicClock: Clock = Object.freeze({
  now: () => performance.timeOrigin + performance.now(),
  setTimeout: (callback: () => void, delayMs: number): TimerHandle => {
    const timer = setTimeout(callback, Math.max(0, delayMs));
    timer.unref();
    return timer;
  },
  clearTimeout: (handle: TimerHandle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
});
