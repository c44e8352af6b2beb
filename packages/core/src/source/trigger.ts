import type { ResourceEventType } from '../event/resource-event.js';
import type { ResourceID } from '../resource/resource-id.js';

/**
 * A request from an event source to reconcile some primaries, with why (for timelines, logs
 * and tests).
 *
 * The event processor queues each of `primaryIds` (adds of one primary coalesce), except for a
 * `primary-deleted` cause, which drops the primaries' pending work instead.
 *
 * @example
 * ```ts
 * import type { EventSource, Trigger } from '@kindex/core';
 * declare const source: EventSource;
 *
 * source.triggers$.subscribe((trigger: Trigger) => console.log(trigger.source, trigger.cause.type, trigger.primaryIds.map(String)));
 * ```
 */
export interface Trigger {
  /** The primaries to reconcile (or, for `primary-deleted`, to forget). */
  readonly primaryIds: readonly ResourceID[];
  /** Name of the event source that emitted it. */
  readonly source: string;
  readonly cause: TriggerCause;
  /**
   * Queue priority of the reconciles it asks for (higher first), honoured by the `'priority'`
   * queue and ignored by the FIFO one. Event sources give `LOW_PRIORITY` to what a list (the
   * initial one, a relist) or a resync reports, as controller-runtime's
   * `WithLowPriorityWhenUnchanged` does, so that real changes go first. Defaults to 0.
   */
  readonly priority?: number;
}

/**
 * Why a trigger was emitted.
 *
 * - `resource`: an event on a cached resource (the object's key and resourceVersion if known).
 * - `timer`: a {@link TimerEventSource} schedule came due.
 * - `poll`: a polling source saw the fetched data of the primary appear, change or vanish.
 * - `primary-deleted`: the primary is gone for good (deleted without a finalizer left, or its
 *   final state unknown); its pending work (queued, delayed, retries) is dropped, no reconcile.
 * - `external`: anything else, described by `detail`.
 *
 * @example
 * ```ts
 * import type { TriggerCause } from '@kindex/core';
 *
 * function explain(cause: TriggerCause): string {
 *   switch (cause.type) {
 *     case 'resource':
 *       return `${cause.event} of ${cause.objectKey}`;
 *     case 'poll':
 *       return `polled resource ${cause.change}`;
 *     case 'external':
 *       return cause.detail;
 *     default:
 *       return cause.type;
 *   }
 * }
 * ```
 */
export type TriggerCause =
  | {
      readonly type: 'resource';
      readonly event: ResourceEventType;
      readonly objectKey: string;
      readonly resourceVersion?: string;
    }
  | { readonly type: 'timer' }
  | { readonly type: 'poll'; readonly change: 'added' | 'updated' | 'deleted' }
  | { readonly type: 'primary-deleted' }
  | { readonly type: 'external'; readonly detail: string };
