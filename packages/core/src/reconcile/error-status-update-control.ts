import type { KubernetesObject } from '../resource/kubernetes-object.js';

/**
 * The result of `Reconciler.updateErrorStatus`: which status to write after a failed
 * reconcile, and whether retrying stops (JOSDK `ErrorStatusUpdateControl`).
 *
 * @example
 * ```ts
 * updateErrorStatus(job, ctx, error) {
 *   return ErrorStatusUpdateControl.patchStatus({ ...job, status: { error: String(error) } });
 * }
 * ```
 */
export class ErrorStatusUpdateControl<P extends KubernetesObject = KubernetesObject> {
  /** The primary whose status is written; undefined to write nothing. */
  readonly resource: P | undefined;
  /** Stop retrying even if attempts remain. */
  readonly noRetry: boolean;

  private constructor(resource: P | undefined, noRetry: boolean) {
    this.resource = resource;
    this.noRetry = noRetry;
    Object.freeze(this);
  }

  /** Patch the status subresource from `resource.status`. */
  static patchStatus<P extends KubernetesObject>(resource: P): ErrorStatusUpdateControl<P> {
    if (resource === null || typeof resource !== 'object') {
      throw new TypeError(`ErrorStatusUpdateControl.patchStatus needs the resource to write, got ${String(resource)}`);
    }
    return new ErrorStatusUpdateControl(resource, false);
  }

  /** Write nothing; retry as configured. */
  static defaultErrorProcessing<P extends KubernetesObject = KubernetesObject>(): ErrorStatusUpdateControl<P> {
    return new ErrorStatusUpdateControl<P>(undefined, false);
  }

  /** Write nothing (an alias of `defaultErrorProcessing` that reads better with `withNoRetry`). */
  static noStatusUpdate<P extends KubernetesObject = KubernetesObject>(): ErrorStatusUpdateControl<P> {
    return new ErrorStatusUpdateControl<P>(undefined, false);
  }

  /** The same control, also ending retries for this failure streak. */
  withNoRetry(): ErrorStatusUpdateControl<P> {
    return new ErrorStatusUpdateControl(this.resource, true);
  }
}
