/**
 * Deep equality of JSON values (objects, arrays, strings, numbers, booleans, null): equal when
 * they serialize to the same JSON up to key order. Array order matters; an absent key and a key
 * set to undefined are equal; `1` and `1.0` are one number (Python's `==` on decoded JSON, which
 * kopf's filters rely on).
 *
 * The store uses it to tell an unchanged object from a changed one on a relist when objects carry
 * no resourceVersion; kopf-style filters, to decide whether a field changed; the embedded API
 * server, whether an update changes anything.
 *
 * @example
 * ```ts
 * import { type KubernetesObject } from '@kindex/core';
 * import { jsonEqual } from '@kindex/core/internal';
 * declare const actual: KubernetesObject & { data?: Record<string, string> };
 * declare const desiredData: Record<string, string>;
 *
 * // Skip the write when the data already matches (key order does not matter).
 * const upToDate = jsonEqual(actual.data ?? {}, desiredData);
 * ```
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  let definedInA = 0;
  for (const key in ra) {
    if (!Object.prototype.hasOwnProperty.call(ra, key) || ra[key] === undefined) continue;
    definedInA++;
    if (!Object.prototype.hasOwnProperty.call(rb, key) || !jsonEqual(ra[key], rb[key])) return false;
  }
  let definedInB = 0;
  for (const key in rb) {
    if (Object.prototype.hasOwnProperty.call(rb, key) && rb[key] !== undefined) definedInB++;
  }
  return definedInA === definedInB;
}
