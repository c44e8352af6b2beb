import type { KubernetesObject } from '@kindex/core';

/**
 * Drops `metadata.managedFields` whole, often the largest part of an object. For caches that
 * never feed a server-side apply match; the default, {@link keepAppliedFields}, keeps the few
 * entries such a match reads. Changes a fresh object in place (what the reflector hands it);
 * returns a copy of a frozen one.
 *
 * @example
 * ```ts
 * import { dropManagedFields, InformerEventSource, Kinds } from '@kindex/informer';
 *
 * // Pods are many and nobody applies them here: keep none of their managedFields.
 * const pods = InformerEventSource.from(Kinds.Pod, Kinds.ConfigMap).withTransform(dropManagedFields);
 * ```
 */
export function dropManagedFields<R extends KubernetesObject>(object: R): R {
  const meta = object.metadata;
  if (meta === undefined || meta === null || meta.managedFields === undefined) return object;
  return withManagedFields(object, undefined);
}

/**
 * The default transform: keeps the `Apply` entries of `metadata.managedFields` (what a server-side
 * apply match such as `matchesAppliedFields` reads) and drops the `Update` entries, which are
 * most of the bytes and which no operator reads. An object nobody applied loses all of them.
 * Being one function for every cache, it lets plain event sources, dependents and applying
 * controllers of one kind share one informer (the registry shares informers by transform).
 * Changes a fresh object in place (what the reflector hands it); returns a copy of a frozen one.
 *
 * @example
 * ```ts
 * import { keepAppliedFields } from '@kindex/informer';
 * import type { KubernetesObject } from '@kindex/core';
 * declare const fromServer: KubernetesObject;
 *
 * // What every cache holds unless told otherwise: the Apply entries stay, the Update ones go.
 * const cached = keepAppliedFields(fromServer);
 * ```
 */
export function keepAppliedFields<R extends KubernetesObject>(object: R): R {
  const entries = object.metadata?.managedFields;
  if (entries === undefined) return object;
  let applied = 0;
  if (Array.isArray(entries)) for (const e of entries) if (isApply(e)) applied++;
  if (applied === 0) return withManagedFields(object, undefined);
  if (applied === entries.length) return object;
  return withManagedFields(object, entries.filter(isApply));
}

function isApply(entry: unknown): boolean {
  return typeof entry === 'object' && entry !== null && (entry as { operation?: unknown }).operation === 'Apply';
}

function withManagedFields<R extends KubernetesObject>(object: R, managedFields: unknown[] | undefined): R {
  const meta = object.metadata as Record<string, unknown>;
  // A copy loop, not `delete` (which turns metadata into a slow dictionary-mode object) nor a
  // rest spread (measured ~20% slower per watch event with the top-level copy it needed).
  const kept: Record<string, unknown> = {};
  for (const k in meta) if (k !== 'managedFields') kept[k] = meta[k];
  if (managedFields !== undefined) kept['managedFields'] = managedFields;
  if (Object.isFrozen(object)) return { ...object, metadata: kept };
  object.metadata = kept;
  return object;
}
