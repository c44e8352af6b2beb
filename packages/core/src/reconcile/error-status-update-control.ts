import type { KubernetesObject } from '../resource/kubernetes-object.js';

/**
 * The result of `Reconciler.updateErrorStatus`: which status to write after the last failed
 * attempt (JOSDK `ErrorStatusUpdateControl`).
 *
 * JOSDK's `withNoRetry()` has no counterpart: `updateErrorStatus` runs when retries are over;
 * to stop retrying early, throw a {@link TerminalError} from `reconcile`.
 *
 * @example
 * ```ts
 * import { ErrorStatusUpdateControl, UpdateControl, type KubernetesObject, type Reconciler } from '@kindex/core';
 * type Job = KubernetesObject & { status?: { error?: string } };
 *
 * class JobReconciler implements Reconciler<Job> {
 *   reconcile(job: Job): UpdateControl<Job> {
 *     return UpdateControl.noUpdate();
 *   }
 *   updateErrorStatus(job: Job, _context: unknown, error: unknown): ErrorStatusUpdateControl<Job> {
 *     return ErrorStatusUpdateControl.patchStatus({ ...job, status: { error: String(error) } });
 *   }
 * }
 * ```
 */
export class ErrorStatusUpdateControl<P extends KubernetesObject = KubernetesObject> {
  /** The primary whose status is written; undefined to write nothing. */
  readonly resource: P | undefined;

  private constructor(resource: P | undefined) {
    this.resource = resource;
    Object.freeze(this);
  }

  /** Patch the status subresource from `resource.status`. */
  static patchStatus<P extends KubernetesObject>(resource: P): ErrorStatusUpdateControl<P> {
    if (resource === null || typeof resource !== 'object') {
      throw new TypeError(`ErrorStatusUpdateControl.patchStatus needs the resource to write, got ${String(resource)}`);
    }
    return new ErrorStatusUpdateControl(resource);
  }

  /**
   * Write nothing. Without a type argument it fits every primary type, as
   * `UpdateControl.noUpdate()` does, so an unannotated `updateErrorStatus` infers its primary's control.
   */
  static noStatusUpdate<P extends KubernetesObject = never>(): ErrorStatusUpdateControl<P> {
    return new ErrorStatusUpdateControl<P>(undefined);
  }
}
