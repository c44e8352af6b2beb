import type { KubernetesObject } from '@kindex/core';

/**
 * Reshapes an object before the reflector caches it, for example to drop fields the operator
 * never reads and so save memory per cached object. It receives a fresh, still mutable object
 * straight from the wire and returns the object to cache (the same or a new one); the reflector
 * freezes the result. It must keep `metadata.name`, `namespace`, `uid` and `resourceVersion`.
 */
export type ObjectTransform<R extends KubernetesObject = KubernetesObject> = (object: R) => R;

/**
 * The default transform: drops `metadata.managedFields`, often the largest part of an object
 * and useless to an operator that does not do server-side apply bookkeeping itself.
 */
export function dropManagedFields<R extends KubernetesObject>(object: R): R {
  const meta = object.metadata;
  if (meta === undefined || meta.managedFields === undefined) return object;
  // A rest-spread copy, not `delete`: delete would turn metadata into a slow dictionary-mode object.
  const { managedFields: _dropped, ...rest } = meta;
  return { ...object, metadata: rest };
}
