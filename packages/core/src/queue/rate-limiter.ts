/**
 * Decides how long an item waits before it is queued again (client-go `workqueue.RateLimiter`).
 *
 * `when` is called once per rate-limited re-add and may count it (exponential backoff) or spend a
 * token (bucket); `forget` ends the item's failure streak after it succeeded.
 *
 * Built-ins: {@link ItemExponentialFailureRateLimiter} (per item, doubles per failure),
 * {@link BucketRateLimiter} (overall token bucket), {@link MaxOfRateLimiter} (the longest wait
 * of several) and {@link defaultControllerRateLimiter} (the two combined, as controller-runtime).
 *
 * @example
 * ```ts
 * import { WorkQueue, type RateLimiter } from '@kindex/core';
 *
 * // A fixed 5 s delay for every retry of every item.
 * const fixedDelay: RateLimiter = { when: () => 5_000, forget: () => {}, numRequeues: () => 0 };
 * const queue = new WorkQueue({ rateLimiter: fixedDelay });
 * ```
 */
export interface RateLimiter<K extends string = string> {
  /** Milliseconds `item` must wait now. Counts as one requeue. */
  when(item: K): number;
  /** Stops tracking `item`: its next failure starts from the base delay again. */
  forget(item: K): void;
  /** How many times `item` was requeued since the last `forget`. */
  numRequeues(item: K): number;
}
