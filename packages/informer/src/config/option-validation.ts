/**
 * Configuration checks that run where configuration is written (registering a controller,
 * building an event source, creating a cache), so a mistake fails at once with the object, the
 * option and the fix in the message, instead of as a 400 from the server on every retry or an
 * option silently ignored. Unknown keys are rejected by `rejectUnknownOptions` of `@kindex/core`
 * (shared with `@kindex/testing`), with the key lists declared beside each options type.
 *
 * @module
 */
import { InvalidSelectorError, LabelSelector } from '@kindex/core';
import { FieldSelector } from '@kindex/core/internal';

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
