/**
 * A reconcile ran longer than the controller's `reconcileTimeoutMs`.
 *
 * It is the reason of the `AbortSignal` the dispatcher receives, and the error the attempt
 * counts as (so it is retried like any failure once the hung call settles).
 *
 * @example
 * ```ts
 * import { ReconcileTimeoutError, type EventProcessor } from '@kindex/core';
 * declare const processor: EventProcessor;
 *
 * processor.events$.subscribe((e) => {
 *   if (e.type === 'finished' && e.outcome.type === 'error' && e.outcome.error instanceof ReconcileTimeoutError) {
 *     console.warn(`${e.outcome.error.objectKey} exceeded ${e.outcome.error.timeoutMs} ms`);
 *   }
 * });
 * ```
 */
export class ReconcileTimeoutError extends Error {
  override readonly name = 'ReconcileTimeoutError';
  readonly code = 'KINDEX_RECONCILE_TIMEOUT';
  /** `namespace/name` of the primary. */
  readonly objectKey: string;
  readonly timeoutMs: number;

  constructor(objectKey: string, timeoutMs: number, options?: { cause?: unknown }) {
    super(`object ${objectKey}: reconcile did not finish within ${timeoutMs} ms`, options);
    this.objectKey = objectKey;
    this.timeoutMs = timeoutMs;
  }
}
