import type { KubernetesObject, StoreDelta } from '@kindex/core';

/**
 * Why a cache delta happened:
 * - `watch`: a watch event reported it;
 * - `list`: a list found it (the first list, or a relist after 410 Gone); a list's deltas arrive
 *   in one synchronous run, so a consumer may gather them and act once per batch;
 * - `attach`: the cache joined a shared informer that already held the object;
 * - `namespace-removed`: the namespace left the cache's set; the object is gone from the cache
 *   but not from the server, so consumers clean up without reconciling anything.
 * - `shard-removed`: the cache's shard selector changed and no longer covers the object (another
 *   replica owns it now); as `namespace-removed`, a cleanup and not a deletion.
 *
 * @example
 * ```ts
 * import type { CacheDeltaOrigin, InformerCache } from '@kindex/informer';
 * declare const configMaps: InformerCache;
 *
 * // Objects leaving because a namespace or a shard was dropped are not real deletes: do not clean up after them.
 * const isRealChange = (origin: CacheDeltaOrigin) => origin !== 'namespace-removed' && origin !== 'shard-removed';
 * configMaps.deltas$.subscribe((d) => isRealChange(d.origin) && console.log(d.delta.type));
 * ```
 */
export type CacheDeltaOrigin = 'watch' | 'list' | 'attach' | 'namespace-removed' | 'shard-removed';

/**
 * Whether a delta only says the object left this cache's scope (namespaces or shards), not the server.
 *
 * @example
 * ```ts
 * import { type InformerCache } from '@kindex/informer';
 * import { isScopeRemoval } from '@kindex/informer/internal';
 * declare const jobs: InformerCache;
 *
 * // Forget what left the cache's scope; clean up only after what the server deleted.
 * jobs.deltas$.subscribe(({ delta, origin }) => {
 *   if (delta.type === 'delete' && !isScopeRemoval(origin)) console.log('deleted', delta.object.metadata?.name);
 * });
 * ```
 */
export function isScopeRemoval(origin: CacheDeltaOrigin): boolean {
  return origin === 'namespace-removed' || origin === 'shard-removed';
}

/**
 * A store change of an {@link InformerCache}, with its origin.
 *
 * @example
 * ```ts
 * import type { CacheDelta, InformerCache } from '@kindex/informer';
 * declare const configMaps: InformerCache;
 *
 * configMaps.deltas$.subscribe(({ delta, origin }: CacheDelta) => {
 *   if (origin === 'watch') console.log(delta.type, delta.object.metadata?.name);
 * });
 * ```
 */
export interface CacheDelta<R extends KubernetesObject = KubernetesObject> {
  readonly delta: StoreDelta<R>;
  readonly origin: CacheDeltaOrigin;
}
