/**
 * What a {@link WorkQueue} reports about itself, for a metrics backend to record (client-go's
 * workqueue `MetricsProvider`). Core stays free of any metrics library: `@kindex/informer`
 * implements the provider with prom-client, under controller-runtime's `workqueue_*` names.
 */

/**
 * Live readings of one queue, sampled by the backend when it is scraped. Values that change
 * with time alone (how long work has been running) are read, not pushed: no timer needed.
 *
 * @example
 * ```ts
 * import type { WorkQueueMetricsProvider, WorkQueueProbe } from '@kindex/core';
 *
 * // Read the depth on demand, e.g. when a scrape arrives.
 * let probeOf: WorkQueueProbe | undefined;
 * const provider: WorkQueueMetricsProvider = {
 *   forQueue(_name, probe) {
 *     probeOf = probe;
 *     return { added() {}, started() {}, finished() {}, retried() {} };
 *   },
 * };
 * const depth = probeOf?.depth() ?? 0;
 * ```
 */
export interface WorkQueueProbe {
  /** Items waiting to be handed out, plus those added again while being processed. */
  depth(): number;
  /**
   * The same depth split by priority (priority to items), for queues that hand out by priority
   * (`PriorityWorkQueue`); absent for FIFO queues. controller-runtime reports it as
   * `workqueue_depth{priority}`.
   */
  depthByPriority?(): ReadonlyMap<number, number>;
  /** Seconds of work in progress and not yet `done`, summed over the items being processed. */
  unfinishedWorkSeconds(): number;
  /** Seconds the longest-running item being processed has run; 0 when none. */
  longestRunningProcessorSeconds(): number;
}

/**
 * Events of one queue, pushed as they happen. Each call is O(1) and must not throw: the queue
 * calls it inline.
 *
 * @example
 * ```ts
 * import type { WorkQueueMetrics, WorkQueueMetricsProvider } from '@kindex/core';
 *
 * // Count adds and retries per queue in your own metrics system.
 * const counts = new Map<string, { adds: number; retries: number }>();
 * const provider: WorkQueueMetricsProvider = {
 *   forQueue(name) {
 *     const c = { adds: 0, retries: 0 };
 *     counts.set(name, c);
 *     const metrics: WorkQueueMetrics = { added: () => c.adds++, started: () => {}, finished: () => {}, retried: () => c.retries++ };
 *     return metrics;
 *   },
 * };
 * ```
 */
export interface WorkQueueMetrics {
  /** An add was accepted (not coalesced into a pending one). */
  added(): void;
  /** An item was handed to a worker after waiting `seconds` since it was added. */
  started(seconds: number): void;
  /** A worker finished an item after `seconds` of processing. */
  finished(seconds: number): void;
  /** A rate-limited requeue (a retry) was asked for. */
  retried(): void;
}

/**
 * Creates the metrics of each queue; one provider may serve many queues, told apart by name.
 *
 * @example
 * ```ts
 * import { WorkQueue, type WorkQueueMetricsProvider } from '@kindex/core';
 * declare const adds: { inc(labels: { name: string }): void };
 *
 * const provider: WorkQueueMetricsProvider = {
 *   forQueue: (name, probe) => ({ added: () => adds.inc({ name }), started() {}, finished() {}, retried() {} }),
 * };
 * const queue = new WorkQueue({ name: 'widgets', metrics: provider });
 * ```
 */
export interface WorkQueueMetricsProvider {
  /** Called once, when the queue named `name` is created. */
  forQueue(name: string, probe: WorkQueueProbe): WorkQueueMetrics;
}
