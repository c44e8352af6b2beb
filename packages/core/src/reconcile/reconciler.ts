/**
 * Reconcile: the user's logic and the machinery that runs it.
 *
 * A {@link Reconciler} turns a primary and its {@link Context} into an {@link UpdateControl}
 * (or, during deletion, a {@link DeleteControl}). The {@link EventProcessor} decides when it runs:
 * it merges every event source's triggers, queues primaries in a {@link WorkQueue}, runs at most
 * one reconcile per primary at a time with `concurrency` workers, and retries failures. The
 * Kubernetes layer provides the dispatcher that fetches the primary, handles the finalizer and
 * writes the controls through the API.
 */
import type { KubernetesObject } from '../resource/kubernetes-object.js';
import type { EventSource } from '../source/event-source.js';
import type { Context } from './context.js';
import type { DeleteControl } from './delete-control.js';
import type { ErrorStatusUpdateControl } from './error-status-update-control.js';
import type { EventSourceContext } from './event-source-context.js';
import type { UpdateControl } from './update-control.js';

/**
 * The user's controller logic for one primary type (JOSDK `Reconciler`, `Cleaner`,
 * `ErrorStatusHandler` and `EventSourceInitializer` in one interface).
 *
 * Contract:
 * - `reconcile` is never called for a primary while another call for the same primary (or its
 *   `cleanup`/`updateErrorStatus`) runs. Events meanwhile coalesce into one follow-up call.
 *   Calls for different primaries run concurrently, up to the controller's `concurrency`.
 * - It must be idempotent: it may run again for the same state (a coalesced event, a reschedule,
 *   the max reconciliation interval, a retry after a write conflict).
 * - Throwing retries with backoff per the controller's `retry` (default 5 retries from 2 s,
 *   x1.5); when the attempts are exhausted `updateErrorStatus` runs. A {@link TerminalError}
 *   skips the retries. Either way the primary's next event reconciles it again.
 * - The returned control's writes happen before the next call for the primary, and that next
 *   call sees them (read-after-write).
 * - With `cleanup`, the controller adds its finalizer to the primary before the first
 *   `reconcile`; once the primary is being deleted it calls `cleanup` instead of `reconcile`, and
 *   removes the finalizer when `cleanup` returns `DeleteControl.defaultDelete()`.
 * - A call that exceeds the controller's `reconcileTimeoutMs` frees its worker and counts as
 *   failed, but the primary is not reconciled again until that call settles: use the
 *   `AbortSignal` the Kubernetes layer passes on to stop hung I/O.
 *
 * @typeParam C the client type the Kubernetes layer provides.
 *
 * @example
 * ```ts
 * import { UpdateControl, type Context, type KubernetesObject, type Reconciler } from '@kindex/core';
 * type WebApp = KubernetesObject & { spec: { replicas: number }; status?: { observedReplicas?: number } };
 *
 * class WebAppReconciler implements Reconciler<WebApp> {
 *   reconcile(webApp: WebApp, context: Context<WebApp>): UpdateControl<WebApp> {
 *     context.getLogger().info({ replicas: webApp.spec.replicas }, 'reconciling');
 *     if (webApp.status?.observedReplicas === webApp.spec.replicas) return UpdateControl.noUpdate();
 *     return UpdateControl.patchStatus({ ...webApp, status: { observedReplicas: webApp.spec.replicas } });
 *   }
 * }
 * ```
 */
export interface Reconciler<P extends KubernetesObject = KubernetesObject, C = unknown> {
  /** Brings the world in line with `primary`'s spec; says what to write back. */
  reconcile(primary: P, context: Context<P, C>): UpdateControl<P> | Promise<UpdateControl<P>>;
  /**
   * Creates the event sources of secondary resources, once before the controller starts. The
   * primary cache accepts indexers here.
   */
  prepareEventSources?(context: EventSourceContext<P, C>): readonly EventSource<unknown, P>[] | Promise<readonly EventSource<unknown, P>[]>;
  /**
   * Releases what the primary holds before Kubernetes deletes it. Having it makes the
   * controller manage a finalizer. Must be idempotent too.
   */
  cleanup?(primary: P, context: Context<P, C>): DeleteControl | Promise<DeleteControl>;
  /**
   * Records a failure in the primary's status after the last retry (or a TerminalError);
   * `context.getRetryInfo()` tells the attempts made.
   */
  updateErrorStatus?(
    primary: P,
    context: Context<P, C>,
    error: unknown,
  ): ErrorStatusUpdateControl<P> | Promise<ErrorStatusUpdateControl<P>>;
}
