/**
 * A reconcile ran longer than the controller's `reconcileTimeoutMs`.
 *
 * It is the reason of the `AbortSignal` the dispatcher receives, and the error the attempt
 * counts as (so it is retried like any failure once the hung call settles).
 */
export class ReconcileTimeoutError extends Error {
  override readonly name = 'ReconcileTimeoutError';
  /** `namespace/name` of the primary. */
  readonly objectKey: string;
  readonly timeoutMs: number;

  constructor(objectKey: string, timeoutMs: number, options?: { cause?: unknown }) {
    super(`object ${objectKey}: reconcile did not finish within ${timeoutMs} ms`, options);
    this.objectKey = objectKey;
    this.timeoutMs = timeoutMs;
  }
}
