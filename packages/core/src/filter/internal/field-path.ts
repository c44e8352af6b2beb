import { InvalidFilterError } from '../invalid-filter-error.js';

/** What {@link resolveField} returns for a field that is not there (distinct from `null`). */
export const MISSING: unique symbol = Symbol('missing');

/**
 * Splits `spec.field` into segments. An array is taken as is, so keys that contain dots (label
 * and annotation keys such as `example.com/x`) stay reachable.
 */
export function parseFieldPath(field: unknown): readonly string[] {
  const parts = typeof field === 'string' ? field.split('.') : Array.isArray(field) ? [...(field as unknown[])] : undefined;
  if (parts === undefined || parts.length === 0 || parts.some((p) => typeof p !== 'string' || p === '')) {
    throw new InvalidFilterError('field', `expected a dotted path like "spec.field" or an array of keys, got ${JSON.stringify(field)}`);
  }
  // Not frozen: V8 iterates frozen arrays far slower, and this path is read on every event.
  return parts as string[];
}

/**
 * The value at a path, or {@link MISSING}. Only walks own keys of plain objects, like kopf's
 * `dicts.resolve`: arrays are not indexed, and a key on a prototype (`constructor`) is absent.
 */
export function resolveField(obj: unknown, path: readonly string[]): unknown {
  let cur: unknown = obj;
  for (let i = 0; i < path.length; i++) {
    const key = path[i]!;
    if (cur === null || typeof cur !== 'object' || Array.isArray(cur) || !Object.prototype.hasOwnProperty.call(cur, key)) {
      return MISSING;
    }
    cur = (cur as Record<string, unknown>)[key];
  }
  // A key holding `undefined` does not survive JSON; treat it as absent as the wire would.
  return cur === undefined ? MISSING : cur;
}
