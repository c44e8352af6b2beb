import type { ResourceEventType } from '../event/resource-event.js';

/**
 * One reason a reconcile ran: a kind of trigger and how many of them coalesced into it.
 *
 * Triggers of one primary that arrive between two of its dispatches coalesce in the queue into
 * one reconcile; the event processor keeps what they were (grouped by source, cause type, event
 * and object) and hands them to that reconcile, so a log line can say why it ran.
 *
 * - `resource`: an event on a cached object (`event`, `objectKey`: the secondary's key, or the
 *   primary's own for the controller's primary source).
 * - `timer`, `poll`, `external`: the trigger causes of the same name (`detail` for external).
 * - `retry`: a failed attempt's scheduled retry came due.
 * - `reschedule`: a reschedule (asked for, or the max reconciliation interval) came due.
 * - `enqueue`: `EventProcessor.enqueue` was called directly.
 *
 * @example
 * ```ts
 * import type { ReconcileCause } from '@kindex/core';
 *
 * const explain = (cause: ReconcileCause): string =>
 *   `${cause.count}x ${cause.type}${cause.event ? ` ${cause.event}` : ''} from ${cause.source}${cause.objectKey ? ` (${cause.objectKey})` : ''}`;
 * ```
 */
export interface ReconcileCause {
  readonly type: 'resource' | 'timer' | 'poll' | 'external' | 'retry' | 'reschedule' | 'enqueue';
  /** The event source that emitted the triggers (`primary` for the primary's own events). */
  readonly source: string;
  /** For `resource`: what happened to the object. For `poll`: the fetched data's change. */
  readonly event?: ResourceEventType | 'added' | 'updated' | 'deleted';
  /** For `resource`: key (`namespace/name`) of the object the event was about. */
  readonly objectKey?: string;
  /** For `external`: the trigger's description. */
  readonly detail?: string;
  /** How many triggers of this kind coalesced. */
  readonly count: number;
  /** When the last of them arrived (processor clock, ms). */
  readonly lastAt: number;
}

/**
 * Why a reconcile ran: its causes, bounded, and the totals.
 *
 * @example
 * ```ts
 * import type { EventProcessor, ReconcileCauses } from '@kindex/core';
 * declare const processor: EventProcessor;
 *
 * // What is waiting to be reconciled for this primary, and why.
 * const pending: ReconcileCauses | undefined = processor.pendingCauses('shop/web');
 * if (pending) console.log(`${pending.triggers} triggers, ${pending.causes.length} distinct causes`);
 * ```
 */
export interface ReconcileCauses {
  /** Distinct causes, in order of first arrival, at most the processor's bound. */
  readonly causes: readonly ReconcileCause[];
  /** Every trigger that coalesced into this reconcile, listed or not. */
  readonly triggers: number;
  /**
   * Triggers left out of `causes` because the bound was reached (`maxCausesPerReconcile`), or
   * all of them when the processor keeps counts only (`keepCauses: false`).
   */
  readonly omitted: number;
}
