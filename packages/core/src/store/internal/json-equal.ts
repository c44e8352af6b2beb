/**
 * Deep equality of JSON values (objects, arrays, strings, numbers, booleans, null).
 *
 * Used only when an object carries no resourceVersion, so a relist can still tell an unchanged
 * object from a changed one and emit nothing for it. Key order does not matter; an absent key
 * and a key set to undefined are equal, as they serialize the same.
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
