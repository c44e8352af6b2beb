import { AssertionError } from 'node:assert/strict';
import { InvalidOptionError } from '@kindex/core';

/**
 * Runs `attempt` (a constructor or call handed an options value it should refuse, synchronous or
 * returning a promise) and returns the `InvalidOptionError` it throws or rejects with, so a test
 * can assert on its `key`, `fix` or one-line message. The unknown-key twin is
 * {@link catchUnknownOptions}.
 *
 * @throws AssertionError when `attempt` succeeds (the bad value was taken) or fails with another
 *   error (its `actual`).
 * @example
 * ```ts
 * import { catchInvalidOption } from '@kindex/testing/internal';
 * import { BucketRateLimiter } from '@kindex/core';
 *
 * const error = await catchInvalidOption(() => new BucketRateLimiter({ qps: 0 }));
 * console.log(error.key, error.fix); // qps, set qps to a number of requeues per second above 0, ...
 * ```
 */
export async function catchInvalidOption(attempt: () => unknown): Promise<InvalidOptionError> {
  let error: unknown;
  try {
    await attempt();
  } catch (thrown) {
    error = thrown;
  }
  if (!(error instanceof InvalidOptionError)) {
    throw new AssertionError({
      message: `expected an InvalidOptionError, got ${error === undefined ? 'none: the bad value was taken' : String(error)}`,
      actual: error,
      expected: InvalidOptionError,
    });
  }
  return error;
}
