import { BucketRateLimiter } from './bucket-rate-limiter.js';
import { systemClock, type Clock } from './clock.js';
import { ItemExponentialFailureRateLimiter } from './item-exponential-failure-rate-limiter.js';
import { MaxOfRateLimiter } from './max-of-rate-limiter.js';
import type { RateLimiter } from './rate-limiter.js';

/**
 * controller-runtime's default: per-item backoff 5 ms doubling to 1000 s, and an overall bucket
 * of 10/s with burst 100, whichever waits longer.
 *
 * @param clock time source of the bucket. Defaults to {@link systemClock}.
 *
 * @example
 * ```ts
 * import { defaultControllerRateLimiter, WorkQueue } from '@kindex/core';
 *
 * // controller-runtime's default: per-item exponential backoff combined with an overall bucket.
 * const queue = new WorkQueue({ name: 'webapps', rateLimiter: defaultControllerRateLimiter() });
 * ```
 */
export function defaultControllerRateLimiter<K extends string = string>(clock: Clock = systemClock): RateLimiter<K> {
  return new MaxOfRateLimiter<K>(
    new ItemExponentialFailureRateLimiter<K>({ baseDelayMs: 5, maxDelayMs: 1_000_000 }),
    new BucketRateLimiter<K>({ qps: 10, burst: 100, clock }),
  );
}
