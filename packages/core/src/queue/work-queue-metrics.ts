/**
 * What a {@link WorkQueue} reports about itself, for a metrics backend to record (client-go's
 * workqueue `MetricsProvider`). Core stays free of any metrics library: `@kindex/informer`
 * implements the provider with prom-client, under controller-runtime's `workqueue_*` names.
 */

/**
 * Live readings of one queue, sampled by the backend when it is scraped. Values that change
 * with time alone (how long work has been running) are read, not pushed: no timer needed.
 */
export interface WorkQueueProbe {
  /** Items waiting to be handed out, plus those added again while being processed. */
  depth(): number;
  /** Seconds of work in progress and not yet `done`, summed over the items being processed. */
  unfinishedWorkSeconds(): number;
  /** Seconds the longest-running item being processed has run; 0 when none. */
  longestRunningProcessorSeconds(): number;
}

/**
 * Events of one queue, pushed as they happen. Each call is O(1) and must not throw: the queue
 * calls it inline.
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
