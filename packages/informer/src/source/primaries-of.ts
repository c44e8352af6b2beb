import {
  MapperError,
  ResourceID,
  type KubernetesObject,
  type PrimaryToSecondaryIndex,
  type SecondaryToPrimaryMapper,
  type StoreDelta,
} from '@kindex/core';

/**
 * The primaries a secondary's change concerns, `P_new ∪ P_old` deduplicated: from the reverse
 * index, which it updates on the way (one lookup of what the object referenced before), or, with
 * no index (a primary-to-secondary mapper replaces it), from mapping both versions. A throwing
 * mapper is reported and counts as naming no primary.
 */
export function primariesOf<R extends KubernetesObject>(
  delta: StoreDelta<R>,
  index: PrimaryToSecondaryIndex<R> | undefined,
  toPrimaryIds: SecondaryToPrimaryMapper<R>,
  report: (error: unknown) => void,
): readonly ResourceID[] {
  if (index !== undefined) {
    const update =
      delta.type === 'delete'
        ? index.onDelete(delta.object)
        : index.onAddOrUpdate(delta.object, delta.type === 'update' ? delta.oldObject : undefined);
    // The hot path: references unchanged (the index answers with one array for both).
    if (update.oldPrimaries === update.newPrimaries || update.oldPrimaries.length === 0) return update.newPrimaries;
    if (update.newPrimaries.length === 0) return update.oldPrimaries;
    const union = [...update.newPrimaries];
    for (const id of update.oldPrimaries) if (!union.some((seen) => seen.key === id.key)) union.push(id);
    return union;
  }
  // No index: map both versions each time (the mapper is pure, per its contract).
  const seen = new Map<string, ResourceID>();
  const add = (object: R): void => {
    try {
      for (const id of toPrimaryIds(object)) if (!seen.has(id.key)) seen.set(id.key, id);
    } catch (error) {
      const key = object.metadata?.name ? ResourceID.keyOf(object.metadata.name, object.metadata.namespace) : undefined;
      report(new MapperError(key, 'secondary-to-primary mapper threw', { cause: error }));
    }
  };
  add(delta.object);
  if (delta.type === 'update') add(delta.oldObject);
  return [...seen.values()];
}
