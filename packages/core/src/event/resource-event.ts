import type { KubernetesObject } from '../resource/kubernetes-object.js';

/**
 * What an event source reports about one object, after its cache shows the change.
 *
 * The four kinds follow controller-runtime: `create`, `update` (with the old object),
 * `delete` (with `deleteStateUnknown` when the object vanished without the source seeing its
 * final state, for example across a relist after 410), and `generic` (anything else: a timer, an
 * external trigger).
 */
export type ResourceEvent<R extends KubernetesObject = KubernetesObject> =
  CreateEvent<R> | UpdateEvent<R> | DeleteEvent<R> | GenericEvent<R>;

/** An object appeared in the source's cache (first seen, or listed at start). */
export interface CreateEvent<R extends KubernetesObject = KubernetesObject> {
  readonly type: 'create';
  readonly object: R;
}

/** An object changed; `oldObject` is the state the cache held before. */
export interface UpdateEvent<R extends KubernetesObject = KubernetesObject> {
  readonly type: 'update';
  readonly object: R;
  readonly oldObject: R;
}

/** An object left the source's cache; `object` is its last known state. */
export interface DeleteEvent<R extends KubernetesObject = KubernetesObject> {
  readonly type: 'delete';
  readonly object: R;
  /** True when the source missed the delete itself and this is its last known state. */
  readonly deleteStateUnknown: boolean;
}

/** Anything that is not a change seen on the object itself: a timer, a poll, an external trigger. */
export interface GenericEvent<R extends KubernetesObject = KubernetesObject> {
  readonly type: 'generic';
  readonly object: R;
}

/** The four event kinds: `create`, `update`, `delete` and `generic`. */
export type ResourceEventType = ResourceEvent['type'];
