import type { KubernetesObject } from '../resource/kubernetes-object.js';
import type { UpdateEvent } from '../event/resource-event.js';
import type { Predicate } from './predicate.js';
import { hasBothObjects } from './internal/update-pair.js';

/**
 * Passes updates whose `metadata.resourceVersion` changed; create, delete and generic events pass.
 *
 * Every write changes the resourceVersion, so this only drops updates that are not writes: the
 * periodic resync that re-delivers an unchanged object. An update missing its old or new object
 * is dropped; two missing resourceVersions are equal.
 *
 * @see generationChanged
 *
 * @example
 * ```ts
 * import { resourceVersionChanged } from '@kindex/core';
 *
 * // Drop periodic resyncs that deliver the same version again.
 * const realChanges = resourceVersionChanged();
 * ```
 */
export function resourceVersionChanged<R extends KubernetesObject = KubernetesObject>(): Predicate<R> {
  return Object.freeze({
    name: 'resourceVersionChanged',
    update: (e: UpdateEvent<R>) => hasBothObjects(e) && e.object.metadata?.resourceVersion !== e.oldObject.metadata?.resourceVersion,
  });
}
