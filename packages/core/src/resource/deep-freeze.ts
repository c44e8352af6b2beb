/**
 * Freezes a JSON value and everything under it, stopping at subtrees that are already frozen.
 *
 * Every object kindex caches is frozen once, where it enters (the reflector, the store, a
 * controller's own write), so caches can hand out the same instance to every reader without a
 * copy and without client-go's mutation detector. Stopping at a frozen node keeps re-freezing
 * cheap (a transform may reuse frozen parts of an older object); the contract that makes this
 * safe is that whatever kindex freezes is frozen all the way down.
 *
 * @returns the same value, frozen.
 *
 * @example
 * ```ts
 * import { type KubernetesObject } from '@kindex/core';
 * import { deepFreeze } from '@kindex/core/internal';
 *
 * // Freeze a desired object before sharing it between reconciles, so no caller can change it.
 * const desired = deepFreeze<KubernetesObject>({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-config' } });
 * ```
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) freezeObject(value);
  return value;
}

function freezeObject(value: object): void {
  if (Object.isFrozen(value)) return;
  Object.freeze(value);
  // Primitives are tested inline rather than by a call per value: most values are strings.
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      if (typeof v === 'object' && v !== null) freezeObject(v);
    }
  } else {
    for (const k in value) {
      const v = (value as Record<string, unknown>)[k];
      if (typeof v === 'object' && v !== null) freezeObject(v);
    }
  }
}
