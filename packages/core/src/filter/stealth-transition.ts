import type { KubernetesObject } from '../resource/kubernetes-object.js';
import type { ResourceEvent } from '../event/resource-event.js';
import type { Predicate } from '../predicate/predicate.js';
import { evaluate, type FilterErrorListener } from '../predicate/evaluate.js';

/**
 * Rewrites or drops an event before the predicates see it; undefined drops it.
 *
 * @example
 * ```ts
 * import { type EventTransform } from '@kindex/core';
 *
 * // Drops the events of objects being deleted, passes the others on unchanged.
 * const skipDeleting: EventTransform = (event) => (event.object.metadata?.deletionTimestamp ? undefined : event);
 * ```
 */
export type EventTransform<R extends KubernetesObject = KubernetesObject> = (
  event: ResourceEvent<R>,
  onError?: FilterErrorListener,
) => ResourceEvent<R> | undefined;

/**
 * kopf's stealth mode: objects that do not match `filter` are invisible, and an object that
 * starts or stops matching appears as created or deleted.
 *
 * An object is visible when `filter` passes a `generic` event about it, so use a filter on the
 * object's STATE (labels, annotations, `field`+`value`, `when`, `labelSelector`); change filters
 * (`old`/`new`, `generationChanged()`) say nothing about a single state.
 *
 * - create, delete, generic: kept when the object is visible, else dropped.
 * - update, old invisible and new visible: becomes a `create` of the new object (kopf: "suddenly
 *   appeared in sight with no diff-base").
 * - update, old visible and new invisible: becomes a `delete` carrying the new object (its last
 *   known state) with `deleteStateUnknown: false`, as an informer narrowed by a label selector
 *   reports an object leaving it.
 * - update, both visible: kept; both invisible: dropped.
 *
 * kopf's escape hatch from stealth mode (a dummy handler without filters, so every object is in
 * scope from its creation) is, in kindex, simply not using this transform: objects entering or
 * leaving the filter then arrive as updates, and the filter is an ordinary predicate.
 *
 * Attach it with `withStealthFilter(filter)` on an `InformerEventSource` builder or
 * `stealthFilter` in `ControllerOptions` (both in `@kindex/informer`): the transform runs first,
 * then the predicates, then the event handler. A filter that throws makes the object visible (the error goes to `onError`,
 * see `evaluate`): a reconcile too many is safer than an object that silently disappears.
 * Without `onError` the FilterError is thrown.
 *
 * @example
 * ```ts
 * import { kopfFilter, PRESENT, type FilterError, type ResourceEvent } from '@kindex/core';
 * import { stealthTransition } from '@kindex/core/internal';
 * declare const event: ResourceEvent;
 * declare function reportError(error: FilterError): void;
 * const stealth = stealthTransition(kopfFilter({ labels: { 'example.com/managed': PRESENT } }));
 * const seen = stealth(event, reportError); // undefined: not ours, nothing to do
 * ```
 */
export function stealthTransition<R extends KubernetesObject = KubernetesObject>(filter: Predicate<R>): EventTransform<R> {
  return (event, onError) => {
    const visible = (object: R): boolean => evaluate(filter, { type: 'generic', object }, onError);
    if (event.type !== 'update') return visible(event.object) ? event : undefined;
    const wasVisible = visible(event.oldObject);
    const isVisible = visible(event.object);
    if (wasVisible && isVisible) return event;
    if (isVisible) return { type: 'create', object: event.object };
    if (wasVisible) return { type: 'delete', object: event.object, deleteStateUnknown: false };
    return undefined;
  };
}
