import type { KubernetesObject } from '../resource/kubernetes-object.js';
import type { UpdateEvent } from '../event/resource-event.js';
import type { Predicate } from './predicate.js';
import { hasBothObjects, stringMapsEqual } from './internal/update-pair.js';

/**
 * Passes updates whose `metadata.annotations` changed; create, delete and generic events pass.
 *
 * Caveats: tools write annotations often (`kubectl.kubernetes.io/last-applied-configuration`,
 * leader-election records), so this can pass more updates than expected. A missing map and an
 * empty map are equal. An update missing its old or new object is dropped.
 *
 * @see labelsChanged
 *
 * @example
 * ```ts
 * import { annotationsChanged, generationChanged, or } from '@kindex/core';
 *
 * // A "pause" annotation is read by the reconciler, so annotation edits must reach it.
 * const relevant = or(generationChanged(), annotationsChanged());
 * ```
 */
export function annotationsChanged<R extends KubernetesObject = KubernetesObject>(): Predicate<R> {
  return Object.freeze({
    name: 'annotationsChanged',
    update: (e: UpdateEvent<R>) => hasBothObjects(e) && !stringMapsEqual(e.oldObject.metadata?.annotations, e.object.metadata?.annotations),
  });
}
