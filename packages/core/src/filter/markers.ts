/**
 * Marks a label, annotation or field criterion that passes when the key is present, with any
 * value (an empty string is present).
 *
 * `Symbol.for`, not `Symbol()`: two copies of @kindex/core in one process (a bundled plugin, a
 * duplicated dependency) must still agree on what the markers are.
 */
export const PRESENT: unique symbol = Symbol.for('kindex.filter.PRESENT');

/** Marks a label, annotation or field criterion that passes when the key is absent. */
export const ABSENT: unique symbol = Symbol.for('kindex.filter.ABSENT');

/** {@link PRESENT} or {@link ABSENT}. */
export type PresenceMarker = typeof PRESENT | typeof ABSENT;
