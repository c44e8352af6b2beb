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
  | CreateEvent<R>
  | UpdateEvent<R>
  | DeleteEvent<R>
  | GenericEvent<R>;

export interface CreateEvent<R extends KubernetesObject = KubernetesObject> {
  readonly type: 'create';
  readonly object: R;
}

export interface UpdateEvent<R extends KubernetesObject = KubernetesObject> {
  readonly type: 'update';
  readonly object: R;
  readonly oldObject: R;
}

export interface DeleteEvent<R extends KubernetesObject = KubernetesObject> {
  readonly type: 'delete';
  readonly object: R;
  /** True when the source missed the delete itself and this is its last known state. */
  readonly deleteStateUnknown: boolean;
}

export interface GenericEvent<R extends KubernetesObject = KubernetesObject> {
  readonly type: 'generic';
  readonly object: R;
}

export type ResourceEventType = ResourceEvent['type'];
