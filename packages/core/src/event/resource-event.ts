import type { KubernetesObject } from '../resource/kubernetes-object.js';

/**
 * What an event source reports about one object, after its cache shows the change.
 *
 * The four kinds follow controller-runtime: `create`, `update` (with the old object),
 * `delete` (with `deleteStateUnknown` when the object vanished without the source seeing its
 * final state, for example across a relist after 410), and `generic` (anything else: a timer, an
 * external trigger).
 *
 * @example
 * ```ts
 * import type { ResourceEvent } from '@kindex/core';
 *
 * function describe(event: ResourceEvent): string {
 *   switch (event.type) {
 *     case 'update':
 *       return `${event.object.metadata?.name}: generation ${event.oldObject.metadata?.generation} -> ${event.object.metadata?.generation}`;
 *     case 'delete':
 *       return `${event.object.metadata?.name} deleted${event.deleteStateUnknown ? ' (missed the watch event)' : ''}`;
 *     default:
 *       return `${event.type} ${event.object.metadata?.name}`;
 *   }
 * }
 * ```
 */
export type ResourceEvent<R extends KubernetesObject = KubernetesObject> =
  CreateEvent<R> | UpdateEvent<R> | DeleteEvent<R> | GenericEvent<R>;

/**
 * An object appeared in the source's cache (first seen, or listed at start).
 *
 * @example
 * ```ts
 * import type { CreateEvent, Predicate } from '@kindex/core';
 *
 * // Ignore objects created already marked as paused.
 * const notPausedOnCreate: Predicate = {
 *   name: 'notPausedOnCreate',
 *   create: (event: CreateEvent) => event.object.metadata?.annotations?.['example.com/paused'] !== 'true',
 * };
 * ```
 */
export interface CreateEvent<R extends KubernetesObject = KubernetesObject> {
  readonly type: 'create';
  readonly object: R;
}

/**
 * An object changed; `oldObject` is the state the cache held before.
 *
 * @example
 * ```ts
 * import type { Predicate, UpdateEvent } from '@kindex/core';
 *
 * // React only when the owner references change.
 * const ownersChanged: Predicate = {
 *   name: 'ownersChanged',
 *   update: (event: UpdateEvent) =>
 *     JSON.stringify(event.oldObject.metadata?.ownerReferences) !== JSON.stringify(event.object.metadata?.ownerReferences),
 * };
 * ```
 */
export interface UpdateEvent<R extends KubernetesObject = KubernetesObject> {
  readonly type: 'update';
  readonly object: R;
  readonly oldObject: R;
}

/**
 * An object left the source's cache; `object` is its last known state.
 *
 * @example
 * ```ts
 * import type { DeleteEvent, Predicate } from '@kindex/core';
 *
 * // Act only on deletes the watch saw; one found by a relist (after 410 Gone) has no final state to read.
 * const seenDeletesOnly: Predicate = { name: 'seenDeletesOnly', delete: (event: DeleteEvent) => !event.deleteStateUnknown };
 * ```
 */
export interface DeleteEvent<R extends KubernetesObject = KubernetesObject> {
  readonly type: 'delete';
  readonly object: R;
  /** True when the source missed the delete itself and this is its last known state. */
  readonly deleteStateUnknown: boolean;
}

/**
 * Anything that is not a change seen on the object itself: a timer, a poll, an external trigger.
 *
 * @example
 * ```ts
 * import { evaluate, labelSelector, type GenericEvent, type KubernetesObject } from '@kindex/core';
 * declare const object: KubernetesObject;
 *
 * // A generic event tests an object outside the create/update/delete flow.
 * const event: GenericEvent = { type: 'generic', object };
 * const managed = evaluate(labelSelector('app.kubernetes.io/managed-by=web-operator'), event);
 * ```
 */
export interface GenericEvent<R extends KubernetesObject = KubernetesObject> {
  readonly type: 'generic';
  readonly object: R;
}

/**
 * The four event kinds: `create`, `update`, `delete` and `generic`.
 *
 * @example
 * ```ts
 * import type { ResourceEventType } from '@kindex/core';
 *
 * const counts: Record<ResourceEventType, number> = { create: 0, update: 0, delete: 0, generic: 0 };
 * ```
 */
export type ResourceEventType = ResourceEvent['type'];
