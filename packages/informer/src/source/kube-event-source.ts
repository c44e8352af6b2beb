/**
 * The contract of an event source backed by a Kubernetes informer cache: core's `EventSource`
 * with the members it leaves optional made required (start with a signal, problems, sync, scope,
 * cache figures), plus the informer cache and the kind. `InformerEventSource` implements it.
 * Code above source/ needs no type test: it calls core's optional members (`problems$`,
 * `hasSynced`, `changeNamespaces`, ...), so any event source takes part unchanged.
 *
 * @module
 */
import type { Observable } from 'rxjs';
import type {
  EventSource,
  EventSourcePendingSync,
  EventSourceProblem,
  EventSourceStatistics,
  KubernetesObject,
  ShardSelector,
} from '@kindex/core';
import type { NamespaceSet } from '../cache/informer-cache-options.js';
import type { ResourceKind } from '../kind/resource-kind.js';

/**
 * The informer cache of a {@link KubeEventSource}, as much of it as the layers above read.
 *
 * @example
 * ```ts
 * import type { KubeEventSourceCache } from '@kindex/informer';
 * declare const cache: KubeEventSourceCache;
 *
 * if (!cache.hasSynced()) console.log(`waiting for ${cache.kind.plural} in ${cache.pendingSync().namespaces.join(', ')}`);
 * ```
 */
export interface KubeEventSourceCache {
  /** The kind the cache holds. */
  readonly kind: ResourceKind<KubernetesObject>;
  /** The namespaces it watches (`'all'` for the whole cluster). */
  readonly namespaces: NamespaceSet;
  /** The number of objects held. */
  readonly size: number;
  /** True once every watched namespace has listed. */
  hasSynced(): boolean;
  /** The namespaces not synced yet (`''` for all namespaces) and the last error met. */
  pendingSync(): { readonly namespaces: readonly string[]; readonly lastError: string | undefined };
  /** The number of entries of each index, by index name. */
  indexSizes(): Record<string, number>;
}

/**
 * An event source fed by a Kubernetes informer: core's `EventSource` plus what a controller and
 * an operator need to start it, scope it, report on it and list its permissions.
 *
 * Contract: `start()` resolves once the cache has synced and rejects with a `CacheSyncError`
 * naming the fix (or `StartAbortedError` when `signal` aborts); problems it moves past go to
 * `problems$`, never to `triggers$`; `changeNamespaces` and `changeShardSelector` resolve once
 * the new scope has synced.
 *
 * @example
 * ```ts
 * import type { KubeEventSource } from '@kindex/informer';
 * declare const sources: readonly KubeEventSource[];
 *
 * for (const s of sources) {
 *   if (!s.hasSynced()) console.log(`${s.name} waits for ${s.resourceType.plural}`);
 * }
 * ```
 * @see {@link InformerEventSource}, its implementation.
 */
export interface KubeEventSource<
  R extends KubernetesObject = KubernetesObject,
  P extends KubernetesObject = KubernetesObject,
> extends EventSource<R, P> {
  /** The kind it watches. */
  readonly resourceType: ResourceKind<R>;
  /** Problems met and moved past: throwing mappers and filters, bad objects, failed requests. */
  readonly problems$: Observable<EventSourceProblem>;
  /** Its informer cache. */
  readonly cache: KubeEventSourceCache;
  /** The label selector choosing its namespaces, when it has one of its own. */
  readonly namespaceSelector: string | undefined;
  /** True when it watches the controller's namespaces (and follows their changes). */
  readonly inheritsNamespaces: boolean;
  /** True when it follows the controller's shard selector. */
  readonly inheritsShardSelector: boolean;
  /** The namespaces it watches now. */
  readonly namespaces: NamespaceSet;
  /** True once every watched namespace has listed. */
  hasSynced(): boolean;
  /** What it still waits for: its kind, the namespaces not synced yet and the last error. */
  pendingSync(): EventSourcePendingSync;
  /** Cache figures for debug views. */
  statistics(): EventSourceStatistics;
  /** Starts the watches; resolves once synced. `signal` ends the wait. */
  start(options?: { readonly signal?: AbortSignal }): Promise<void>;
  /** Watches `namespaces` instead; resolves once they have synced. */
  changeNamespaces(namespaces: NamespaceSet): Promise<void>;
  /** Narrows the watches to `selector`'s shards (undefined: all); resolves once synced. */
  changeShardSelector(selector: ShardSelector | undefined): Promise<void>;
  /** The reverse primary-to-secondary index's size, when the source keeps one. */
  reverseIndexSize(): { readonly primaries: number; readonly secondaries: number } | undefined;
}
