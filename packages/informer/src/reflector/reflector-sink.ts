import type { KubernetesObject, StoreDelta } from '@kindex/core';

/**
 * The one consumer a {@link Reflector} hands each change to by a direct call (the shared informer
 * built on it), before any `onDelta` listener or `deltas$` subscriber: a reader going to the
 * definition of the call in the reflector lands here, then on the implementation.
 *
 * Contract: called synchronously, in order, after the reflector's store shows the change; must not
 * throw (the reflector's read loop would end with it). `listing` is true for the changes of an
 * initial state, listed or streamed by watch-list (the first, or again after 410 Gone), delivered
 * in one synchronous run.
 *
 * @example
 * ```ts
 * import { Reflector, Kinds, type ReflectorSink } from '@kindex/informer';
 * import type { KubernetesObject, StoreDelta } from '@kindex/core';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * // Counts what the watch (not a list) changed.
 * class WatchedChanges implements ReflectorSink<KubernetesObject> {
 *   count = 0;
 *   onReflectorDelta(_delta: StoreDelta<KubernetesObject>, listing: boolean): void {
 *     if (!listing) this.count++;
 *   }
 * }
 * const reflector = new Reflector({ kubeConfig, type: Kinds.ConfigMap, sink: new WatchedChanges() });
 * ```
 */
export interface ReflectorSink<R extends KubernetesObject = KubernetesObject> {
  /** One change, after the store shows it. */
  onReflectorDelta(delta: StoreDelta<R>, listing: boolean): void;
}
