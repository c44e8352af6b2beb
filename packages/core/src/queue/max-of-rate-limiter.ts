import type { RateLimiter } from './rate-limiter.js';

/**
 * Combines rate limiters: the wait is the longest any of them asks for.
 *
 * Every limiter sees every `when` (so a bucket spends its token even when a backoff dominates),
 * and `numRequeues` is the largest count reported.
 *
 * @example
 * ```ts
 * import { BucketRateLimiter, ItemExponentialFailureRateLimiter, MaxOfRateLimiter } from '@kindex/core';
 *
 * // Per-item backoff, but never more than 5 retries per second in total.
 * const limiter = new MaxOfRateLimiter(new ItemExponentialFailureRateLimiter({ baseDelayMs: 200 }), new BucketRateLimiter({ qps: 5, burst: 50 }));
 * ```
 */
export class MaxOfRateLimiter<K extends string = string> implements RateLimiter<K> {
  readonly #limiters: readonly RateLimiter<K>[];

  constructor(...limiters: RateLimiter<K>[]) {
    if (limiters.length === 0) throw new RangeError('MaxOfRateLimiter needs at least one limiter');
    this.#limiters = limiters;
  }

  when(item: K): number {
    let wait = 0;
    for (const l of this.#limiters) wait = Math.max(wait, l.when(item));
    return wait;
  }

  forget(item: K): void {
    for (const l of this.#limiters) l.forget(item);
  }

  numRequeues(item: K): number {
    let n = 0;
    for (const l of this.#limiters) n = Math.max(n, l.numRequeues(item));
    return n;
  }
}
