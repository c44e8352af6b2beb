/**
 * What a reconcile knows about the failures before it (JOSDK `RetryInfo`).
 *
 * Absent on a first attempt; present on every retry after a failure.
 *
 * @example
 * ```ts
 * import { UpdateControl, type Context, type KubernetesObject, type RetryInfo } from '@kindex/core';
 *
 * function reconcile(primary: KubernetesObject, context: Context): UpdateControl {
 *   const retry: RetryInfo | undefined = context.getRetryInfo();
 *   if (retry?.isLastAttempt) context.getLogger().warn({ attempt: retry.attemptCount }, 'last retry of this reconcile');
 *   return UpdateControl.noUpdate();
 * }
 * ```
 */
export interface RetryInfo {
  /** How many retries came before this attempt failed: 1 on the first retry. */
  readonly attemptCount: number;
  /** True when a failure of this attempt will not be retried (the hooks for exhaustion run). */
  readonly isLastAttempt: boolean;
}

/**
 * A retry policy: whether and when a failed reconcile of one primary runs again.
 *
 * One {@link RetryExecution} is started per failure streak of a primary and discarded when a
 * reconcile succeeds (or the primary is deleted), so the policy itself holds no state.
 * Retry decides *whether* and *when at the earliest*; the controller's {@link RateLimiter} can
 * only delay further (an overall budget across primaries).
 *
 * @see GenericRetry for the built-in exponential policy.
 *
 * @example
 * ```ts
 * import type { Retry, RetryExecution } from '@kindex/core';
 *
 * // Retry three times, 10 s apart, then give up.
 * const threeTimes: Retry = {
 *   initExecution(): RetryExecution {
 *     let attemptCount = 0;
 *     return {
 *       get attemptCount() { return attemptCount; },
 *       get isLastAttempt() { return attemptCount >= 3; },
 *       nextDelay: () => (++attemptCount <= 3 ? 10_000 : undefined),
 *     };
 *   },
 * };
 * ```
 */
export interface Retry {
  /** Starts counting a new failure streak. */
  initExecution(): RetryExecution;
}

/**
 * The state of one failure streak of one primary.
 *
 * @example
 * ```ts
 * import { GenericRetry, type RetryExecution } from '@kindex/core';
 *
 * const execution: RetryExecution = new GenericRetry({ maxAttempts: 3 }).initExecution();
 * const delays: number[] = [];
 * for (let d = execution.nextDelay(); d !== undefined; d = execution.nextDelay()) delays.push(d);
 * ```
 */
export interface RetryExecution extends RetryInfo {
  /**
   * Records one more failure and returns the wait before the next attempt, in ms, or
   * `undefined` when the attempts are exhausted.
   */
  nextDelay(): number | undefined;
}
