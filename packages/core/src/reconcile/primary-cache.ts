import type { KubernetesObject } from '../resource/kubernetes-object.js';
import type { ResourceID } from '../resource/resource-id.js';

/**
 * The read side of the controller's cache of primaries, as a reconcile sees it.
 *
 * `IndexedStore` and `StoreSnapshot` (from the store stage) satisfy it; a `Context` hands out a
 * snapshot so one reconcile reads one consistent view. Returned objects are frozen.
 *
 * @example
 * ```ts
 * import type { Context, PrimaryCacheReader } from '@kindex/core';
 * declare const context: Context;
 *
 * // Other primaries are in the cache too: check a name is unique in the namespace.
 * const primaries: PrimaryCacheReader = context.getPrimaryCache();
 * const sameHost = primaries.list('shop').filter((p) => p.metadata?.annotations?.['example.com/host'] === 'shop.example.com');
 * ```
 */
export interface PrimaryCacheReader<P extends KubernetesObject = KubernetesObject> {
  /** The primary with this ID or key (`namespace/name`), if cached. */
  get(idOrKey: ResourceID | string): P | undefined;
  /** The primaries of one namespace, or of all when `namespace` is undefined. */
  list(namespace?: string): P[];
  /** The primaries an indexer filed under `value`. Throws for an unknown index name. */
  byIndex(indexName: string, value: string): P[];
  /** Ends a snapshot's view; the controller calls it when the reconcile ends. Absent on live readers. */
  release?(): void;
}

/**
 * The controller's primary cache while event sources are prepared: readable, and open to new
 * indexers (JOSDK `IndexerResourceCache`).
 *
 * Add indexers in `prepareEventSources`, before the cache is used: a secondary-to-primary mapper
 * that calls `byIndex` is then O(1) per event (the Job/Cluster pattern).
 *
 * @example
 * ```ts
 * import { Mappers, type EventSourceContext, type KubernetesObject } from '@kindex/core';
 * declare const context: EventSourceContext;
 *
 * // Index the primaries by the Secret they name, so a Secret event finds its primaries.
 * context.primaryCache.addIndexer('bySecret', (p: KubernetesObject) => [p.metadata?.annotations?.['example.com/secret'] ?? '']);
 * const secretToPrimaries = Mappers.fromIndex(context.primaryCache, 'bySecret', (secret) => secret.metadata!.name!);
 * ```
 */
export interface PrimaryCache<P extends KubernetesObject = KubernetesObject> extends PrimaryCacheReader<P> {
  /**
   * The keys (`namespace/name`) an indexer filed under `value`, without resolving the objects:
   * what `Mappers.fromIndex` reads, O(1). Throws for an unknown index name.
   */
  indexKeys(indexName: string, value: string): ReadonlySet<string>;
  /** Files every primary (present and future) under the values `indexer` returns for it. */
  addIndexer(indexName: string, indexer: (primary: P) => readonly string[]): void;
}
