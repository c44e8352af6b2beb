import type { KubernetesObject } from '@kindex/core';

/**
 * One change the reflector saw, after it updated its view of the server: the stream of deltas,
 * applied in order to an empty store, rebuilds exactly the objects the server holds.
 *
 * An object whose resourceVersion did not change never produces a delta, even across a relist
 * or a watch restart. An object that was deleted and re-created under the same name while the
 * reflector was not looking (a new `metadata.uid`) arrives as `deleted` (state unknown) then
 * `added`, never as an `updated` that would mix two lives of one name.
 *
 * @example
 * ```ts
 * import type { Reflector, ReflectorDelta } from '@kindex/informer';
 * declare const reflector: Reflector;
 *
 * reflector.deltas$.subscribe((d: ReflectorDelta) => {
 *   if (d.type === 'updated') console.log(`${d.key}: ${d.oldObject.metadata?.resourceVersion} -> ${d.object.metadata?.resourceVersion}`);
 *   else console.log(d.type, d.key);
 * });
 * ```
 */
export type ReflectorDelta<R extends KubernetesObject = KubernetesObject> = ReflectorAdded<R> | ReflectorUpdated<R> | ReflectorDeleted<R>;

/**
 * An object the reflector had not seen.
 *
 * @example
 * ```ts
 * import type { ReflectorAdded, ReflectorDelta } from '@kindex/informer';
 *
 * const isAdded = (d: ReflectorDelta): d is ReflectorAdded => d.type === 'added';
 * ```
 */
export interface ReflectorAdded<R extends KubernetesObject = KubernetesObject> {
  readonly type: 'added';
  readonly key: string;
  readonly object: R;
}

/**
 * A new resourceVersion of an object the reflector had seen; `oldObject` is the one it held.
 *
 * @example
 * ```ts
 * import type { ReflectorDelta, ReflectorUpdated } from '@kindex/informer';
 *
 * const specChanged = (d: ReflectorUpdated) => d.oldObject.metadata?.generation !== d.object.metadata?.generation;
 * const relevant = (d: ReflectorDelta) => d.type !== 'updated' || specChanged(d);
 * ```
 */
export interface ReflectorUpdated<R extends KubernetesObject = KubernetesObject> {
  readonly type: 'updated';
  readonly key: string;
  readonly object: R;
  readonly oldObject: R;
}

/**
 * An object gone from the server. `deleteStateUnknown` is true when the reflector did not see the
 * delete itself (a relist found the object missing): `object` is then the last state it held.
 *
 * @example
 * ```ts
 * import type { Reflector, ReflectorDeleted } from '@kindex/informer';
 * declare const reflector: Reflector;
 *
 * reflector.deltas$.subscribe((d) => {
 *   // A delete found by a relist after a broken watch carries the last state we saw.
 *   if (d.type === 'deleted' && (d satisfies ReflectorDeleted).deleteStateUnknown) console.warn(`${d.key} vanished while the watch was down`);
 * });
 * ```
 */
export interface ReflectorDeleted<R extends KubernetesObject = KubernetesObject> {
  readonly type: 'deleted';
  readonly key: string;
  readonly object: R;
  readonly deleteStateUnknown: boolean;
}
