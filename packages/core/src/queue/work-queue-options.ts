import type { Clock } from './clock.js';
import type { RateLimiter } from './rate-limiter.js';
import type { WorkQueueMetricsProvider } from './work-queue-metrics.js';
import Type from 'typebox';
import { defineOptions } from '../options/define-options.js';

/**
 * Options of {@link WorkQueue} and {@link PriorityWorkQueue}.
 *
 * @example
 * ```ts
 * import { BucketRateLimiter, WorkQueue, type WorkQueueOptions } from '@kindex/core';
 *
 * const options: WorkQueueOptions = { name: 'webapps', rateLimiter: new BucketRateLimiter({ qps: 5, burst: 20 }) };
 * const queue = new WorkQueue(options);
 * ```
 */
export interface WorkQueueOptions<K extends string = string> {
  /** Decides the wait of `addRateLimited`. Defaults to {@link defaultControllerRateLimiter}. */
  readonly rateLimiter?: RateLimiter<K>;
  /** Time source for delays. Defaults to {@link systemClock}. */
  readonly clock?: Clock;
  /** Name the metrics carry (controller-runtime uses the controller's name). Defaults to `''`. */
  readonly name?: string;
  /** Receives the queue's measurements. Defaults to none (nothing is timed or counted). */
  readonly metrics?: WorkQueueMetricsProvider;
}

/** {@link WorkQueueOptions}' keys and value checks, shared by both queues. */
export const WORK_QUEUE_OPTIONS = defineOptions<WorkQueueOptions>('WorkQueue options', {
  rateLimiter: Type.Optional(Type.Unknown()),
  clock: Type.Optional(Type.Unknown()),
  name: Type.Optional(Type.String({ description: 'a string' })),
  metrics: Type.Optional(Type.Unknown()),
});
