import type { KubernetesObject } from '@kindex/core';

/**
 * Reshapes an object before the reflector caches it, for example to drop fields the operator
 * never reads and so save memory per cached object. It receives a fresh, still mutable object
 * straight from the wire and returns the object to cache (the same or a new one); the reflector
 * freezes the result. It must keep `metadata.name`, `namespace`, `uid` and `resourceVersion`.
 *
 * @example
 * ```ts
 * import { InformerEventSource, Kinds, type ObjectTransform } from '@kindex/informer';
 * import type { KubernetesObject } from '@kindex/core';
 *
 * // Cache Secrets without their data: the reconciler only needs to know they exist.
 * const withoutData: ObjectTransform<KubernetesObject & { data?: unknown }> = ({ data: _data, ...secret }) => secret;
 * const secrets = InformerEventSource.from(Kinds.Secret, Kinds.ConfigMap).withTransform(withoutData);
 * ```
 */
export type ObjectTransform<R extends KubernetesObject = KubernetesObject> = (object: R) => R;

/**
 * The default transform: drops `metadata.managedFields`, often the largest part of an object
 * and useless to an operator that does not do server-side apply bookkeeping itself. Changes a
 * fresh object in place (what the reflector hands it); returns a copy of a frozen one.
 *
 * @example
 * ```ts
 * import { dropManagedFields, InformerEventSource, Kinds } from '@kindex/informer';
 *
 * // managedFields is often the largest part of an object and few reconcilers read it.
 * const pods = InformerEventSource.from(Kinds.Pod, Kinds.ConfigMap).withTransform(dropManagedFields);
 * ```
 */
export function dropManagedFields<R extends KubernetesObject>(object: R): R {
  const meta = object.metadata;
  if (meta === undefined || meta === null || meta.managedFields === undefined) return object;
  // A copy loop, not `delete` (which turns metadata into a slow dictionary-mode object) nor a
  // rest spread (measured ~20% slower per watch event with the top-level copy it needed).
  const kept: Record<string, unknown> = {};
  for (const k in meta) if (k !== 'managedFields') kept[k] = (meta as Record<string, unknown>)[k];
  if (Object.isFrozen(object)) return { ...object, metadata: kept };
  object.metadata = kept;
  return object;
}
