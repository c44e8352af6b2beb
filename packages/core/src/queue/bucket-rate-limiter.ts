import { systemClock, type Clock } from './clock.js';
import type { RateLimiter } from './rate-limiter.js';
import Type from 'typebox';
import { defineOptions } from '../options/define-options.js';

/**
 * Options of {@link BucketRateLimiter}.
 *
 * @example
 * ```ts
 * import { BucketRateLimiter, type BucketRateLimiterOptions } from '@kindex/core';
 *
 * const options: BucketRateLimiterOptions = { qps: 2, burst: 10 };
 * const limiter = new BucketRateLimiter(options);
 * ```
 */
export interface BucketRateLimiterOptions {
  /** Tokens added per second: the sustained rate of requeues. Defaults to 10. */
  readonly qps?: number;
  /** Bucket size: how many requeues may go at once after a quiet spell. Defaults to 100. */
  readonly burst?: number;
  /** Time source. Defaults to {@link systemClock}. */
  readonly clock?: Clock;
}

/** {@link BucketRateLimiterOptions}' keys and value checks. */
const BUCKET_RATE_LIMITER_OPTIONS = defineOptions<BucketRateLimiterOptions>('BucketRateLimiter options', {
  qps: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'a number of requeues per second above 0' })),
  burst: Type.Optional(Type.Number({ minimum: 1, description: 'a number of requeues, 1 or more' })),
  clock: Type.Optional(Type.Unknown()),
});

/**
 * An overall token bucket shared by all items (client-go `BucketRateLimiter`, 10/s burst 100).
 *
 * Each `when` reserves one token, possibly in the future, and returns how long until it is
 * available; so a storm of failures is spread out rather than refused. It bounds the load a
 * controller puts on the API server when many primaries fail at once, which a per-item
 * backoff alone cannot do. It tracks no items: `forget` does nothing, `numRequeues` is 0.
 *
 * @example
 * ```ts
 * import { BucketRateLimiter, WorkQueue } from '@kindex/core';
 *
 * // At most 10 retries per second overall, bursts of 100: protects the API server after an outage.
 * const queue = new WorkQueue({ rateLimiter: new BucketRateLimiter({ qps: 10, burst: 100 }) });
 * ```
 */
export class BucketRateLimiter<K extends string = string> implements RateLimiter<K> {
  readonly #qps: number;
  readonly #burst: number;
  readonly #clock: Clock;
  #tokens: number;
  #last: number;

  constructor(options: BucketRateLimiterOptions = {}) {
    BUCKET_RATE_LIMITER_OPTIONS.check(options);
    this.#qps = options.qps ?? 10;
    this.#burst = options.burst ?? 100;
    this.#clock = options.clock ?? systemClock;
    this.#tokens = this.#burst;
    this.#last = this.#clock.now();
  }

  when(_item: K): number {
    const now = this.#clock.now();
    if (now > this.#last) {
      this.#tokens = Math.min(this.#burst, this.#tokens + ((now - this.#last) * this.#qps) / 1000);
      this.#last = now;
    }
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : Math.ceil((-this.#tokens * 1000) / this.#qps);
  }

  forget(_item: K): void {}

  numRequeues(_item: K): number {
    return 0;
  }
}
