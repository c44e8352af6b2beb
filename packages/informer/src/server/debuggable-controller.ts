import type { EventSource } from '@kindex/core';
import type { PrimaryDescription } from '../controller/controller-observability.js';

/**
 * A controller as the operator server shows it (`/debug/controllers`, per-primary descriptions,
 * source health): what `controllerDebugView`, `OperatorServer` and `SourceHealthMonitor` read,
 * declared here so server/ depends on this port and not on the concrete `Controller`, which
 * implements it.
 *
 * @example
 * ```ts
 * import { type Controller, type DebuggableController } from '@kindex/informer';
 * declare const controller: Controller;
 *
 * // A Controller is what /debug/controllers reads.
 * const debuggable: DebuggableController = controller;
 * ```
 */
export interface DebuggableController {
  readonly name: string;
  readonly kind: { readonly name: string };
  readonly configuration: { readonly concurrency: number };
  /** Whether per-primary causes and last reconciles are kept. */
  readonly inspection: boolean;
  /** The work queue's figures; undefined before start. */
  readonly processor:
    | {
        /** The queue's figures now: keys waiting, reconciles running, retries and reschedules delayed. */
        stats(): { readonly queued: number; readonly processing: number; readonly delayed: number };
      }
    | undefined;
  /** The primary cache: its size, whether it synced, and the size of each index. */
  readonly primaryCache: {
    readonly size: number;
    /** Whether the initial list has been read. */
    hasSynced(): boolean;
    /** Each index's number of keys, by index name. */
    indexSizes(): Record<string, number>;
  };
  readonly eventSources: readonly EventSource<unknown, never>[];
  /** What the controller knows about one primary now. */
  describePrimary(key: string): PrimaryDescription;
}

/**
 * A fleet as the operator server shows it: its engaged clusters and, per cluster, the controller
 * running there (`/debug/controllers` lists each with its `cluster`; `?cluster=<name>` addresses
 * one). Declared here so server/ depends on this port and not on the concrete `FleetController`,
 * which implements it.
 *
 * @example
 * ```ts
 * import { type DebuggableFleet, type FleetController } from '@kindex/informer';
 * declare const fleet: FleetController;
 *
 * const debuggable: DebuggableFleet = fleet;
 * for (const { name } of debuggable.clusters) {
 *   console.log(name, debuggable.controllerOf(name) === undefined ? 'no controller yet' : 'controller running');
 * }
 * ```
 */
export interface DebuggableFleet {
  readonly name: string;
  readonly kind: { readonly name: string };
  /** The clusters this replica runs, each `engaging`, `ready` or `degraded` (with `error`). */
  readonly clusters: readonly {
    readonly name: string;
    /** Where its provider found it (`Secret fleet/eu-1`). */
    readonly source: string;
    readonly state: string;
    readonly error?: string;
  }[];
  /** The controller running for `cluster`: undefined while it is not engaged here, or between attempts of a degraded one. */
  controllerOf(cluster: string): DebuggableController | undefined;
}
