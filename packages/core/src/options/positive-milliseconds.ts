/**
 * Checks a duration option where it is written: a finite number of milliseconds above 0, or
 * absent. One wording for every such option (timeouts, poll periods, inactivity limits), naming
 * where the value was given.
 *
 * @param value - what the user gave (`undefined` passes: the caller applies its default)
 * @param subject - where it was given, as the message should name it: `'KubeClient options: requestInactivityMs'`
 * @throws {RangeError} `<subject> must be a positive number of milliseconds, got <value>`
 *
 * @example
 * ```ts
 * import { positiveMilliseconds } from '@kindex/core';
 * const periodMs = positiveMilliseconds(30_000, 'poller: periodMs') ?? 60_000;
 * ```
 */
export function positiveMilliseconds(value: unknown, subject: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(`${subject} must be a positive number of milliseconds, got ${describe(value)}`);
  }
  return value;
}

function describe(value: unknown): string {
  return typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value));
}
