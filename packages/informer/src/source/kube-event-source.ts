/**
 * The contract of an event source backed by a Kubernetes informer cache: what the controller,
 * the operator's health, RBAC listing and debug views need from it beyond core's `EventSource`
 * (start with a signal, problems, pending sync, namespace and shard scope, cache figures).
 * `InformerEventSource` implements it; code above source/ asks {@link isKubeEventSource} rather
 * than `instanceof`, so another implementation (a primary source, a fake) takes part unchanged.
 *
 * @module
 */
import type { Observable } from 'rxjs';
import type { EventSource, KubernetesObject, ShardSelector } from '@kindex/core';
import type { NamespaceSet } from '../cache/informer-cache.js';
import type { ResourceKind } from '../kind/resource-kind.js';

/**
 * Problems an event source met and moved past (mappers, filters, informers).
 *
 * @example
 * ```ts
 * import type { EventSourceProblem, InformerEventSource } from '@kindex/informer';
 * declare const pods: InformerEventSource;
 *
 * // A mapper or filter that threw on one object: reported here, the object's event is not lost.
 * pods.problems$.subscribe((problem: EventSourceProblem) => console.warn(`${problem.source}:`, problem.error));
 * ```
 */
export interface EventSourceProblem {
  readonly source: string;
  readonly error: unknown;
}

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
 * import { isKubeEventSource } from '@kindex/informer';
 * import type { EventSource } from '@kindex/core';
 * declare const sources: readonly EventSource[];
 *
 * for (const s of sources) {
 *   if (isKubeEventSource(s) && !s.cache.hasSynced()) console.log(`${s.name} waits for ${s.resourceType.plural}`);
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
  /** Starts the watches; resolves once synced. `signal` ends the wait. */
  start(options?: { readonly signal?: AbortSignal }): Promise<void>;
  /** Watches `namespaces` instead; resolves once they have synced. */
  changeNamespaces(namespaces: NamespaceSet): Promise<void>;
  /** Narrows the watches to `selector`'s shards (undefined: all); resolves once synced. */
  changeShardSelector(selector: ShardSelector | undefined): Promise<void>;
  /** The reverse primary-to-secondary index's size, when the source keeps one. */
  reverseIndexSize(): { readonly primaries: number; readonly secondaries: number } | undefined;
}

const METHODS = ['start', 'stop', 'changeNamespaces', 'changeShardSelector', 'reverseIndexSize'] as const;

/**
 * True when `source` implements {@link KubeEventSource}: checked on its members, so any
 * implementation qualifies, not only `InformerEventSource`.
 *
 * @example
 * ```ts
 * import { isKubeEventSource } from '@kindex/informer';
 * import type { EventSource } from '@kindex/core';
 * declare const source: EventSource;
 *
 * const synced = isKubeEventSource(source) ? source.cache.hasSynced() : true;
 * ```
 */
export function isKubeEventSource<P extends KubernetesObject>(
  source: EventSource<unknown, P>,
): source is KubeEventSource<KubernetesObject, P> & EventSource<unknown, P> {
  const s = source as Partial<Record<keyof KubeEventSource, unknown>>;
  const cache = s.cache as Partial<Record<keyof KubeEventSourceCache, unknown>> | undefined;
  return (
    METHODS.every((m) => typeof s[m] === 'function') &&
    s.problems$ !== undefined &&
    typeof s.inheritsNamespaces === 'boolean' &&
    typeof s.inheritsShardSelector === 'boolean' &&
    typeof cache?.hasSynced === 'function' &&
    typeof cache.pendingSync === 'function'
  );
}
