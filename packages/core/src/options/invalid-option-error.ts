import { describeValue } from './internal/describe-value.js';

/**
 * A value given for an option that its receiver cannot use: the wrong type, out of range, or in
 * contradiction with another option. Thrown at construction, before anything runs, with one line
 * naming the options object, the key, the value and the fix. Every kindex check of an options
 * object throws this class or a subclass of it (an unknown key is an {@link UnknownOptionError});
 * all of them carry the code `KINDEX_INVALID_OPTION`. It is a `RangeError` (a value outside what the
 * receiver accepts), so checks written for the `RangeError` of earlier versions still catch it.
 *
 * @example
 * ```ts
 * import { BucketRateLimiter, InvalidOptionError } from '@kindex/core';
 *
 * try {
 *   new BucketRateLimiter({ qps: 0 });
 * } catch (error) {
 *   if (error instanceof InvalidOptionError) console.error(error.code, error.options, error.key, error.fix);
 * }
 * ```
 */
export class InvalidOptionError extends RangeError {
  override readonly name: string = 'InvalidOptionError';
  /** Stable for scripts and logs, as Node's `err.code`. */
  readonly code = 'KINDEX_INVALID_OPTION';
  /** The options object, as the caller would name it: `WorkQueue options`. */
  readonly options: string;
  /** The key inside it, dotted for nested keys: `backoff.maxDelayMs`. */
  readonly key: string;
  /** What was given. */
  readonly value: unknown;
  /** What to do about it. */
  readonly fix: string;

  constructor(
    init: { readonly options: string; readonly key: string; readonly value: unknown; readonly problem: string; readonly fix: string },
    /** A message of its own, for subclasses that keep the wording their users match on. */
    message?: string,
    errorOptions?: { readonly cause?: unknown },
  ) {
    super(message ?? `${init.options}.${init.key} = ${describeValue(init.value)}: ${init.problem}. Fix: ${init.fix}`, errorOptions);
    this.options = init.options;
    this.key = init.key;
    this.value = init.value;
    this.fix = init.fix;
  }
}
