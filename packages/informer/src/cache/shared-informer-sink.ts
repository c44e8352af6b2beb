import type { KubernetesObject, StoreDelta } from '@kindex/core';

/**
 * A consumer of a {@link SharedInformer}'s changes (the caches built on it: an informer is shared
 * by every cache that asks for the same objects, so it has several). The informer calls each
 * connected sink's {@link SharedInformerSink.onInformerDelta} in a plain loop, in the order they
 * connected: a reader going to the definition of that call lands here, then on the
 * implementation (`InformerCache`).
 *
 * Contract: called synchronously after the store (and its indexes) show the change; a sink that
 * throws is reported on the informer's `errors$` and the others still get the change. `listing`
 * is true for the changes of a list (the first, or a relist after 410 Gone), delivered in one
 * synchronous run: a sink can gather them and act once per list.
 *
 * @example
 * ```ts
 * import type { SharedInformer, SharedInformerSink } from '@kindex/informer';
 * import type { KubernetesObject, StoreDelta } from '@kindex/core';
 * declare const informer: SharedInformer;
 *
 * // Logs what the watch changed.
 * const sink: SharedInformerSink<KubernetesObject> = {
 *   onInformerDelta(delta: StoreDelta<KubernetesObject>, listing: boolean): void {
 *     if (!listing) console.log(delta.type, delta.object.metadata?.name);
 *   },
 * };
 * const disconnect = informer.connect(sink);
 * disconnect();
 * ```
 */
export interface SharedInformerSink<R extends KubernetesObject = KubernetesObject> {
  /** One change of the informer's store, after the store shows it. */
  onInformerDelta(delta: StoreDelta<R>, listing: boolean): void;
}
