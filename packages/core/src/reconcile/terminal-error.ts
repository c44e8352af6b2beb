/**
 * A reconcile failure that retrying will not fix (JOSDK `TerminalException`,
 * controller-runtime `TerminalError`).
 *
 * Thrown from a reconcile (or by the dispatcher on its behalf), it skips all remaining retries:
 * the failure is reported at once (the retries-exhausted hook, where `updateErrorStatus` runs)
 * and the primary is reconciled again only on its next event or its max reconciliation interval.
 *
 * @example
 * ```ts
 * import { ResourceID, TerminalError, type KubernetesObject } from '@kindex/core';
 * declare const job: KubernetesObject & { spec: { clusterName?: string } };
 * const key = ResourceID.keyOfResource(job);
 *
 * // Retrying cannot fix a missing field: fail at once and let updateErrorStatus report it.
 * if (!job.spec.clusterName) throw new TerminalError('spec.clusterName is required', { objectKey: key, field: 'spec.clusterName' });
 * ```
 */
export class TerminalError extends Error {
  override readonly name = 'TerminalError';
  readonly code = 'KINDEX_TERMINAL';
  /** `namespace/name` of the primary, when known. */
  readonly objectKey: string | undefined;
  /** Path of the offending field, when one is to blame. */
  readonly field: string | undefined;

  constructor(message: string, options: { objectKey?: string; field?: string; cause?: unknown } = {}) {
    const where = [options.objectKey && `object ${options.objectKey}`, options.field].filter(Boolean).join(': ');
    super(where ? `${where}: ${message}` : message, options.cause === undefined ? undefined : { cause: options.cause });
    this.objectKey = options.objectKey;
    this.field = options.field;
  }
}
