import type { RetryExecution } from '../../queue/retry.js';
import type { ReconcileQueue } from '../reconcile-queue.js';
import type { Attempt } from './attempt.js';
import type { CauseEntry } from './pending-causes.js';

/**
 * Everything the event processor holds about one primary between its reconciles, in one record
 * (JOSDK's `ResourceState`): the causes gathered for its next dispatch, its retry streak, the
 * delay it waits for, the attempt in flight. One map lookup per trigger and one per dispatch
 * find it all; before, each of these lived in its own map keyed by the primary (five or six
 * lookups per event on maps of every primary, cold in cache at one event per millisecond, plus
 * hash-table reallocations of the small maps emptied after each reconcile).
 *
 * Invariant (pinned by `event-processor.property.test.ts`): a record is kept only while one of
 * its fields says something ({@link isIdle} is false), or while the queue hands the primary out;
 * the processor drops it as soon as it is idle, so primaries that come and go leave nothing.
 */
export interface PrimaryState {
  /** Set only by {@link PrimaryStates} (a dropped record is reused for the next primary). */
  key: string;
  /** Causes gathered since the last dispatch; undefined when none. */
  causes: CauseEntry | undefined;
  /** Triggers since the last dispatch when only their count is kept (see `PendingCauses`). */
  counted: number;
  /** The failure streak, while one is on. */
  retry: RetryExecution | undefined;
  /** The delayed add pending for it, and which: listed as a cause once it fires. */
  scheduled: 'retry' | 'reschedule' | undefined;
  /**
   * Whether that delayed add is no longer pending (it came due, or was a delay of 0), so the next
   * dispatch lists it. Meaningless while `scheduled` is undefined.
   */
  delayDue: boolean;
  /** A priority a successful dispatch asked for its reschedule, until the attempt settles. */
  reschedulePriority: number | undefined;
  /** Deleted while handed out: what its attempt schedules is dropped (until a new trigger). */
  droppedInFlight: boolean;
  /** The dispatch in flight (settled or not), until it ends. */
  attempt: Attempt | undefined;
}

/** A fresh record: nothing pending. */
export function newPrimaryState(key: string): PrimaryState {
  return {
    key,
    causes: undefined,
    counted: 0,
    retry: undefined,
    scheduled: undefined,
    delayDue: false,
    reschedulePriority: undefined,
    droppedInFlight: false,
    attempt: undefined,
  };
}

/** Whether the record says nothing, so dropping it loses nothing. */
export function isIdle(state: PrimaryState): boolean {
  return (
    state.causes === undefined &&
    state.counted === 0 &&
    state.retry === undefined &&
    state.scheduled === undefined &&
    state.reschedulePriority === undefined &&
    !state.droppedInFlight &&
    state.attempt === undefined
  );
}

/** How many dropped records are kept for reuse: enough for the primaries of one burst of events. */
const FREE_RECORDS = 64;

/** The records of every primary with something pending, by key, and the attempts in flight. */
export class PrimaryStates {
  readonly #states = new Map<string, PrimaryState>();
  readonly #queue: ReconcileQueue;
  /** Whether the queue reports its delays coming due (`onDelayedAdd`); if not, it is asked. */
  readonly #delaysReported: boolean;
  /**
   * Attempts in flight, timed-out ones included until they settle: a short list (at most
   * `concurrency` plus those), not a map that empties and refills with every reconcile.
   */
  readonly #running: Attempt[] = [];
  /**
   * Dropped records, reset, for the next primary that needs one: under a steady stream of events
   * each primary's record is made and dropped once an event (about 90 bytes). A dropped record is
   * referenced by nothing (it is idle: no attempt holds it, no delay or cause names it).
   */
  readonly #free: PrimaryState[] = [];

  /** The attempts in flight (live: copy it before anything can end one). */
  get running(): readonly Attempt[] {
    return this.#running;
  }

  /** `attempt` of `state` starts. */
  started(state: PrimaryState, attempt: Attempt): void {
    state.attempt = attempt;
    this.#running.push(attempt);
  }

  /** `attempt` of `state` ended. */
  ended(state: PrimaryState, attempt: Attempt): void {
    const running = this.#running;
    const at = running.lastIndexOf(attempt);
    // Order does not matter (timeouts take the earliest deadline): the last one fills the gap.
    if (at >= 0) {
      running[at] = running[running.length - 1]!;
      running.pop();
    }
    if (state.attempt === attempt) state.attempt = undefined;
  }

  constructor(queue: ReconcileQueue) {
    this.#queue = queue;
    this.#delaysReported = typeof queue.onDelayedAdd === 'function';
    // A delayed add that comes due is marked on its record: the next dispatch lists it with no
    // lookup in the queue's delays (one per dispatch before, on a map of every primary).
    queue.onDelayedAdd?.((key) => {
      const state = this.#states.get(key);
      if (state !== undefined) state.delayDue = true;
    });
  }

  /** Whether the retry or reschedule `state` waits for (if any) is no longer pending: it fired. */
  delayFired(state: PrimaryState): boolean {
    return state.delayDue || (!this.#delaysReported && this.#queue.delayOf(state.key) === undefined);
  }

  /** `state` waits for a delayed add of `kind`; `due` when it is not pending (a delay of 0). */
  schedule(state: PrimaryState, kind: 'retry' | 'reschedule', due: boolean): void {
    state.scheduled = kind;
    state.delayDue = due;
  }

  get(key: string): PrimaryState | undefined {
    return this.#states.get(key);
  }

  /** The record of `key`, made if it has none. */
  of(key: string): PrimaryState {
    let state = this.#states.get(key);
    if (state === undefined) {
      state = this.#free.pop();
      if (state === undefined) state = newPrimaryState(key);
      else state.key = key;
      this.#states.set(key, state);
    }
    return state;
  }

  /** Drops the record if it says nothing more and the queue no longer hands its primary out. */
  release(state: PrimaryState): void {
    if (!isIdle(state) || this.#queue.isProcessing(state.key)) return;
    this.#states.delete(state.key);
    // Idle: every field is at its initial value but delayDue, which only a pending delay reads.
    state.delayDue = false;
    if (this.#free.length < FREE_RECORDS) this.#free.push(state);
  }

  /** The primary was deleted: its pending work goes; an attempt of it in flight will schedule nothing. */
  deleted(key: string): void {
    const state = this.#states.get(key);
    if (state !== undefined) {
      state.retry = undefined;
      state.causes = undefined;
      state.counted = 0;
      state.scheduled = undefined;
    }
    if (this.#queue.isProcessing(key)) (state ?? this.of(key)).droppedInFlight = true;
    else if (state !== undefined) this.release(state);
  }

  /** Forgets every pending cause and delay (the processor stops). */
  clearPending(): void {
    for (const state of [...this.#states.values()]) {
      state.causes = undefined;
      state.counted = 0;
      state.scheduled = undefined;
      this.release(state);
    }
  }

  get size(): number {
    return this.#states.size;
  }
}
