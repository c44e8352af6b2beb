/**
 * A kopf-style filter spec that cannot be compiled: an unknown option (a misspelling), `value`
 * together with `old`/`new`, a criterion of the wrong type. Thrown by `kopfFilter` when the
 * filter is built, never per event.
 *
 * @example
 * ```ts
 * import { InvalidFilterError, kopfFilter, PRESENT } from '@kindex/core';
 *
 * try {
 *   kopfFilter({ field: 'spec.mode', value: 'active', new: PRESENT } as never); // value and new together are ambiguous
 * } catch (error) {
 *   if (error instanceof InvalidFilterError) console.error(`filter option ${error.field}: ${error.message}`);
 * }
 * ```
 */
export class InvalidFilterError extends Error {
  override readonly name = 'InvalidFilterError';
  readonly code = 'KINDEX_INVALID_FILTER';
  /** Path of the offending option in the spec, for example `labels.app` or `value`. */
  readonly field: string;

  constructor(field: string, problem: string) {
    super(`filter spec: ${field}: ${problem}`);
    this.field = field;
  }
}
