import type { Clock, TimerHandle } from '../../queue/clock.js';
import type { DispatchResult } from '../event-processor-options.js';
import type { ReconcileOutcome } from '../processing-event.js';
import { ReconcileTimeoutError } from '../reconcile-timeout-error.js';
import { TerminalError } from '../terminal-error.js';
import type { LazyAbortController } from './lazy-abort-controller.js';

/** One dispatch in flight, as the event processor tracks it. */
export interface Attempt {
  readonly key: string;
  readonly abort: LazyAbortController;
  /** Clock ms after which it times out (Infinity without a timeout). */
  readonly deadline: number;
  /** Clock ms when it started (one clock read serves its deadline and its duration). */
  readonly startedAt: number;
  timedOut: boolean;
  /** Whether it gave its concurrency slot back (it settled, or timed out and runs on in the background). */
  released: boolean;
  /** Its outcome, when it settled in the call that started it and its tail has yet to run. */
  outcome: ReconcileOutcome | undefined;
}

/** Whether a dispatch returned a promise (or any thenable) rather than its result. */
export function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | undefined)?.then === 'function';
}

/**
 * The outcome of most reconciles (nothing skipped, no delay asked): outcomes are read-only, so
 * one frozen object serves them all instead of one per reconcile.
 */
const PLAIN_SUCCESS: ReconcileOutcome = Object.freeze({ type: 'success', rescheduleAfterMs: undefined });

/** The outcome of a dispatch that returned `result` (a timeout if the attempt timed out meanwhile). */

export function successOutcome(attempt: Attempt, result: DispatchResult | void, timeoutMs: number | undefined): ReconcileOutcome {
  if (attempt.timedOut) return errorOutcome(attempt, undefined, timeoutMs);
  if (result?.skipped === undefined && result?.rescheduleAfterMs === undefined) return PLAIN_SUCCESS;
  return result.skipped === undefined
    ? { type: 'success', rescheduleAfterMs: result.rescheduleAfterMs }
    : { type: 'success', rescheduleAfterMs: result.rescheduleAfterMs, skipped: result.skipped };
}

/** The outcome of a dispatch that threw `error` (a timeout, caused by it, if the attempt timed out). */
export function errorOutcome(attempt: Attempt, error: unknown, timeoutMs: number | undefined): ReconcileOutcome {
  if (!attempt.timedOut) return { type: 'error', error, terminal: error instanceof TerminalError, timedOut: false };
  const timeout = new ReconcileTimeoutError(attempt.key, timeoutMs ?? 0, error === undefined ? undefined : { cause: error });
  return { type: 'error', error: timeout, terminal: false, timedOut: true };
}

/**
 * One timer for every attempt's timeout, armed for the earliest deadline in flight (at most
 * `concurrency` attempts plus timed-out ones still running): no timer per attempt.
 */
export class AttemptTimeouts {
  readonly #clock: Clock;
  readonly #inFlight: () => Iterable<Attempt>;
  readonly #onTimedOut: (attempt: Attempt) => void;
  #timer: TimerHandle | undefined;
  #timerAt = Infinity;

  /** `onTimedOut` is called for each attempt past its deadline, once, after it is marked `timedOut`. */
  constructor(clock: Clock, inFlight: () => Iterable<Attempt>, onTimedOut: (attempt: Attempt) => void) {
    this.#clock = clock;
    this.#inFlight = inFlight;
    this.#onTimedOut = onTimedOut;
  }

  /** Makes sure the timer fires by `deadline`. */
  watch(deadline: number): void {
    if (deadline < this.#timerAt) this.#arm(deadline);
  }

  clear(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(at: number): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = this.#clock.setTimeout(() => this.#fire(), Math.max(0, at - this.#clock.now()));
  }

  /** Times out the attempts past their deadline, then arms for the earliest one left. */
  #fire(): void {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    const now = this.#clock.now();
    let next = Infinity;
    for (const attempt of [...this.#inFlight()]) {
      if (attempt.timedOut) continue;
      if (attempt.deadline <= now) {
        attempt.timedOut = true;
        this.#onTimedOut(attempt);
      } else if (attempt.deadline < next) next = attempt.deadline;
    }
    if (next !== Infinity) this.#arm(next);
  }
}
