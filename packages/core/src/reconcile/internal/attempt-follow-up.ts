import type { RetryInfo } from '../../queue/retry.js';
import type { Listeners } from '../../event/listeners.js';
import type { ProcessingConfiguration } from '../controller-configuration.js';
import type { RetriesExhaustedHook } from '../event-processor-options.js';
import type { ProcessingEvent, ReconcileOutcome } from '../processing-event.js';
import type { ReconcileQueue } from '../reconcile-queue.js';
import type { MaxIntervalSweep } from './max-interval-sweep.js';
import type { PrimaryState, PrimaryStates } from './primary-state.js';

/**
 * What follows an attempt, by its outcome (JOSDK's `EventProcessor.handleRetryOnException` and
 * `reScheduleExecutionIfInstructed`): success ends the failure streak and schedules the requested
 * reschedule or the max-interval safety net; a failure schedules the next retry, or, when none is
 * left, reports the exhaustion, schedules the safety net and runs the retries-exhausted hook. A
 * primary deleted while its attempt ran gets nothing scheduled.
 *
 * The safety net is no delay of its own: the attempt stamps the primary's reconcile time, and the
 * {@link MaxIntervalSweep} queues it once that stamp is the interval old. A requested reschedule
 * shorter than the interval keeps its own delay (user-requested, and rare).
 */
export class AttemptFollowUp {
  readonly #queue: ReconcileQueue;
  readonly #config: ProcessingConfiguration;
  readonly #states: PrimaryStates;
  readonly #events: Listeners<ProcessingEvent>;
  readonly #onRetriesExhausted: RetriesExhaustedHook | undefined;
  readonly #sweep: MaxIntervalSweep | undefined;

  constructor(
    queue: ReconcileQueue,
    config: ProcessingConfiguration,
    states: PrimaryStates,
    events: Listeners<ProcessingEvent>,
    onRetriesExhausted: RetriesExhaustedHook | undefined,
    sweep: MaxIntervalSweep | undefined,
  ) {
    this.#sweep = sweep;
    this.#queue = queue;
    this.#config = config;
    this.#states = states;
    this.#events = events;
    this.#onRetriesExhausted = onRetriesExhausted;
  }

  /** Schedules what follows an attempt. Runs before `done`, so it never overlaps the next one. */
  settle(state: PrimaryState, outcome: ReconcileOutcome): Promise<void> | undefined {
    const key = state.key;
    const maxInterval = this.#config.maxReconciliationIntervalMs;
    // What follows keeps the priority the attempt was handed out at, unless the reconcile asked
    // for another (the max-interval sweep queues at low priority: a resync).
    const requestedPriority = state.reschedulePriority;
    state.reschedulePriority = undefined;
    const priority = this.#queue.priorityOf?.(key);
    if (state.droppedInFlight) {
      state.droppedInFlight = false;
      state.retry = undefined;
      this.#queue.forget(key);
      return;
    }
    if (outcome.type === 'success') {
      state.retry = undefined;
      this.#queue.forget(key);
      // A primary not cached (it left the controller's namespaces or shards) has no safety net:
      // forgotten, not stamped, so stamps kept by key do not keep primaries that are gone.
      if (outcome.skipped === 'not-cached') this.#sweep?.forget(key);
      else this.#sweep?.stamp(key);
      const requested = outcome.rescheduleAfterMs;
      if (requested !== undefined && !(requested >= (maxInterval ?? Infinity))) {
        // Set over the old entry, not deleted and set again: no hole in a map of every primary.
        this.#queue.replaceDelayed(key, requested, requestedPriority ?? priority);
        this.#states.schedule(state, 'reschedule', !(requested > 0));
        this.#events.emit({ type: 'rescheduled', key, delayMs: requested, reason: 'requested' });
      } else if (state.scheduled !== undefined) {
        // A success replaces what was pending; the safety net is the sweep's (no delay to set).
        this.#queue.cancelDelayed(key);
        state.scheduled = undefined;
      }
      return;
    }

    state.scheduled = undefined;
    let exec = state.retry;
    if (!outcome.terminal) {
      if (exec === undefined) {
        exec = this.#config.retry.initExecution();
        state.retry = exec;
      }
      const retryDelay = exec.nextDelay();
      if (retryDelay !== undefined) {
        this.#queue.addRateLimited(key, retryDelay, priority);
        const delayMs = this.#queue.delayOf(key);
        this.#states.schedule(state, 'retry', delayMs === undefined);
        this.#events.emit({ type: 'retry-scheduled', key, attempt: exec.attemptCount, delayMs: delayMs ?? 0, error: outcome.error });
        return;
      }
    }
    state.retry = undefined;
    this.#queue.forget(key);
    const retryInfo: RetryInfo = Object.freeze({ attemptCount: exec?.attemptCount ?? 0, isLastAttempt: true });
    this.#events.emit({ type: 'retries-exhausted', key, error: outcome.error, retryInfo, terminal: outcome.terminal });
    // The safety net: the sweep queues it again once this stamp is the interval old.
    this.#sweep?.stamp(key);
    const hook = this.#onRetriesExhausted;
    return hook === undefined ? undefined : Promise.resolve(hook(key, outcome.error, { retryInfo, terminal: outcome.terminal }));
  }
}
