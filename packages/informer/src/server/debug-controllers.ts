import type { EventSource, EventSourceHealth } from '@kindex/core';
import type { Observable } from 'rxjs';
import { inspectionOffHint } from '../controller/controller-observability.js';
import type { DebuggableController } from './debuggable-controller.js';

/**
 * One controller as the debug endpoint shows it.
 *
 * @example
 * ```ts
 * import { type Controller } from '@kindex/informer';
 * import { controllerDebugView, type ControllerDebugView } from '@kindex/informer/internal';
 * declare const controller: Controller;
 *
 * const view: ControllerDebugView = controllerDebugView(controller);
 * const notSynced = view.eventSources.filter((s) => s.cache?.synced === false).map((s) => s.name);
 * ```
 */
export interface ControllerDebugView {
  readonly name: string;
  /** For a fleet's controller of one cluster: that cluster (several entries share the fleet's `name`). */
  readonly cluster?: string;
  /** For a fleet's controller of one cluster: `engaging`, `ready` or `degraded`. */
  readonly clusterState?: string;
  /** For a fleet's controller of one cluster that is degraded: why, naming the cluster. */
  readonly clusterError?: string;
  readonly kind: string;
  readonly workers: number;
  /**
   * Whether the controller keeps each primary's causes and last reconcile for
   * `/primaries/<namespace>/<name>` (its `inspection` option); when false, `hint` says how to
   * turn it on.
   */
  readonly inspection: boolean;
  /** Set while inspection is off: that primaries' records are not kept, and how to turn it on. */
  readonly hint?: string;
  /** Primaries waiting, being reconciled, and waiting for a delay; undefined before start. */
  readonly queue: { readonly queued: number; readonly processing: number; readonly delayed: number } | undefined;
  readonly primaryCache: { readonly objects: number; readonly synced: boolean; readonly indexes: Record<string, number> };
  readonly eventSources: readonly {
    readonly name: string;
    readonly type: string | undefined;
    readonly status: EventSourceHealth['status'] | undefined;
    /** For informer sources: cached objects, synced, distinct values per index, reverse-index sizes. */
    readonly cache?: { readonly objects: number; readonly synced: boolean; readonly indexes: Record<string, number> };
    readonly reverseIndex?: { readonly primaries: number; readonly secondaries: number } | undefined;
  }[];
}

/**
 * What a controller holds and does now: cache and index sizes, queue depth, event sources and
 * their health. O(index values) per call: for a human or a debugging script, not a scraper.
 *
 * @example
 * ```ts
 * import { type Operator } from '@kindex/informer';
 * import { controllerDebugView } from '@kindex/informer/internal';
 * declare const operator: Operator;
 *
 * // What /debug/controllers serves, for a log line at shutdown or a test assertion.
 * for (const controller of operator.controllers) console.log(JSON.stringify(controllerDebugView(controller)));
 * ```
 */
export function controllerDebugView(controller: DebuggableController): ControllerDebugView {
  return {
    name: controller.name,
    kind: controller.kind.name,
    workers: controller.configuration.concurrency,
    inspection: controller.inspection,
    ...(controller.inspection ? {} : { hint: inspectionOffHint(controller.name) }),
    queue: controller.processor?.stats(),
    primaryCache: {
      objects: controller.primaryCache.size,
      synced: controller.primaryCache.hasSynced(),
      indexes: controller.primaryCache.indexSizes(),
    },
    eventSources: controller.eventSources.map((s) => ({
      name: s.name,
      type: s.resourceType?.name,
      status: current(s.health$)?.status,
      ...statisticsOf(s),
    })),
  };
}

function current(health$: Observable<EventSourceHealth>): EventSourceHealth | undefined {
  let value: EventSourceHealth | undefined;
  health$.subscribe((h) => (value = h)).unsubscribe();
  return value;
}

/** A source's cache figures, for sources that keep a cache. */
function statisticsOf(source: EventSource<unknown, never>): Pick<ControllerDebugView['eventSources'][number], 'cache' | 'reverseIndex'> {
  const figures = source.statistics?.();
  if (figures === undefined) return {};
  return { cache: { objects: figures.objects, synced: figures.synced, indexes: figures.indexes }, reverseIndex: figures.reverseIndex };
}
