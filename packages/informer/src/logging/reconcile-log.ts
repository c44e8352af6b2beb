import type { DispatchRequest, ReconcileCauses } from '@kindex/core';

/**
 * One cause as it appears on a reconcile's log line.
 *
 * @example
 * ```ts
 * import { causesForLog, type LoggedCause } from '@kindex/informer/internal';
 * import type { DispatchRequest } from '@kindex/core';
 * declare const request: DispatchRequest;
 *
 * const causes: LoggedCause[] = causesForLog(request.causes);
 * console.log(JSON.stringify({ msg: 'reconcile', causes }));
 * ```
 */
export interface LoggedCause {
  readonly source: string;
  readonly type: string;
  readonly event?: string;
  readonly object?: string;
  readonly detail?: string;
  readonly count: number;
}

/**
 * The causes of a reconcile in the shape of its log line's `causes` field: short keys, no
 * timestamps (the line has its own), and the coalescing counts.
 *
 * @example
 * ```json
 * {"msg":"reconciled","triggers":3,"causes":[{"source":"clusters","type":"resource","event":"update","object":"sample/alpha","count":2},{"source":"primary","type":"resource","event":"create","object":"sample/build","count":1}]}
 * ```
 *
 * @example
 * ```ts
 * import { causesForLog } from '@kindex/informer/internal';
 * import { EventProcessor } from '@kindex/core';
 *
 * // Log why each reconcile runs, in the Operator's format, from a hand-made processor.
 * const processor = new EventProcessor({
 *   dispatch: async (key, { causes }) => console.log(JSON.stringify({ msg: 'reconcile', key, causes: causesForLog(causes) })),
 * });
 * ```
 */
export function causesForLog(causes: ReconcileCauses): LoggedCause[] {
  return causes.causes.map((c) => ({
    source: c.source,
    type: c.type,
    ...(c.event !== undefined ? { event: c.event } : {}),
    ...(c.objectKey !== undefined ? { object: c.objectKey } : {}),
    ...(c.detail !== undefined ? { detail: c.detail } : {}),
    count: c.count,
  }));
}

/**
 * The fields of a reconcile's log line that say why it ran: how many triggers coalesced into it,
 * and which they were when the controller keeps them (`causesKept`: its `inspection` on or
 * debug lines written; else the processor counts triggers only, and the line says no more).
 */
export function reconcileLogFields(request: DispatchRequest, causesKept = true): object {
  if (!causesKept) {
    return {
      triggers: request.causes.triggers,
      ...(request.retryInfo !== undefined ? { attempt: request.retryInfo.attemptCount + 1 } : {}),
    };
  }
  return {
    triggers: request.causes.triggers,
    causes: causesForLog(request.causes),
    ...(request.causes.omitted > 0 ? { causesOmitted: request.causes.omitted } : {}),
    ...(request.retryInfo !== undefined ? { attempt: request.retryInfo.attemptCount + 1 } : {}),
  };
}
