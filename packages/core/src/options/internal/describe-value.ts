/** A value as a message shows it: JSON where it has one, else its kind (a function, a class instance). */
export function describeValue(value: unknown): string {
  if (typeof value === 'function') return 'a function';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (value === undefined) return 'undefined';
  if (typeof value === 'object' && value !== null) {
    const prototype: unknown = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null && !Array.isArray(value)) {
      return `a ${value.constructor?.name ?? 'object'}`;
    }
  }
  try {
    const json = JSON.stringify(value);
    return json === undefined ? String(value) : json.length > 80 ? `${json.slice(0, 77)}...` : json;
  } catch {
    return String(value);
  }
}
