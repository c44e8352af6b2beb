/**
 * Metrics: what an operator exports to Prometheus, through prom-client, under the names
 * controller-runtime uses so that its dashboards and alerts work unchanged.
 *
 * {@link OperatorMetrics} owns one prom-client `Registry` per `Operator` (never the global one
 * unless asked, so several operators in one process, as in tests, do not clash) and fills it
 * from four parts, one file each:
 * - {@link PrometheusWorkQueueMetrics}: `workqueue_*`, core's work-queue metrics provider;
 * - {@link ControllerMetrics}: `controller_runtime_reconcile_*`, workers and concurrency;
 * - {@link InformerMetrics}: `kindex_informer_*`, what the shared informers hold and how their
 *   list/watch fares;
 * - {@link EventMetrics}: `kindex_events_written_total` and `kindex_events_dropped_total`;
 * - `leader_election_master_status{name}`, set by the leader elector through
 *   {@link OperatorMetrics.setLeaderElectionStatus}.
 *
 * Recording is beside the event path, not on it: each series a reconcile or queue step records is
 * bound once (`bound-series.ts`), so recording is an in-place add with no label work, and the
 * controller's processing steps reach the metrics by a direct call.
 *
 * Serve it with the operator's HTTP server (`/metrics`), or mount `scrape()` in your own.
 *
 * @module
 */
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';
import type { InformerRegistry } from '../cache/informer-registry.js';
import type { MeteredController } from './metered-controller.js';
import { ControllerMetrics } from './controller-metrics.js';
import { EventMetrics } from '../events/event-metrics.js';
import { InformerMetrics } from './informer-metrics.js';
import { PrometheusWorkQueueMetrics } from './prometheus-work-queue-metrics.js';

/**
 * Options of {@link OperatorMetrics}.
 *
 * @example
 * ```ts
 * import { Operator, type OperatorMetricsOptions } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * import { Registry } from 'prom-client';
 * declare const kubeConfig: KubeConfig;
 *
 * // Put the operator's series into a registry the application already serves.
 * const metrics: OperatorMetricsOptions = { registry: new Registry(), processMetrics: false };
 * const operator = new Operator({ kubeConfig, metrics });
 * ```
 */
export interface OperatorMetricsOptions {
  /** The registry to fill. Defaults to a new one for this operator. */
  readonly registry?: Registry;
  /**
   * Also export prom-client's process and Node.js metrics (CPU, memory, event-loop lag, GC).
   * They are per process: enable them for one operator only. Defaults to false.
   */
  readonly processMetrics?: boolean;
}

/** {@link OperatorMetricsOptions}' keys and value checks (`registry` is a prom-client `Registry`, taken as given). */
export const OPERATOR_METRICS_OPTIONS = defineOptions<OperatorMetricsOptions>('OperatorMetrics options', {
  registry: Type.Optional(Type.Unknown()),
  processMetrics: Type.Optional(Type.Boolean({ description: 'true or false' })),
});

/**
 * The metrics of one operator, in one prom-client registry.
 *
 * @example
 * ```ts
 * import { Operator } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 * const operator = new Operator({ kubeConfig, server: { port: 8080 } });
 * // curl localhost:8080/metrics → controller_runtime_reconcile_total{controller="jobs.sample.kindex.dev",result="success"} 3
 * const text = await operator.metrics.scrape(); // the same, without HTTP
 * ```
 */
export class OperatorMetrics {
  /** The prom-client registry holding every series of this operator. */
  readonly registry: Registry;
  /** Core's work-queue metrics provider, handed to each controller's event processor. */
  readonly workQueues: PrometheusWorkQueueMetrics;
  /** `kindex_events_written_total` and `kindex_events_dropped_total`, for the Event recorder. */
  readonly events: EventMetrics;
  readonly #controllers: ControllerMetrics;
  readonly #informers: InformerMetrics;
  readonly #leader: Gauge<'name'>;

  constructor(options: OperatorMetricsOptions = {}) {
    OPERATOR_METRICS_OPTIONS.check(options);
    this.registry = options.registry ?? new Registry();
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry });
    this.workQueues = new PrometheusWorkQueueMetrics(this.registry);
    this.#controllers = new ControllerMetrics(this.registry);
    this.#informers = new InformerMetrics(this.registry);
    this.events = new EventMetrics(this.registry);
    this.#leader = new Gauge({
      name: 'leader_election_master_status',
      help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease.",
      labelNames: ['name'],
      registers: [this.registry],
    });
  }

  /** Records a controller's reconciles (the Operator calls it at `register`). */
  observeController(controller: MeteredController): void {
    this.#controllers.observe(controller);
  }

  /** Exports the shared informers of a registry (the Operator's client's registry). */
  observeInformers(registry: InformerRegistry): void {
    this.#informers.observe(registry);
  }

  /**
   * Sets `leader_election_master_status{name}`: 1 while this process holds the lease `name`,
   * 0 while it is a follower. For the leader elector.
   */
  setLeaderElectionStatus(name: string, leading: boolean): void {
    this.#leader.set({ name }, leading ? 1 : 0);
  }

  /** The Prometheus text exposition of every series. */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  /** The `Content-Type` of {@link scrape}'s text. */
  get contentType(): string {
    return this.registry.contentType;
  }
}
