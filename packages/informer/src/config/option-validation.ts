/**
 * Configuration checks that run where configuration is written (registering a controller,
 * building an event source, creating a cache), so a mistake fails at once with the object, the
 * option and the fix in the message, instead of as a 400 from the server on every retry or an
 * option silently ignored. Unknown keys are rejected by `rejectUnknownOptions` of `@kindex/core`
 * (shared with `@kindex/testing`), with the key lists declared beside each options type.
 *
 * @module
 */
import { FieldSelector, InvalidSelectorError, LabelSelector, type OptionKeysOf } from '@kindex/core';
import { BACKOFF_OPTION_KEYS } from '../reflector/backoff-options.js';
import type { ReflectorOptions } from '../reflector/reflector.js';

/**
 * Parses a label selector client-side (the server would answer 400 on every list and watch).
 * @throws {InvalidSelectorError} naming the owner, the selector and the parser's reason.
 */
export function checkLabelSelector(owner: string, selector: string): void {
  try {
    LabelSelector.parse(selector);
  } catch (error) {
    if (!(error instanceof InvalidSelectorError)) throw error;
    throw new InvalidSelectorError(selector, `${owner}: labelSelector ${JSON.stringify(selector)} is invalid: ${error.message}`, {
      ...(error.field !== undefined ? { field: error.field } : {}),
      cause: error,
    });
  }
}

/**
 * Parses a field selector client-side.
 * @throws {InvalidSelectorError} naming the owner, the selector and the parser's reason.
 */
export function checkFieldSelector(owner: string, selector: string): FieldSelector {
  try {
    return FieldSelector.parse(selector);
  } catch (error) {
    if (!(error instanceof InvalidSelectorError)) throw error;
    throw new InvalidSelectorError(selector, `${owner}: fieldSelector ${JSON.stringify(selector)} is invalid: ${error.message}`, {
      ...(error.field !== undefined ? { field: error.field } : {}),
      cause: error,
    });
  }
}

/**
 * The connection tuning (`reflector`) options of controllers and event sources.
 *
 * @example
 * ```ts
 * import { InformerEventSource, Kinds, type ReflectorTuningOptions } from '@kindex/informer';
 *
 * // Smaller pages and a shorter watch for a kind with large objects.
 * const reflector: ReflectorTuningOptions = { pageSize: 100, watchTimeoutSeconds: 120, backoff: { maxMs: 10_000 } };
 * const source = InformerEventSource.from(Kinds.ConfigMap).withReflectorOptions(reflector);
 * ```
 */
export type ReflectorTuningOptions = Pick<
  ReflectorOptions,
  'initialState' | 'pageSize' | 'watchTimeoutSeconds' | 'inactivityTimeoutMs' | 'backoff' | 'wire'
>;

/** The keys of {@link ReflectorTuningOptions}, `backoff`'s own included. */
export const REFLECTOR_TUNING_KEYS = {
  initialState: true,
  pageSize: true,
  watchTimeoutSeconds: true,
  inactivityTimeoutMs: true,
  backoff: BACKOFF_OPTION_KEYS,
  wire: true,
} as const satisfies OptionKeysOf<ReflectorTuningOptions>;
