/**
 * Marks a label, annotation or field criterion that passes when the key is present, with any
 * value (an empty string is present).
 *
 * `Symbol.for`, not `Symbol()`: two copies of @kindex/core in one process (a bundled plugin, a
 * duplicated dependency) must still agree on what the markers are.
 *
 * @example
 * ```ts
 * import { kopfFilter, PRESENT } from '@kindex/core';
 *
 * const hasOwner = kopfFilter({ annotations: { 'example.com/owner': PRESENT } });
 * ```
 */
export const PRESENT: unique symbol = Symbol.for('kindex.filter.PRESENT');

/**
 * Marks a label, annotation or field criterion that passes when the key is absent.
 *
 * @example
 * ```ts
 * import { ABSENT, kopfFilter } from '@kindex/core';
 *
 * const notPaused = kopfFilter({ annotations: { 'example.com/paused': ABSENT } });
 * ```
 */
export const ABSENT: unique symbol = Symbol.for('kindex.filter.ABSENT');

/**
 * {@link PRESENT} or {@link ABSENT}.
 *
 * @example
 * ```ts
 * import { PRESENT } from '@kindex/core';
 * import { type PresenceMarker } from '@kindex/core/internal';
 *
 * const required: Record<string, PresenceMarker> = { 'example.com/owner': PRESENT };
 * ```
 */
export type PresenceMarker = typeof PRESENT | typeof ABSENT;
