import type { RateLimiter } from './rate-limiter.js';
import Type from 'typebox';
import { defineOptions } from '../options/define-options.js';

/**
 * Options of {@link ItemExponentialFailureRateLimiter}.
 *
 * @example
 * ```ts
 * import { ItemExponentialFailureRateLimiter, type ItemExponentialFailureRateLimiterOptions } from '@kindex/core';
 *
 * const options: ItemExponentialFailureRateLimiterOptions = { baseDelayMs: 500, maxDelayMs: 60_000 };
 * const limiter = new ItemExponentialFailureRateLimiter(options);
 * ```
 */
export interface ItemExponentialFailureRateLimiterOptions {
  /** Wait after the first failure, in ms. Defaults to 5. */
  readonly baseDelayMs?: number;
  /** Upper bound of the wait, in ms. Defaults to 1,000,000 (1000 s). */
  readonly maxDelayMs?: number;
}

/** {@link ItemExponentialFailureRateLimiterOptions}' keys and value checks. */
const ITEM_EXPONENTIAL_FAILURE_RATE_LIMITER_OPTIONS = defineOptions<ItemExponentialFailureRateLimiterOptions>(
  'ItemExponentialFailureRateLimiter options',
  {
    baseDelayMs: Type.Optional(Type.Number({ minimum: 0, description: 'a number of milliseconds, 0 or more' })),
    maxDelayMs: Type.Optional(Type.Number({ minimum: 0, description: 'a number of milliseconds, 0 or more' })),
  },
);

/**
 * Per-item exponential backoff: `baseDelayMs * 2^failures`, capped at `maxDelayMs`.
 *
 * The defaults (5 ms doubling to 1000 s) are client-go's: fast enough that a conflict on write is
 * retried at once, slow enough that a permanently failing item costs almost nothing.
 *
 * @example
 * ```ts
 * import { ItemExponentialFailureRateLimiter, WorkQueue } from '@kindex/core';
 *
 * // Retries of one item wait 1 s, 2 s, 4 s ... up to 5 minutes; other items are not slowed down.
 * const queue = new WorkQueue({ rateLimiter: new ItemExponentialFailureRateLimiter({ baseDelayMs: 1000, maxDelayMs: 300_000 }) });
 * ```
 */
export class ItemExponentialFailureRateLimiter<K extends string = string> implements RateLimiter<K> {
  readonly #base: number;
  readonly #max: number;
  readonly #failures = new Map<K, number>();

  constructor(options: ItemExponentialFailureRateLimiterOptions = {}) {
    ITEM_EXPONENTIAL_FAILURE_RATE_LIMITER_OPTIONS.check(options);
    this.#base = options.baseDelayMs ?? 5;
    this.#max = options.maxDelayMs ?? 1_000_000;
  }

  when(item: K): number {
    const exp = this.#failures.get(item) ?? 0;
    this.#failures.set(item, exp + 1);
    // 2^exp overflows to Infinity long before it matters; min() keeps the cap exact.
    return Math.min(this.#base * 2 ** exp, this.#max);
  }

  forget(item: K): void {
    // Called after every successful reconcile, nearly always with no failures recorded.
    if (this.#failures.size !== 0) this.#failures.delete(item);
  }

  numRequeues(item: K): number {
    return this.#failures.get(item) ?? 0;
  }
}
