import type { Observable } from 'rxjs';
import type { Clock } from '../queue/clock.js';
import type { RetryInfo } from '../queue/retry.js';
import type { WorkQueueMetricsProvider } from '../queue/work-queue-metrics.js';
import type { EventSource } from '../source/event-source.js';
import type { Trigger } from '../source/trigger.js';
import type { ProcessingConfiguration } from './controller-configuration.js';
import type { ReconcileCauses } from './reconcile-cause.js';
import type { ReconcileStamps } from './reconcile-stamps.js';

/**
 * What the event processor passes to the dispatcher for one attempt.
 *
 * @example
 * ```ts
 * import type { DispatchRequest } from '@kindex/core';
 *
 * async function dispatch(key: string, request: DispatchRequest): Promise<void> {
 *   const why = request.causes.causes.map((c) => `${c.type} from ${c.source}`).join(', ');
 *   console.log(`${key}: attempt ${(request.retryInfo?.attemptCount ?? 0) + 1} because ${why}`);
 * }
 * ```
 */
export interface DispatchRequest {
  /** Undefined on a first attempt; the failures so far on a retry. */
  readonly retryInfo: RetryInfo | undefined;
  /** Aborted (reason: `ReconcileTimeoutError`) when the attempt times out or the processor stops. */
  readonly signal: AbortSignal;
  /** Why this attempt runs: the triggers that coalesced into it since the previous dispatch. */
  readonly causes: ReconcileCauses;
  /**
   * When the processor started this attempt, in its clock's milliseconds (`Date.now()` with the
   * default clock), so a dispatcher that times the reconcile need not read the clock again.
   * Undefined in a request built elsewhere.
   */
  readonly startedAt?: number | undefined;
}

/**
 * What a successful dispatch may ask for.
 *
 * @example
 * ```ts
 * import type { DispatchResult } from '@kindex/core';
 *
 * async function dispatch(key: string): Promise<DispatchResult> {
 *   // Check again in 5 minutes even if nothing changes.
 *   return { rescheduleAfterMs: 5 * 60_000 };
 * }
 * ```
 */
export interface DispatchResult {
  /** Run again after this many ms (bounded by `maxReconciliationIntervalMs`). */
  readonly rescheduleAfterMs?: number | undefined;
  /**
   * Set when the dispatch called no reconciler, to say why (for example `not-cached`: the
   * primary is not in the cache). The attempt still succeeds; its outcome carries the reason, so
   * metrics count it apart from reconciles. Defaults to none (a reconciler ran).
   */
  readonly skipped?: string | undefined;
  /**
   * Priority of that run with the `'priority'` queue. Defaults to the priority this attempt was
   * handed out at (as controller-runtime's `Result.Priority`).
   */
  readonly reschedulePriority?: number | undefined;
}

/**
 * Runs one reconcile attempt of the primary with key `primaryKey` (`namespace/name`).
 *
 * The Kubernetes layer implements it: read the primary from the primary cache (absent: return),
 * build the `Context`, manage the finalizer, call `reconcile` or `cleanup`, write the returned
 * control through the API (read-after-write), and return its reschedule. Throw (or reject) to
 * fail the attempt: a {@link TerminalError} is not retried, anything else is. It is never called
 * for a key while a previous call for that key (or its exhaustion hook) is unsettled.
 *
 * It may return its result directly when the attempt finished synchronously (a reconciler that
 * returned a control and wrote nothing): the processor then settles the attempt without a
 * promise or async frame per reconcile. A promise is always accepted.
 *
 * @example
 * ```ts
 * import { EventProcessor, type ReconcileDispatcher } from '@kindex/core';
 *
 * // Reconcile each key, and ask for another run in a minute.
 * const dispatch: ReconcileDispatcher = async (key, { signal }) => {
 *   signal.throwIfAborted();
 *   console.log(`reconciling ${key}`);
 *   return { rescheduleAfterMs: 60_000 };
 * };
 * const processor = new EventProcessor({ dispatch });
 * ```
 */
export type ReconcileDispatcher = (
  primaryKey: string,
  request: DispatchRequest,
) => DispatchResult | void | PromiseLike<DispatchResult | void>;

/**
 * Called once per failure streak when no retry is left (or at once for a TerminalError), before
 * the primary can be reconciled again. The Kubernetes layer calls `updateErrorStatus` here.
 *
 * @example
 * ```ts
 * import { EventProcessor, type RetriesExhaustedHook } from '@kindex/core';
 *
 * const alert: RetriesExhaustedHook = (key, error, { retryInfo, terminal }) => {
 *   console.error(`${key} gave up after ${retryInfo.attemptCount} attempts${terminal ? ' (terminal error)' : ''}`, error);
 * };
 * const processor = new EventProcessor({ dispatch: async () => {}, onRetriesExhausted: alert });
 * ```
 */
export type RetriesExhaustedHook = (
  primaryKey: string,
  error: unknown,
  info: { readonly retryInfo: RetryInfo; readonly terminal: boolean },
) => void | Promise<void>;

/**
 * Options of {@link EventProcessor}; the processing fields default as in `ProcessingConfiguration`.
 *
 * @example
 * ```ts
 * import { EventProcessor, TimerEventSource, type EventProcessorOptions } from '@kindex/core';
 *
 * const timers = new TimerEventSource();
 * const options: EventProcessorOptions = {
 *   name: 'webapps',
 *   concurrency: 2,
 *   sources: [timers],
 *   dispatch: async (key, request) => console.log(`reconcile ${key}, retry ${request.retryInfo?.attemptCount ?? 0}`),
 * };
 * const processor = new EventProcessor(options);
 * ```
 */
export interface EventProcessorOptions extends Partial<ProcessingConfiguration> {
  /** Runs one attempt. */
  readonly dispatch: ReconcileDispatcher;
  /** Called when a primary's retries are exhausted. Defaults to none. */
  readonly onRetriesExhausted?: RetriesExhaustedHook;
  /** Event sources (or bare trigger streams) to listen to from the start. Defaults to none. */
  readonly sources?: readonly (EventSource<unknown, never> | Observable<Trigger>)[];
  /** Time source for timeouts, delays and durations. Defaults to {@link systemClock}. */
  readonly clock?: Clock;
  /** Name of the work queue in its metrics (the controller's name). Defaults to `''`. */
  readonly name?: string;
  /** Receives the work queue's measurements. Defaults to none. */
  readonly queueMetrics?: WorkQueueMetricsProvider;
  /**
   * Distinct causes kept per primary between two dispatches; further triggers are only counted
   * (see `ReconcileCauses.omitted`). Defaults to 16.
   */
  readonly maxCausesPerReconcile?: number;
  /**
   * Where each primary's last reconcile is stamped for the max-interval sweep (see
   * {@link ReconcileStamps}); the controller passes its primary cache's when that cache can keep
   * them (a bounded cache: 4 bytes a primary in its records). Defaults to a
   * `MapReconcileStamps` of the primaries this processor reconciled.
   */
  readonly reconcileStamps?: ReconcileStamps;
  /**
   * Whether to keep what each trigger was. When false only their count is kept: each dispatch's
   * `causes` lists none and counts every trigger as `omitted`, and nothing is made per trigger
   * nor held between dispatches. For dispatchers that never read the causes (a controller whose
   * `inspection` is off and whose debug lines are not written). Defaults to true.
   */
  readonly keepCauses?: boolean;
}

/**
 * Options of {@link EventProcessor.stop}.
 *
 * @example
 * ```ts
 * import { EventProcessor, type StopOptions } from '@kindex/core';
 * declare const processor: EventProcessor;
 *
 * // Let running reconciles finish for up to 30 s on shutdown.
 * const options: StopOptions = { drainTimeoutMs: 30_000 };
 * await processor.stop(options);
 * ```
 */
export interface StopOptions {
  /**
   * Give up waiting for in-flight reconciles after this many ms (their signals are aborted and
   * they are abandoned). Defaults to undefined: wait for all of them.
   */
  readonly drainTimeoutMs?: number;
}
