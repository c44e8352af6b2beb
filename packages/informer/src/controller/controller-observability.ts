import type { Logger, ReconcileCauses, WorkQueueMetricsProvider } from '@kindex/core';
import type { EventBroadcaster } from '../events/event-broadcaster.js';

/**
 * What the Operator hands each controller so it can be observed: where its logs go and who
 * records its work queue. Both optional: a controller built without them logs and measures
 * nothing.
 *
 * @example
 * ```ts
 * import { Controller, KubeClient, Kinds, type ControllerObservability } from '@kindex/informer';
 * import { type Logger, type Reconciler } from '@kindex/core';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 * declare const logger: Logger;
 * declare const reconciler: Reconciler<import('@kindex/core').KubernetesObject, KubeClient>;
 *
 * // A controller outside an Operator (usually the Operator wires this for you).
 * const observability: ControllerObservability = { logger };
 * const controller = new Controller(reconciler, { kind: Kinds.ConfigMap }, new KubeClient(kubeConfig), observability);
 * ```
 */
export interface ControllerObservability {
  /** Parent of the controller's logger (a child with `controller` and `kind`). Defaults to none. */
  readonly logger?: Logger;
  /** Records the controller's work queue (`workqueue_*`). Defaults to none. */
  readonly queueMetrics?: WorkQueueMetricsProvider;
  /** Writes the Events of `context.getEventRecorder()`. Defaults to none (records are dropped). */
  readonly events?: EventBroadcaster;
  /**
   * The default of the controller's `inspection` option (the Operator's `inspection`). Defaults
   * to `KINDEX_INSPECTION` in the environment, else false.
   */
  readonly inspection?: boolean;
}

/** What `describePrimary` and the debug endpoint say instead of records while inspection is off. */
export function inspectionOffHint(controller: string): string {
  return (
    `inspection is off for controller ${controller}: no causes nor last reconciles are kept; turn it on with the ` +
    `Operator option inspection: true (or the controller option inspection: true, or KINDEX_INSPECTION=true in the environment)`
  );
}

/**
 * The last reconcile of one primary: why it ran and how it ended (for the debug endpoint).
 *
 * @example
 * ```ts
 * import type { Controller, ReconcileRecord } from '@kindex/informer';
 * declare const controller: Controller;
 *
 * const last: ReconcileRecord | undefined = controller.describePrimary('shop/web').lastReconcile;
 * if (last?.result === 'error') console.log(`reconcile ${last.reconcileID} failed after ${last.durationMs} ms: ${last.error}`);
 * ```
 */
export interface ReconcileRecord {
  /** The id on the reconcile's log lines. */
  readonly reconcileID: string;
  /** When it started (ISO 8601). */
  readonly startedAt: string;
  /** The triggers that coalesced into it. */
  readonly causes: ReconcileCauses;
  /** Undefined while it runs. */
  readonly result?: 'success' | 'error';
  readonly durationMs?: number;
  /** The error's message, for a failed reconcile. */
  readonly error?: string;
}

/**
 * @internal Why a dispatch called no reconciler; the `reason` label of
 * `kindex_reconcile_skipped_total` (see `ControllerMetrics`).
 */
export type ReconcileSkipReason = 'not-cached' | 'not-owned' | 'hidden' | 'deleting';

/**
 * What a controller knows about one primary now (`Controller.describePrimary`).
 *
 * @example
 * ```ts
 * import type { Controller, PrimaryDescription } from '@kindex/informer';
 * declare const controller: Controller;
 *
 * // Why was this primary reconciled, and is another reconcile waiting? (also on /debug/controllers)
 * const description: PrimaryDescription = controller.describePrimary('shop/web');
 * console.log(description.cached, description.pending?.causes.map((c) => c.type), description.lastReconcile?.startedAt);
 * ```
 */
export interface PrimaryDescription {
  /** The primary's key (`namespace/name`). */
  readonly key: string;
  /** Whether the primary cache (or the controller's own last write) holds it. */
  readonly cached: boolean;
  /**
   * Whether the controller keeps the causes and last reconciles below (its `inspection`
   * option). When false both are undefined whatever happened, and `hint` says so.
   */
  readonly inspection: boolean;
  /** Set while inspection is off: that nothing is kept, and how to turn inspection on. */
  readonly hint?: string;
  /** Triggers gathered for its next reconcile, or undefined when none are pending. */
  readonly pending: ReconcileCauses | undefined;
  /** Its last reconcile since the controller started, or undefined. */
  readonly lastReconcile: ReconcileRecord | undefined;
  /**
   * When the max-reconciliation-interval safety net queues it at the earliest if nothing else
   * reconciles it first (ISO 8601; the sweep may come up to 11 of its steps later: see
   * `maxReconciliationIntervalMs`). Set while inspection is on, the interval is set and the
   * primary has a reconcile on record.
   */
  readonly maxIntervalReconcileAt?: string;
}
