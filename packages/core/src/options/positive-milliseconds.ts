import { InvalidOptionError } from './invalid-option-error.js';

/**
 * Checks a duration option where it is written: a finite number of milliseconds above 0, or
 * absent. One wording for every such option (timeouts, poll periods, inactivity limits), naming
 * where the value was given.
 *
 * @param value - what the user gave (`undefined` passes: the caller applies its default)
 * @param subject - where it was given, as the message should name it: `'KubeClient options: requestInactivityMs'`
 * @throws {InvalidOptionError} (a `RangeError`, code `KINDEX_INVALID_OPTION`)
 *   `<subject> must be a positive number of milliseconds, got <value>`
 *
 * @example
 * ```ts
 * import { positiveMilliseconds } from '@kindex/core/internal';
 * const periodMs = positiveMilliseconds(30_000, 'poller: periodMs') ?? 60_000;
 * ```
 */
export function positiveMilliseconds(value: unknown, subject: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    // `subject` is `<options object>: <key>`; the error carries both, as every bad option's does.
    const colon = subject.lastIndexOf(': ');
    throw new InvalidOptionError(
      {
        options: colon < 0 ? subject : subject.slice(0, colon),
        key: colon < 0 ? '' : subject.slice(colon + 2),
        value,
        problem: 'not a positive number of milliseconds',
        fix: 'give a finite number of milliseconds above 0, or leave it out for the default',
      },
      `${subject} must be a positive number of milliseconds, got ${describe(value)}`,
    );
  }
  return value;
}

function describe(value: unknown): string {
  return typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value));
}
