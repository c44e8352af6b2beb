import type { Listeners } from '../../event/listeners.js';
import type { Clock, TimerHandle } from '../../queue/clock.js';
import { LOW_PRIORITY } from '../../queue/priority-work-queue.js';
import type { ProcessingEvent } from '../processing-event.js';
import type { ReconcileQueue } from '../reconcile-queue.js';
import type { ReconcileStamps } from '../reconcile-stamps.js';
import type { PendingCauses } from './pending-causes.js';
import type { PrimaryStates } from './primary-state.js';

/** The sweep's step at most (a 10-hour interval is then swept every 7.5 s, late by at most 82.5 s). */
const MAX_STEP_MS = 7_500;
/** Steps to a pass over every primary: each step walks an eighth of them. */
const STEPS_PER_PASS = 8;
/**
 * Keys waiting in the queue above which the sweep queues nothing more: it waits for the queue to
 * drain instead, so a wave of primaries due together never fills the queue with all of them.
 */
export const SWEEP_BACKLOG = 1024;

/** The parts of the event processor the sweep works with. */
export interface SweepTarget {
  readonly clock: Clock;
  readonly queue: ReconcileQueue;
  readonly states: PrimaryStates;
  readonly causes: PendingCauses;
  readonly events: Listeners<ProcessingEvent>;
}

const CAUSE = { type: 'reschedule', source: 'max-interval' } as const;

/**
 * The max-reconciliation-interval safety net as one sweep (in place of a pending delay per
 * primary): a timer every `step` walks an eighth of the primaries' stamps and queues those whose
 * last reconcile is at least the interval old.
 *
 * Ticks are `floor(now / step)` modulo 2^32 (0 skipped: it means "none"), so a stamp fits the 4
 * bytes a bounded cache gives it; ages are compared modulo 2^32, right as long as no stamp is
 * 2^32 steps old, and the sweep refreshes every stamp within an interval.
 *
 * Bound: a primary is queued no earlier than `intervalMs` after its last reconcile (the due test
 * counts whole steps and adds one), and, while the queue's backlog stays under
 * {@link SWEEP_BACKLOG}, no later than `intervalMs + 11 × step` (two steps of rounding, a pass of
 * eight, one of timer slack), where step = min(intervalMs / 64, 7.5 s) and at least 1 ms: 82.5 s
 * late at most for the 10-hour default, 17 % of the interval for intervals from 64 ms to 8
 * minutes. A primary with no stamp (known to the cache, never reconciled by this processor) is
 * stamped when first walked.
 */
export class MaxIntervalSweep {
  readonly #clock: Clock;
  readonly #stamps: ReconcileStamps;
  readonly #target: SweepTarget;
  /** Milliseconds a tick lasts (the timer's period). */
  readonly stepMs: number;
  /** Whole ticks after which a stamp is due: one more than the interval spans, never early. */
  readonly #dueTicks: number;
  readonly #visit = (key: string, tick: number): boolean => this.#check(key, tick);
  #timer: TimerHandle | undefined;
  /** Walks left in this step (a step walks an eighth of the set; a drained queue resumes it). */
  #budget = 0;
  /** Whether the walk stopped on a full backlog (the processor's drain then resumes it). */
  #blocked = false;
  #now = 0;
  #stopped = false;

  constructor(stamps: ReconcileStamps, intervalMs: number, target: SweepTarget) {
    this.#clock = target.clock;
    this.#stamps = stamps;
    this.#target = target;
    // At least 1 ms: Node's timers fire no sooner.
    this.stepMs = Math.max(1, Math.min(intervalMs / 64, MAX_STEP_MS));
    this.#dueTicks = Math.ceil(intervalMs / this.stepMs) + 1;
  }

  /** The tick of `ms` (milliseconds since the epoch), as stamps hold it. */
  tickOf(ms: number): number {
    return Math.floor(ms / this.stepMs) % 0x1_0000_0000 || 1;
  }

  /** The primary was deleted: its stamp goes. */
  forget(key: string): void {
    this.#stamps.forget(key);
  }

  /** Records a reconcile of `key` now. */
  stamp(key: string): void {
    this.#stamps.stamp(key, this.tickOf(this.#clock.now()));
  }

  /**
   * When the sweep will queue `key` at the earliest (ms since the epoch), from its stamp;
   * undefined when it has none.
   */
  dueAt(key: string): number | undefined {
    const tick = this.#stamps.stampOf(key);
    if (tick === 0) return undefined;
    const nowTick = this.tickOf(this.#clock.now());
    const age = (nowTick - tick) >>> 0;
    return (Math.floor(this.#clock.now() / this.stepMs) - age + this.#dueTicks) * this.stepMs;
  }

  /** Arms the timer (idempotent). */
  start(): void {
    if (this.#timer !== undefined || this.#stopped) return;
    this.#timer = this.#clock.setTimeout(this.#tick, this.stepMs);
  }

  /** Disarms the timer for good. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** An attempt ended: goes on with the step's walk if a full queue stopped it and half of it drained. */
  drained(): void {
    if (this.#blocked && !this.#stopped && this.#target.queue.len() < SWEEP_BACKLOG / 2) this.#walk();
  }

  readonly #tick = (): void => {
    this.#timer = this.#clock.setTimeout(this.#tick, this.stepMs);
    this.#budget = Math.ceil(this.#stamps.size / STEPS_PER_PASS);
    this.#walk();
  };

  #walk(): void {
    this.#blocked = false;
    this.#now = this.tickOf(this.#clock.now());
    // A pass that ends goes on from the start with what is left of the step's walk, so any
    // primary is reached within eight steps of the cursor passing wherever it is.
    let idlePasses = 0;
    while (this.#budget > 0 && !this.#blocked) {
      const before = this.#budget;
      if (!this.#stamps.walk(before, this.#visit)) break; // the step's walk is done, or blocked
      if (this.#budget === before && ++idlePasses > 1) break; // an empty set
    }
  }

  /** One primary of the walk: false stops before it (full backlog). */
  #check(key: string, tick: number): boolean {
    if (tick === 0) {
      this.#stamps.stamp(key, this.#now);
    } else if ((this.#now - tick) >>> 0 >= this.#dueTicks) {
      const { queue, states, causes, events } = this.#target;
      // Reconciled or retried anyway: in flight, or a retry pending.
      if (queue.isProcessing(key) || states.get(key)?.retry !== undefined) return this.#visited();
      if (queue.len() >= SWEEP_BACKLOG) {
        this.#blocked = true;
        return false;
      }
      causes.add(states.of(key), CAUSE, this.#clock);
      queue.add(key, LOW_PRIORITY);
      if (events.listening) events.emit({ type: 'rescheduled', key, delayMs: 0, reason: 'max-interval' });
    }
    return this.#visited();
  }

  #visited(): true {
    this.#budget--;
    return true;
  }
}
