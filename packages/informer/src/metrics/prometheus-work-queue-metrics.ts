import { Counter, Gauge, Histogram, exponentialBuckets, type Registry } from 'prom-client';
import { bindCounter, bindHistogram } from './bound-series.js';
import type { WorkQueueMetrics, WorkQueueMetricsProvider, WorkQueueProbe } from '@kindex/core';

// client-go's workqueue buckets: 10 ns to 1000 s, one per decade.
const DURATION_BUCKETS = exponentialBuckets(10e-9, 10, 12);

/**
 * Core's {@link WorkQueueMetricsProvider} on prom-client, under client-go's and
 * controller-runtime's `workqueue_*` names, labelled `name` and `controller` (both the
 * controller's name, as controller-runtime does); a priority queue's `workqueue_depth` also
 * carries `priority`, one series per priority with items waiting. Depth, unfinished work and the longest
 * running item are read from each queue when scraped.
 *
 * @example
 * ```ts
 * import { PrometheusWorkQueueMetrics } from '@kindex/informer';
 * import { WorkQueue } from '@kindex/core';
 * import { Registry } from 'prom-client';
 *
 * // workqueue_depth, workqueue_adds_total ... for a queue of your own.
 * const registry = new Registry();
 * const queue = new WorkQueue({ name: 'webhooks', metrics: new PrometheusWorkQueueMetrics(registry) });
 * ```
 */
export class PrometheusWorkQueueMetrics implements WorkQueueMetricsProvider {
  readonly #probes = new Map<string, WorkQueueProbe>();
  readonly #adds: Counter<'name' | 'controller'>;
  readonly #retries: Counter<'name' | 'controller'>;
  readonly #queueDuration: Histogram<'name' | 'controller'>;
  readonly #workDuration: Histogram<'name' | 'controller'>;

  constructor(registry: Registry) {
    const registers = [registry];
    const labelNames = ['name', 'controller'] as const;
    const probes = this.#probes;
    const sampled = (name: string, help: string, read: (probe: WorkQueueProbe) => number): void => {
      new Gauge({
        name,
        help,
        labelNames,
        registers,
        collect() {
          this.reset();
          for (const [queue, probe] of probes) this.set({ name: queue, controller: queue }, read(probe));
        },
      });
    };
    // controller-runtime labels the depth of a priority queue by priority as well; FIFO queues
    // keep the two labels they always had. Priority 0 is always reported, so the series exists
    // (at zero) before any work, as for the FIFO depth.
    new Gauge({
      name: 'workqueue_depth',
      help: 'Current depth of workqueue',
      labelNames: ['name', 'controller', 'priority'] as const,
      registers,
      collect() {
        this.reset();
        for (const [queue, probe] of probes) {
          const byPriority = probe.depthByPriority?.();
          if (byPriority === undefined) {
            this.set({ name: queue, controller: queue }, probe.depth());
            continue;
          }
          if (!byPriority.has(0)) this.set({ name: queue, controller: queue, priority: '0' }, 0);
          for (const [priority, depth] of byPriority) this.set({ name: queue, controller: queue, priority: String(priority) }, depth);
        }
      },
    });
    sampled(
      'workqueue_unfinished_work_seconds',
      "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
      (p) => p.unfinishedWorkSeconds(),
    );
    sampled(
      'workqueue_longest_running_processor_seconds',
      'How many seconds has the longest running processor for workqueue been running.',
      (p) => p.longestRunningProcessorSeconds(),
    );
    this.#adds = new Counter({ name: 'workqueue_adds_total', help: 'Total number of adds handled by workqueue', labelNames, registers });
    this.#retries = new Counter({
      name: 'workqueue_retries_total',
      help: 'Total number of retries handled by workqueue',
      labelNames,
      registers,
    });
    this.#queueDuration = new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'How long in seconds an item stays in workqueue before being requested',
      labelNames,
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.#workDuration = new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'How long in seconds processing an item from workqueue takes.',
      labelNames,
      buckets: DURATION_BUCKETS,
      registers,
    });
  }

  forQueue(name: string, probe: WorkQueueProbe): WorkQueueMetrics {
    this.#probes.set(name, probe);
    const labels = { name, controller: name };
    // Series exist from the start, at zero, so dashboards and rate() see them before any work.
    // Bound once: recording does no label work (see bound-series.ts).
    const adds = bindCounter(this.#adds, labels);
    const retries = bindCounter(this.#retries, labels);
    const queueDuration = bindHistogram(this.#queueDuration, labels, DURATION_BUCKETS);
    const workDuration = bindHistogram(this.#workDuration, labels, DURATION_BUCKETS);
    return {
      added: () => adds.inc(),
      started: (seconds) => queueDuration.observe(seconds),
      finished: (seconds) => workDuration.observe(seconds),
      retried: () => retries.inc(),
    };
  }

  /** Stops reading a queue that is gone (its controller stopped). */
  forget(name: string): void {
    this.#probes.delete(name);
  }
}
