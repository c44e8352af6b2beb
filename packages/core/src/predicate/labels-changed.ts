import type { KubernetesObject } from '../resource/kubernetes-object.js';
import type { UpdateEvent } from '../event/resource-event.js';
import type { Predicate } from './predicate.js';
import { hasBothObjects, stringMapsEqual } from './internal/update-pair.js';

/**
 * Passes updates whose `metadata.labels` changed (a key added, removed or given another value);
 * create, delete and generic events pass.
 *
 * Usually ORed with {@link generationChanged} to react to spec and label edits but not to status
 * writes. A missing map and an empty map are equal. An update missing its old or new object is
 * dropped, as in controller-runtime.
 *
 * @see annotationsChanged
 *
 * @example
 * ```ts
 * import { generationChanged, labelsChanged, or } from '@kindex/core';
 *
 * // The reconciler also copies labels to its secondaries, so label edits must reconcile too.
 * const relevant = or(generationChanged(), labelsChanged());
 * ```
 */
export function labelsChanged<R extends KubernetesObject = KubernetesObject>(): Predicate<R> {
  return Object.freeze({
    name: 'labelsChanged',
    update: (e: UpdateEvent<R>) => hasBothObjects(e) && !stringMapsEqual(e.oldObject.metadata?.labels, e.object.metadata?.labels),
  });
}
