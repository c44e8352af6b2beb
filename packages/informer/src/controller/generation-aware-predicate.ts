import type { KubernetesObject, Predicate } from '@kindex/core';

/**
 * The controller's own filter on primary updates when generation-aware processing is on
 * (JOSDK's default): an update passes when `metadata.generation` changed, or when the primary
 * was just marked for deletion, or when it has no generation at all (kinds without one).
 * Status-only writes, including the controller's own status patches, do not reconcile again.
 *
 * @example
 * ```ts
 * import { Kinds, type Operator } from '@kindex/informer';
 * import { generationAwarePredicate } from '@kindex/informer/internal';
 * import type { KubernetesObject, Reconciler } from '@kindex/core';
 * declare const operator: Operator;
 * declare const reconciler: Reconciler<KubernetesObject, import('@kindex/informer').KubeClient>;
 *
 * // Skip status-only updates but still reconcile on finalizer and deletion changes.
 * operator.register(reconciler, { kind: Kinds.ConfigMap, primaryEventFilters: [generationAwarePredicate()] });
 * ```
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
