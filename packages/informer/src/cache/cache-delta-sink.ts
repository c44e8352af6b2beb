import type { KubernetesObject, StoreDelta } from '@kindex/core';
import type { CacheDeltaOrigin } from './cache-delta.js';

/**
 * The one consumer an {@link InformerCache} hands each change to by a direct call, before any
 * `onDelta` listener or `deltas$` subscriber: the event source that owns the cache (each event
 * source has a cache of its own, so a cache has one sink). A reader going to the definition of
 * the call in the cache lands here, then on the implementation (`ManagedInformerEventSource`).
 *
 * Contract: called synchronously, in order, after the store (and its indexes) show the change,
 * with where it came from ({@link CacheDeltaOrigin}); must not throw (an event source reports the
 * failures of user code it runs itself).
 *
 * @example
 * ```ts
 * import { type CacheDeltaOrigin, type CacheDeltaSink, type InformerCache } from '@kindex/informer';
 * import type { KubernetesObject, StoreDelta } from '@kindex/core';
 * declare const configMaps: InformerCache;
 *
 * // Counts the real deletions (not objects leaving the cache's namespaces or shards).
 * class Deletions implements CacheDeltaSink<KubernetesObject> {
 *   count = 0;
 *   onCacheDelta(delta: StoreDelta<KubernetesObject>, origin: CacheDeltaOrigin): void {
 *     if (delta.type === 'delete' && origin !== 'namespace-removed' && origin !== 'shard-removed') this.count++;
 *   }
 * }
 * const disconnect = configMaps.connect(new Deletions());
 * disconnect();
 * ```
 */
export interface CacheDeltaSink<R extends KubernetesObject = KubernetesObject> {
  /** One change of the cache, after its store shows it. */
  onCacheDelta(delta: StoreDelta<R>, origin: CacheDeltaOrigin): void;
}
