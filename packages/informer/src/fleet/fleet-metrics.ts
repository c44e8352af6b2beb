import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { KubernetesObject } from '@kindex/core';
import type { Controller } from '../controller/controller.js';

/** One engaged cluster's controller, as the gauges read it at scrape time. */
interface Observed {
  readonly controller: string;
  readonly cluster: string;
  readonly run: Controller<KubernetesObject>;
  ready: boolean;
}

// controller-runtime's reconcile_time_seconds buckets, fewer: a fleet multiplies series by clusters.
const TIME_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * @internal The fleet's series, each with a `cluster` label beside `controller`: one set per
 * registry, shared by the fleets of an operator (prom-client refuses a name registered twice).
 * The series of a cluster go when it is disengaged.
 */
export class FleetMetrics {
  readonly #observed = new Map<string, Observed>();
  readonly #total: Counter<'controller' | 'cluster' | 'result'>;
  readonly #time: Histogram<'controller' | 'cluster'>;

  static readonly #byRegistry = new WeakMap<Registry, FleetMetrics>();

  /** The fleet series of `registry`, made on first use. */
  static of(registry: Registry): FleetMetrics {
    let metrics = FleetMetrics.#byRegistry.get(registry);
    if (metrics === undefined) {
      metrics = new FleetMetrics(registry);
      FleetMetrics.#byRegistry.set(registry, metrics);
    }
    return metrics;
  }

  private constructor(registry: Registry) {
    const registers = [registry];
    const observed = this.#observed;
    this.#total = new Counter({
      name: 'kindex_fleet_reconcile_total',
      help: 'Total number of reconciliations per fleet controller and cluster',
      labelNames: ['controller', 'cluster', 'result'],
      registers,
    });
    this.#time = new Histogram({
      name: 'kindex_fleet_reconcile_time_seconds',
      help: 'Length of time per reconciliation per fleet controller and cluster',
      labelNames: ['controller', 'cluster'],
      buckets: TIME_BUCKETS,
      registers,
    });
    new Gauge({
      name: 'kindex_fleet_cluster_ready',
      help: 'Whether an engaged cluster of a fleet controller has synced caches and healthy sources (1) or is starting or degraded (0)',
      labelNames: ['controller', 'cluster'],
      registers,
      collect() {
        this.reset();
        for (const o of observed.values()) this.set({ controller: o.controller, cluster: o.cluster }, o.ready ? 1 : 0);
      },
    });
    new Gauge({
      name: 'kindex_fleet_workqueue_depth',
      help: 'Primaries waiting for a reconcile per fleet controller and cluster',
      labelNames: ['controller', 'cluster'],
      registers,
      collect() {
        this.reset();
        for (const o of observed.values()) this.set({ controller: o.controller, cluster: o.cluster }, o.run.processor?.stats().queued ?? 0);
      },
    });
  }

  /** Records the reconciles of one cluster's controller; returns what stops it and drops the cluster's series. */
  observe(controller: string, cluster: string, run: Controller<KubernetesObject>): { ready(ready: boolean): void; forget(): void } {
    const key = `${controller}\u0000${cluster}`;
    const entry: Observed = { controller, cluster, run, ready: false };
    this.#observed.set(key, entry);
    const labels = { controller, cluster };
    const remove = run.onProcessingEvent((event) => {
      if (event.type !== 'finished' || (event.outcome.type === 'success' && event.outcome.skipped !== undefined)) return;
      this.#total.inc({ ...labels, result: event.outcome.type === 'error' ? 'error' : 'success' });
      this.#time.observe(labels, event.durationMs / 1000);
    });
    return {
      ready: (ready) => {
        entry.ready = ready;
      },
      forget: () => {
        remove();
        if (this.#observed.get(key) === entry) this.#observed.delete(key);
        for (const result of ['success', 'error']) this.#total.remove({ ...labels, result });
        this.#time.remove(labels);
      },
    };
  }
}
