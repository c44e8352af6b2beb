import type { Retry, RetryExecution } from './retry.js';
import Type from 'typebox';
import { defineOptions } from '../options/define-options.js';

/**
 * Options of {@link GenericRetry}.
 *
 * @example
 * ```ts
 * import { GenericRetry, type GenericRetryOptions } from '@kindex/core';
 *
 * const options: GenericRetryOptions = { maxAttempts: 10, initialIntervalMs: 1000 };
 * const retry = new GenericRetry(options);
 * ```
 */
export interface GenericRetryOptions {
  /** Retries after the first failure; 0 never retries, -1 retries forever. Defaults to 5. */
  readonly maxAttempts?: number;
  /** Wait before the first retry, in ms. Defaults to 2000. */
  readonly initialIntervalMs?: number;
  /** Factor applied to the wait for each further retry. Defaults to 1.5. */
  readonly intervalMultiplier?: number;
  /**
   * Upper bound of one wait, in ms. Defaults to `initialIntervalMs * intervalMultiplier ^
   * maxAttempts` (15,187 ms with the other defaults; exponent 5 when retrying forever), JOSDK's default.
   */
  readonly maxIntervalMs?: number;
}

/** {@link GenericRetryOptions}' keys and value checks. */
const GENERIC_RETRY_OPTIONS = defineOptions<GenericRetryOptions>('GenericRetry options', {
  maxAttempts: Type.Optional(Type.Integer({ minimum: -1, description: 'a whole number of retries, 0 for none, -1 for no limit' })),
  initialIntervalMs: Type.Optional(Type.Number({ minimum: 0, description: 'a number of milliseconds, 0 or more' })),
  intervalMultiplier: Type.Optional(Type.Number({ minimum: 1, description: 'a factor of 1 or more' })),
  maxIntervalMs: Type.Optional(Type.Number({ minimum: 0, description: 'a number of milliseconds, 0 or more' })),
});

/**
 * JOSDK's exponential retry: 5 retries, waits of 2 s, 3 s, 4.5 s, 6.75 s, 10.1 s.
 *
 * With `maxAttempts: 5` a failing primary is reconciled at most 6 times (the first attempt plus
 * five retries); the sixth attempt sees `isLastAttempt` and, when it fails too, the
 * controller's retries-exhausted hook (where the reconciler's `updateErrorStatus` runs).
 *
 * Caveats: JOSDK multiplies the interval only from the third retry on (2 s, 2 s, 3 s, ...);
 * kindex multiplies from the second, so the n-th wait is `initial * multiplier^(n-1)`.
 *
 * @example
 * ```ts
 * import { EventProcessor, GenericRetry } from '@kindex/core';
 *
 * // Up to 5 attempts, 2 s then doubling, at most 1 minute apart.
 * const processor = new EventProcessor({
 *   dispatch: async () => {},
 *   retry: new GenericRetry({ maxAttempts: 5, initialIntervalMs: 2000, intervalMultiplier: 2, maxIntervalMs: 60_000 }),
 * });
 * ```
 */
export class GenericRetry implements Retry {
  readonly maxAttempts: number;
  readonly initialIntervalMs: number;
  readonly intervalMultiplier: number;
  readonly maxIntervalMs: number;

  constructor(options: GenericRetryOptions = {}) {
    GENERIC_RETRY_OPTIONS.check(options);
    this.maxAttempts = options.maxAttempts ?? 5;
    this.initialIntervalMs = options.initialIntervalMs ?? 2000;
    this.intervalMultiplier = options.intervalMultiplier ?? 1.5;
    this.maxIntervalMs =
      options.maxIntervalMs ??
      Math.floor(this.initialIntervalMs * this.intervalMultiplier ** (this.maxAttempts < 0 ? 5 : this.maxAttempts));
  }

  /** A retry that never retries: the first failure is final. */
  static noRetry(): GenericRetry {
    return new GenericRetry({ maxAttempts: 0 });
  }

  initExecution(): RetryExecution {
    return new GenericRetryExecution(this);
  }
}

class GenericRetryExecution implements RetryExecution {
  readonly #retry: GenericRetry;
  #attempts = 0;

  constructor(retry: GenericRetry) {
    this.#retry = retry;
  }

  get attemptCount(): number {
    return this.#attempts;
  }

  get isLastAttempt(): boolean {
    return this.#retry.maxAttempts >= 0 && this.#attempts >= this.#retry.maxAttempts;
  }

  nextDelay(): number | undefined {
    if (this.isLastAttempt) return undefined;
    const r = this.#retry;
    const delay = Math.min(r.initialIntervalMs * r.intervalMultiplier ** this.#attempts, r.maxIntervalMs);
    this.#attempts++;
    return Math.round(delay);
  }
}
