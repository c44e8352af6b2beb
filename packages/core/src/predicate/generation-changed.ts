import type { KubernetesObject } from '../resource/kubernetes-object.js';
import type { UpdateEvent } from '../event/resource-event.js';
import type { Predicate } from './predicate.js';
import { hasBothObjects } from './internal/update-pair.js';

/**
 * Passes updates whose `metadata.generation` changed; create, delete and generic events pass.
 *
 * The API server bumps `generation` on writes to `spec` (for custom resources, and for most
 * built-in kinds), not on writes to `status` or metadata, so this drops status-only writes,
 * including the controller's own status updates.
 *
 * Caveats (the same as controller-runtime's GenerationChangedPredicate, on purpose):
 * - Status-only writes are dropped: if someone overwrites or wipes `status`, the controller does
 *   not reconcile and will not restore it until the next spec change or resync.
 * - Label and annotation edits do not bump generation; OR with {@link labelsChanged} /
 *   {@link annotationsChanged} if they matter.
 * - Kinds whose generation the server never sets (ConfigMap, Secret, ...) read as generation 0 on
 *   both sides, so EVERY update of them is dropped. A missing generation counts as 0: absent
 *   to 1 passes, absent to absent does not.
 * - An update missing its old or new object is dropped.
 *
 * @see labelsChanged
 * @see resourceVersionChanged
 *
 * @example
 * ```ts
 * import { generationChanged, type KubernetesObject } from '@kindex/core';
 * type WebApp = KubernetesObject & { spec: { replicas: number } };
 *
 * // Reconcile on spec changes only; status writes (ours included) do not trigger a reconcile.
 * const specChanges = generationChanged<WebApp>();
 * ```
 */
export function generationChanged<R extends KubernetesObject = KubernetesObject>(): Predicate<R> {
  return Object.freeze({
    name: 'generationChanged',
    update: (e: UpdateEvent<R>) => hasBothObjects(e) && (e.object.metadata?.generation ?? 0) !== (e.oldObject.metadata?.generation ?? 0),
  });
}
