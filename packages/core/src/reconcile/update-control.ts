import type { KubernetesObject } from '../resource/kubernetes-object.js';

/**
 * What a reconcile asks the controller to write: nothing, the resource, its status or both.
 *
 * @example
 * ```ts
 * import type { UpdateKind } from '@kindex/core';
 *
 * // Count reconciles by what they wrote, for a dashboard.
 * const writes: Record<UpdateKind, number> = { noUpdate: 0, patchResource: 0, patchStatus: 0, patchResourceAndStatus: 0 };
 * ```
 */
export type UpdateKind = 'noUpdate' | 'patchResource' | 'patchStatus' | 'patchResourceAndStatus';

/**
 * The result of `Reconciler.reconcile`: which changes of the primary to write, and whether to
 * reconcile again after a delay (JOSDK `UpdateControl`).
 *
 * The controller writes `resource` as a patch: its spec/metadata for `patchResource`, its
 * `status` subresource for `patchStatus` (resource first, then status, for both). Writes are
 * read-after-write consistent: the next reconcile sees the patched object even if the watch has
 * not delivered it yet. Instances are immutable; `rescheduleAfter` returns a new one.
 *
 * @example
 * ```ts
 * import { UpdateControl, type KubernetesObject } from '@kindex/core';
 * type Job = KubernetesObject & { status?: { phase: string } };
 *
 * function reconcile(job: Job): UpdateControl<Job> {
 *   return UpdateControl.patchStatus({ ...job, status: { phase: 'Ready' } }).rescheduleAfter(60_000);
 * }
 * ```
 */
export class UpdateControl<P extends KubernetesObject = KubernetesObject> {
  readonly kind: UpdateKind;
  /** The primary as it should be written; undefined for `noUpdate`. */
  readonly resource: P | undefined;
  /**
   * Reconcile again after this many ms even without an event. The controller's
   * `maxReconciliationIntervalMs` still applies as an upper bound.
   */
  readonly scheduleDelayMs: number | undefined;
  /**
   * Queue priority of that reconcile with the controller's `queue: 'priority'` (higher first).
   * Undefined keeps the priority this reconcile ran at.
   */
  readonly schedulePriority: number | undefined;

  /**
   * The one `noUpdate` control. Instances are frozen and `noUpdate` carries no resource, so every
   * reconcile that writes nothing (the commonest result) returns this object instead of a new one;
   * `UpdateControl<never>` fits every primary type, and `rescheduleAfter` still returns a new control.
   */
  static readonly #noUpdate: UpdateControl<never> = new UpdateControl<never>('noUpdate', undefined, undefined);

  private constructor(kind: UpdateKind, resource: P | undefined, scheduleDelayMs: number | undefined, schedulePriority?: number) {
    this.kind = kind;
    this.resource = resource;
    this.scheduleDelayMs = scheduleDelayMs;
    this.schedulePriority = schedulePriority;
    Object.freeze(this);
  }

  /**
   * Write nothing.
   *
   * Without a type argument the control is an `UpdateControl<never>`, which fits every primary
   * type: a `reconcile` without a return type annotation that returns `noUpdate()` in one branch
   * and `patchStatus(job)` in another infers `UpdateControl<Job>`, not
   * `UpdateControl<KubernetesObject>` (which `Reconciler<Job>` rejects under `strict`).
   */
  static noUpdate<P extends KubernetesObject = never>(): UpdateControl<P> {
    return UpdateControl.#noUpdate;
  }

  /** Patch the primary's `status` subresource from `resource.status`. */
  static patchStatus<P extends KubernetesObject>(resource: P): UpdateControl<P> {
    return new UpdateControl('patchStatus', required(resource, 'patchStatus'), undefined);
  }

  /** Patch the primary itself (metadata and spec; status is ignored by the API server). */
  static patchResource<P extends KubernetesObject>(resource: P): UpdateControl<P> {
    return new UpdateControl('patchResource', required(resource, 'patchResource'), undefined);
  }

  /** Patch the primary, then its status. */
  static patchResourceAndStatus<P extends KubernetesObject>(resource: P): UpdateControl<P> {
    return new UpdateControl('patchResourceAndStatus', required(resource, 'patchResourceAndStatus'), undefined);
  }

  /**
   * The same control, also asking to reconcile again after `delayMs` milliseconds; with
   * `options.priority`, at that queue priority (honoured by `queue: 'priority'`, as
   * controller-runtime's `Result.Priority`).
   *
   * @example
   * ```ts
   * import { LOW_PRIORITY, UpdateControl } from '@kindex/core';
   *
   * // A periodic check that must not delay reconciles of real changes.
   * const control = UpdateControl.noUpdate().rescheduleAfter(60_000, { priority: LOW_PRIORITY });
   * ```
   */
  rescheduleAfter(delayMs: number, options?: { readonly priority?: number }): UpdateControl<P> {
    return new UpdateControl(this.kind, this.resource, validDelay(delayMs), validPriority(options?.priority));
  }

  /** Whether the primary's metadata/spec is to be patched. */
  get isPatchResource(): boolean {
    return this.kind === 'patchResource' || this.kind === 'patchResourceAndStatus';
  }

  /** Whether the primary's status is to be patched. */
  get isPatchStatus(): boolean {
    return this.kind === 'patchStatus' || this.kind === 'patchResourceAndStatus';
  }
}

function required<P>(resource: P, method: string): P {
  if (resource === null || typeof resource !== 'object') {
    throw new TypeError(`UpdateControl.${method} needs the resource to write, got ${String(resource)}`);
  }
  return resource;
}

/** @internal Shared by the controls: a reschedule delay must be a finite number >= 0. */
export function validDelay(delayMs: number): number {
  if (typeof delayMs !== 'number' || !Number.isFinite(delayMs) || delayMs < 0) {
    throw new RangeError(`rescheduleAfter needs a finite delay >= 0 ms, got ${String(delayMs)}`);
  }
  return delayMs;
}

/** A requeue priority must be a finite number (or absent). */
function validPriority(priority: number | undefined): number | undefined {
  if (priority !== undefined && (typeof priority !== 'number' || !Number.isFinite(priority))) {
    throw new RangeError(
      `rescheduleAfter: options.priority must be a finite number (higher is reconciled first; omit it to keep the current priority), got ${String(priority)}`,
    );
  }
  return priority;
}
