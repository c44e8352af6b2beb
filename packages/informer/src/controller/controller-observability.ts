import type { Logger, ReconcileCauses, WorkQueueMetricsProvider } from '@kindex/core';

/**
 * What the Operator hands each controller so it can be observed: where its logs go and who
 * records its work queue. Both optional: a controller built without them logs and measures
 * nothing.
 */
export interface ControllerObservability {
  /** Parent of the controller's logger (a child with `controller` and `kind`). Defaults to none. */
  readonly logger?: Logger;
  /** Records the controller's work queue (`workqueue_*`). Defaults to none. */
  readonly queueMetrics?: WorkQueueMetricsProvider;
}

/** The last reconcile of one primary: why it ran and how it ended (for the debug endpoint). */
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

/** What a controller knows about one primary now (`Controller.describePrimary`). */
export interface PrimaryDescription {
  /** The primary's key (`namespace/name`). */
  readonly key: string;
  /** Whether the primary cache (or the controller's own last write) holds it. */
  readonly cached: boolean;
  /** Triggers gathered for its next reconcile, or undefined when none are pending. */
  readonly pending: ReconcileCauses | undefined;
  /** Its last reconcile since the controller started, or undefined. */
  readonly lastReconcile: ReconcileRecord | undefined;
}
