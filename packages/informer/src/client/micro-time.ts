/**
 * Formats `ms` (milliseconds since the epoch) as a `metav1.MicroTime`: RFC 3339 in UTC with
 * exactly six fractional digits, the format of Lease `acquireTime`/`renewTime` and Event
 * `eventTime`/`series.lastObservedTime`. kube-apiserver refuses JavaScript's `toISOString()`
 * (three digits) in those fields: `cannot parse ".123Z" as ".000000"`.
 *
 * @example
 * ```ts
 * import { microTime } from '@kindex/informer';
 *
 * microTime(Date.UTC(2026, 10, 25, 18, 0, 0, 123)); // '2026-11-25T18:00:00.123000Z'
 * ```
 */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
