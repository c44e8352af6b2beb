import { AssertionError, deepStrictEqual } from 'node:assert/strict';
import { UnknownOptionError } from '@kindex/core';

/**
 * Runs `attempt` (a constructor or call handed options with unknown keys, synchronous or
 * returning a promise) and returns the `UnknownOptionError` it throws or rejects with.
 *
 * With `expected` (each unknown key's full path and the suggested key, in the order of the
 * object) it also checks that the error names exactly those, and that its message names each
 * path, each suggestion and the accepted keys of each level, which is what a user reads.
 *
 * @throws AssertionError when `attempt` succeeds (the unknown keys were ignored), fails with
 *   another error (its `actual`), or names other keys than `expected`.
 * @example
 * ```ts
 * import { catchUnknownOptions } from '@kindex/testing/internal';
 * import { GenericRetry } from '@kindex/core';
 *
 * const error = await catchUnknownOptions(() => new GenericRetry({ maxAttempt: 3 } as never), [
 *   ['GenericRetry options.maxAttempt', 'maxAttempts'],
 * ]);
 * console.log(error.unknown[0]?.accepted);
 * ```
 */
export async function catchUnknownOptions(
  attempt: () => unknown,
  expected?: readonly (readonly [path: string, suggestion: string | undefined])[],
): Promise<UnknownOptionError> {
  let error: unknown;
  try {
    await attempt();
  } catch (thrown) {
    error = thrown;
  }
  if (!(error instanceof UnknownOptionError)) {
    throw new AssertionError({
      message: `expected an UnknownOptionError, got ${error === undefined ? 'none: the unknown keys were ignored' : String(error)}`,
      actual: error,
      expected: UnknownOptionError,
    });
  }
  if (expected !== undefined) {
    deepStrictEqual(
      error.unknown.map((u) => [u.path, u.suggestion]),
      expected.map(([path, suggestion]) => [path, suggestion]),
    );
    for (const u of error.unknown) {
      const named = [
        u.path,
        `accepts: ${u.accepted.join(', ')}`,
        ...(u.suggestion === undefined ? [] : [`did you mean "${u.suggestion}"?`]),
      ];
      for (const text of named) {
        if (!error.message.includes(text)) throw new AssertionError({ message: `the message does not name ${text}: ${error.message}` });
      }
    }
  }
  return error;
}
