import { validDelay } from './update-control.js';

/**
 * The result of `Reconciler.cleanup`: whether the controller may remove its finalizer now
 * (JOSDK `DeleteControl`).
 *
 * `defaultDelete()` removes the finalizer, which lets Kubernetes delete the primary.
 * `noFinalizerRemoval()` keeps it (cleanup is still under way, for example waiting for an
 * external resource to go), usually with `rescheduleAfter` to check again.
 *
 * @example
 * ```ts
 * import { DeleteControl, type KubernetesObject } from '@kindex/core';
 * declare function bucketStillExists(job: KubernetesObject): Promise<boolean>;
 *
 * async function cleanup(job: KubernetesObject): Promise<DeleteControl> {
 *   // Keep the finalizer (and the object) until the external bucket is gone.
 *   if (await bucketStillExists(job)) return DeleteControl.noFinalizerRemoval().rescheduleAfter(5_000);
 *   return DeleteControl.defaultDelete();
 * }
 * ```
 */
export class DeleteControl {
  /** Whether the controller removes its finalizer from the primary. */
  readonly removeFinalizer: boolean;
  /** Run cleanup again after this many ms; only with `noFinalizerRemoval`. */
  readonly scheduleDelayMs: number | undefined;

  private constructor(removeFinalizer: boolean, scheduleDelayMs: number | undefined) {
    this.removeFinalizer = removeFinalizer;
    this.scheduleDelayMs = scheduleDelayMs;
    Object.freeze(this);
  }

  /** Cleanup is complete: remove the finalizer. */
  static defaultDelete(): DeleteControl {
    return new DeleteControl(true, undefined);
  }

  /** Cleanup is not complete: keep the finalizer so the primary stays. */
  static noFinalizerRemoval(): DeleteControl {
    return new DeleteControl(false, undefined);
  }

  /**
   * Runs cleanup again after `delayMs` ms.
   * @throws {TypeError} on `defaultDelete()`: once the finalizer is gone the primary may vanish
   * and there is nothing to reschedule.
   */
  rescheduleAfter(delayMs: number): DeleteControl {
    if (this.removeFinalizer) {
      throw new TypeError('DeleteControl.rescheduleAfter needs noFinalizerRemoval(): a removed finalizer cannot be rescheduled');
    }
    return new DeleteControl(false, validDelay(delayMs));
  }
}
