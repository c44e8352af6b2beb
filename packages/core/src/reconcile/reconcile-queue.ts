import { PriorityWorkQueue } from '../queue/priority-work-queue.js';
import { WorkQueue } from '../queue/work-queue.js';
import type { WorkQueueOptions } from '../queue/work-queue-options.js';

/**
 * The queue an {@link EventProcessor} hands its primaries' keys through: the subset of
 * {@link WorkQueue} it uses (as client-go's `ReflectorStore` is the subset of a store the
 * reflector uses), with an optional priority on every add. The processor pulls: `onAvailable`
 * tells it an item waits, and it calls `tryGet` while it has a free slot (JOSDK's executor
 * hand-off), so no promise is made per item.
 *
 * Contract (the processor relies on each point): an item is handed to one worker at a time and
 * handed out again only after `done`; adds of a waiting item coalesce; an add during processing
 * queues one follow-up at `done`; `addAfter` keeps the earliest pending deadline and
 * `replaceDelayed` moves it either way; `remove` drops queued, delayed and follow-up work; after
 * `shutDownWithDrain`, `tryGet` returns `undefined` and the promise settles once every item handed
 * out is `done`. `priority` (higher first, 0 when absent) may be ignored: {@link WorkQueue} is
 * FIFO and does, {@link PriorityWorkQueue} orders by it.
 *
 * @example
 * ```ts
 * import { EventProcessor, PriorityWorkQueue, type ReconcileQueue } from '@kindex/core';
 *
 * // A priority queue under a name of its own in the metrics.
 * const processor = new EventProcessor({
 *   dispatch: async () => {},
 *   queue: (options): ReconcileQueue => new PriorityWorkQueue({ ...options, name: 'webapps-priority' }),
 * });
 * ```
 */
export interface ReconcileQueue {
  /** Queues `item` (at `priority`) unless it is waiting already; during processing, once after `done`. */
  add(item: string, priority?: number): void;
  /** Adds `item` after `delayMs`; an earlier pending deadline wins. */
  addAfter(item: string, delayMs: number, priority?: number): void;
  /** Replaces the pending delayed add of `item`, earlier or later, with one after `delayMs`. */
  replaceDelayed(item: string, delayMs: number, priority?: number): void;
  /** Adds `item` after the longer of the rate limiter's wait and `minDelayMs`. */
  addRateLimited(item: string, minDelayMs?: number, priority?: number): void;
  /** Ends the failure streak of `item` in the rate limiter. */
  forget(item: string): void;
  /** Drops the queued, delayed and follow-up work of `item`; returns whether there was any. */
  remove(item: string): boolean;
  /** Cancels the pending delayed add of `item`; returns whether there was one. */
  cancelDelayed(item: string): boolean;
  /** Milliseconds until the pending delayed add of `item`, or `undefined` if none. */
  delayOf(item: string): number | undefined;
  /**
   * The next waiting item, marked processing; `undefined` when none waits or once shut down. It
   * never waits: the processor takes items as `onAvailable` announces them and as its slots free up.
   */
  tryGet(): string | undefined;
  /**
   * Calls `listener` (one listener; a later call replaces it) each time an item starts waiting:
   * an add, a delayed add coming due, a follow-up released by `done`. It is called inside that
   * add or `done`; the processor only schedules its taking there.
   */
  onAvailable(listener: (() => void) | undefined): void;
  /** Marks `item` finished, queueing its follow-up if it was added meanwhile. */
  done(item: string): void;
  /** Items waiting to be handed out. */
  len(): number;
  /** Whether `item` is handed out and not yet `done`. */
  isProcessing(item: string): boolean;
  /** Items handed out and not yet `done`. */
  processingCount(): number;
  /** Items waiting for a delayed add. */
  delayedCount(): number;
  /** Stops handing out; resolves when every item handed out is `done`. */
  shutDownWithDrain(): Promise<void>;
  /**
   * The priority an item being processed was handed out at, which its retry and requeue keep
   * (controller-runtime's `GetWithPriority`). Absent on queues without priorities.
   */
  priorityOf?(item: string): number | undefined;
  /**
   * Calls `listener` with each item whose delayed add comes due, before it is added: the event
   * processor then knows which retries and reschedules fired without asking `delayOf` at every
   * dispatch. Optional: without it the processor asks.
   */
  onDelayedAdd?(listener: (item: string) => void): void;
}

/**
 * Which queue an event processor uses: `'fifo'` ({@link WorkQueue}), `'priority'`
 * ({@link PriorityWorkQueue}), or a function building one from the processor's clock, rate
 * limiter, name and metrics.
 *
 * @example
 * ```ts
 * import { PriorityWorkQueue, type QueueKind } from '@kindex/core';
 *
 * const priority: QueueKind = 'priority';
 * const same: QueueKind = (options) => new PriorityWorkQueue(options);
 * ```
 */
export type QueueKind = 'fifo' | 'priority' | ((options: WorkQueueOptions<string>) => ReconcileQueue);

/** Builds the queue `kind` names. */
export function createReconcileQueue(kind: QueueKind, options: WorkQueueOptions<string>): ReconcileQueue {
  if (kind === 'fifo') return new WorkQueue(options);
  if (kind === 'priority') return new PriorityWorkQueue(options);
  return kind(options);
}
