/**
 * An Event record or recorder option the API server would refuse, or that no retry could fix: a
 * programming error, so the recorder throws it rather than dropping the Event in silence.
 *
 * @example
 * ```ts
 * import { EventRecordError } from '@kindex/informer';
 * import type { Context } from '@kindex/core';
 * declare const context: Context;
 *
 * try {
 *   context.getEventRecorder().record({ type: 'Warning', reason: '', action: 'Reconcile' });
 * } catch (e) {
 *   if (e instanceof EventRecordError) console.log(e.field); // "reason"
 * }
 * ```
 */
export class EventRecordError extends Error {
  override readonly name = 'EventRecordError';
  readonly code = 'KINDEX_EVENT_RECORD_FAILED';
  /** The field at fault (`reason`, `action`, `type`, `reportingController`, or an option's name). */
  readonly field: string;

  constructor(field: string, problem: string, fix: string) {
    super(`Kubernetes Event: ${field} ${problem}: ${fix}`);
    this.field = field;
  }
}
