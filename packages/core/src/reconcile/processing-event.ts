import type { RetryInfo } from '../queue/retry.js';
import type { Trigger } from '../source/trigger.js';
import type { ReconcileCauses } from './reconcile-cause.js';

/**
 * How one reconcile attempt ended.
 *
 * @example
 * ```ts
 * import type { EventProcessor, ReconcileOutcome } from '@kindex/core';
 * declare const processor: EventProcessor;
 *
 * const describe = (outcome: ReconcileOutcome): string =>
 *   outcome.type === 'success' ? 'ok' : outcome.timedOut ? 'timed out' : outcome.terminal ? 'terminal error' : 'error, will retry';
 * processor.events$.subscribe((e) => {
 *   if (e.type === 'finished') console.log(e.key, describe(e.outcome));
 * });
 * ```
 */
export type ReconcileOutcome =
  | {
      readonly type: 'success';
      readonly rescheduleAfterMs?: number | undefined;
      /** Why no reconciler ran, when none did (see `DispatchResult.skipped`). */
      readonly skipped?: string | undefined;
    }
  | {
      readonly type: 'error';
      readonly error: unknown;
      /** A {@link TerminalError}: no retry. */
      readonly terminal: boolean;
      /** It outlived `reconcileTimeoutMs` (`error` is then a `ReconcileTimeoutError`). */
      readonly timedOut: boolean;
    };

/**
 * What the event processor did, in order, for timelines, metrics and tests (`events$`).
 *
 * - `enqueued`: a trigger asked for the primary (adds of a primary already queued coalesce in
 *   the queue; each trigger is still reported).
 * - `started` / `finished`: one attempt, with its causes (the triggers coalesced into it), its
 *   outcome and its duration on the processor's clock.
 * - `timed-out`: an attempt passed `reconcileTimeoutMs`; its worker moved on (`finished`
 *   follows when the call settles).
 * - `retry-scheduled`: a failed attempt will run again after `delayMs`.
 * - `retries-exhausted`: no retry left (or a TerminalError); the exhaustion hook runs next.
 * - `rescheduled`: a success asked to run again after `delayMs` (`requested`, when shorter than
 *   the max reconciliation interval), or the max-interval sweep queued a primary not reconciled
 *   for that interval (`max-interval`, `delayMs` 0: it is queued now, at low priority).
 * - `dropped`: the primary was deleted; its pending work is gone.
 * - `hook-failed`: the retries-exhausted hook threw; nothing else is affected.
 * - `source-failed`: an event source's `triggers$` errored (a broken source; it is detached,
 *   the other sources go on), or a trigger was malformed (it is skipped).
 *
 * @example
 * ```ts
 * import type { EventProcessor, ProcessingEvent } from '@kindex/core';
 * declare const processor: EventProcessor;
 *
 * processor.events$.subscribe((event: ProcessingEvent) => {
 *   if (event.type === 'retries-exhausted') console.error(`${event.key} failed for good`, event.error);
 *   if (event.type === 'finished') console.log(`${event.key} took ${event.durationMs} ms`);
 * });
 * ```
 */
export type ProcessingEvent =
  | { readonly type: 'enqueued'; readonly key: string; readonly trigger: Trigger | undefined }
  | { readonly type: 'started'; readonly key: string; readonly retryInfo: RetryInfo | undefined; readonly causes: ReconcileCauses }
  | { readonly type: 'finished'; readonly key: string; readonly outcome: ReconcileOutcome; readonly durationMs: number }
  | { readonly type: 'timed-out'; readonly key: string; readonly timeoutMs: number }
  | { readonly type: 'retry-scheduled'; readonly key: string; readonly attempt: number; readonly delayMs: number; readonly error: unknown }
  | {
      readonly type: 'retries-exhausted';
      readonly key: string;
      readonly error: unknown;
      readonly retryInfo: RetryInfo;
      readonly terminal: boolean;
    }
  | { readonly type: 'rescheduled'; readonly key: string; readonly delayMs: number; readonly reason: 'requested' | 'max-interval' }
  | { readonly type: 'dropped'; readonly key: string }
  | { readonly type: 'hook-failed'; readonly key: string; readonly error: unknown }
  | { readonly type: 'source-failed'; readonly error: unknown };

/**
 * The `type` of a {@link ProcessingEvent}.
 *
 * @example
 * ```ts
 * import type { EventProcessor } from '@kindex/core';
 * import type { ProcessingEventType } from '@kindex/core/internal';
 * declare const processor: EventProcessor;
 *
 * const counts = new Map<ProcessingEventType, number>();
 * processor.events$.subscribe((e) => counts.set(e.type, (counts.get(e.type) ?? 0) + 1));
 * ```
 */
export type ProcessingEventType = ProcessingEvent['type'];
