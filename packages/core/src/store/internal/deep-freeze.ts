/**
 * Freezes a JSON value and everything under it, stopping at subtrees that are already frozen.
 *
 * Stopping at a frozen node is what makes freezing cheap: an object that reached the store once
 * (or was frozen by the reflector) costs one `Object.isFrozen` check. The price is a contract:
 * a frozen object must be frozen all the way down, which holds for everything kindex freezes.
 */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (const item of value) deepFreeze(item);
  } else {
    for (const key in value) {
      if (Object.prototype.hasOwnProperty.call(value, key)) deepFreeze((value as Record<string, unknown>)[key]);
    }
  }
  return value;
}
