import type { KubernetesObject, Predicate } from '@kindex/core';

/**
 * The controller's own filter on primary updates when generation-aware processing is on
 * (JOSDK's default): an update passes when `metadata.generation` changed, or when the primary
 * was just marked for deletion, or when it has no generation at all (kinds without one).
 * Status-only writes, including the controller's own status patches, do not reconcile again.
 */
export function generationAwarePredicate<P extends KubernetesObject>(): Predicate<P> {
  return {
    name: 'generationAware',
    update: ({ object, oldObject }) => {
      const g = object.metadata?.generation;
      if (g === undefined || g !== oldObject.metadata?.generation) return true;
      return object.metadata?.deletionTimestamp !== undefined && oldObject.metadata?.deletionTimestamp === undefined;
    },
  };
}
