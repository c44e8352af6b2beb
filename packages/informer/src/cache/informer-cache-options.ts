import type { KubeConfig } from '@kubernetes/client-node';
import { type KubernetesObject, type ShardSelector } from '@kindex/core';
import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';
import type { ObjectTransform } from '../kind/object-transform.js';
import type { ResourceKind } from '../kind/resource-kind.js';
import type { InformerRegistry } from './informer-registry.js';
import { REFLECTOR_TUNING_OPTIONS, type ReflectorTuningOptions } from '../reflector/reflector-options.js';
import { CACHE_BOUND_OPTIONS, type CacheBound } from './bounded/cache-bound.js';
import type { InformerSpec } from './informer-spec.js';
import { ALL_NAMESPACES } from './cache-snapshot.js';

/**
 * Options of {@link InformerCache.start}.
 *
 * @example
 * ```ts
 * import type { CacheStartOptions, InformerCache } from '@kindex/informer';
 * declare const configMaps: InformerCache;
 *
 * // Give up on the first non-transient error (403, 404) instead of retrying, and after 60 s at most.
 * const options: CacheStartOptions = { signal: AbortSignal.timeout(60_000), failFast: true };
 * await configMaps.start(options);
 * ```
 */
export interface CacheStartOptions {
  /** Ends the wait: `start()` then rejects with {@link StartAbortedError}. Defaults to none. */
  readonly signal?: AbortSignal;
  /**
   * Whether a 400/401/403/404 before the first list rejects `start()` with a
   * {@link CacheSyncError} (true), or the informers keep retrying with backoff (false: how an
   * optional CRD is waited for). Defaults to true.
   */
  readonly failFast?: boolean;
}

/** {@link CacheStartOptions}' keys and value checks. */
export const CACHE_START_OPTIONS = defineOptions<CacheStartOptions>('InformerCache start options', {
  signal: Type.Optional(Type.Unknown()),
  failFast: Type.Optional(Type.Boolean({ description: 'true or false' })),
});

/**
 * Which namespaces a cache holds: every one, or a set (changeable at run time).
 *
 * @example
 * ```ts
 * import type { InformerCache, NamespaceSet } from '@kindex/informer';
 * declare const configMaps: InformerCache;
 *
 * // Follow a tenant list at run time: new namespaces sync before this resolves.
 * const tenants: NamespaceSet = ['tenant-a', 'tenant-b', 'tenant-c'];
 * await configMaps.setNamespaces(tenants);
 * ```
 */
export type NamespaceSet = 'all' | readonly string[];

/**
 * Options of {@link InformerCache}.
 *
 * @example
 * ```ts
 * import { InformerCache, InformerRegistry, Kinds, type InformerCacheOptions } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * const options: InformerCacheOptions = {
 *   name: 'managed-secrets',
 *   kubeConfig,
 *   kind: Kinds.Secret,
 *   registry: new InformerRegistry(),
 *   namespaces: 'all',
 *   labelSelector: 'app.kubernetes.io/managed-by=web-operator', // cache only our Secrets
 * };
 * const secrets = new InformerCache(options);
 * ```
 */
export interface InformerCacheOptions<R extends KubernetesObject = KubernetesObject> {
  /** Name for messages (usually the event source's). */
  readonly name: string;
  readonly kubeConfig: KubeConfig;
  readonly kind: ResourceKind<R>;
  readonly registry: InformerRegistry;
  /** Defaults to `'all'`. Ignored for cluster-scoped kinds. */
  readonly namespaces?: NamespaceSet;
  /** Server-side label selector. Defaults to none. */
  readonly labelSelector?: string;
  /** Server-side field selector. Defaults to none. */
  readonly fieldSelector?: string;
  /**
   * Only the objects of these hash ranges (sent to the server, and applied client-side when the
   * server lacks the `ShardedListAndWatch` gate); changeable with `setShardSelector`. Defaults to none.
   */
  readonly shardSelector?: ShardSelector | undefined;
  /** Applied before caching; `null` keeps objects as sent. Defaults to dropping managedFields. */
  readonly transform?: ObjectTransform<R> | null;
  /** Connection tuning passed to each reflector (initial state by watch-list or list, page size, timeouts, backoff, wire format). */
  readonly reflector?: ReflectorTuningOptions;
  /**
   * Keep only some objects in memory, reading an evicted one from the API server when
   * {@link InformerCache.load} asks (see {@link CacheBound}: memory against API reads). Not
   * with a shard selector. Defaults to every object in memory.
   */
  readonly bound?: CacheBound;
  /** The cluster's name when `kubeConfig` is not the operator's own (a remote source): in errors and metrics. Defaults to none. */
  readonly cluster?: string;
}

/** {@link InformerCacheOptions}' keys and value checks, `reflector`'s own included (selectors, namespaces and the bound have checks of their own). */
export const INFORMER_CACHE_OPTIONS = defineOptions<InformerCacheOptions>('InformerCache options', {
  name: Type.String({ description: 'a name for messages' }),
  kubeConfig: Type.Unknown(),
  kind: Type.Unknown(),
  registry: Type.Unknown(),
  namespaces: Type.Optional(Type.Unknown()),
  labelSelector: Type.Optional(Type.Unknown()),
  fieldSelector: Type.Optional(Type.Unknown()),
  shardSelector: Type.Optional(Type.Unknown()),
  transform: Type.Optional(Type.Unknown()),
  reflector: Type.Optional(REFLECTOR_TUNING_OPTIONS.schema),
  bound: Type.Optional(CACHE_BOUND_OPTIONS.schema),
  cluster: Type.Optional(Type.String({ description: 'a cluster name' })),
});

/** Checks a namespace set and gives it one form: sorted, without duplicates, frozen. */
export function normalizeNamespaces(ns: NamespaceSet): NamespaceSet {
  if (ns === 'all') return 'all';
  if (!Array.isArray(ns)) throw new TypeError(`namespaces must be 'all' or an array of names, got ${JSON.stringify(ns)}`);
  for (const [i, n] of ns.entries()) {
    if (typeof n !== 'string' || n === '') throw new TypeError(`namespaces[${i}] must be a non-empty string, got ${JSON.stringify(n)}`);
  }
  return Object.freeze([...new Set<string>(ns)].sort());
}

/**
 * What a cache asks the registry for in one namespace (`ALL_NAMESPACES` for all): its options,
 * with the shard selector and bound it applies now.
 */
export function informerSpecOf<R extends KubernetesObject>(
  o: InformerCacheOptions<R>,
  namespace: string,
  shards: ShardSelector | undefined,
  bound: CacheBound | undefined,
): InformerSpec<R> {
  return {
    ...o.reflector,
    kubeConfig: o.kubeConfig,
    type: o.kind,
    ...(namespace === ALL_NAMESPACES ? {} : { namespace }),
    ...(o.labelSelector ? { labelSelector: o.labelSelector } : {}),
    ...(o.fieldSelector ? { fieldSelector: o.fieldSelector } : {}),
    ...(shards !== undefined ? { shardSelector: shards } : {}),
    ...(o.transform !== undefined ? { transform: o.transform } : {}),
    ...(bound !== undefined ? { bound } : {}),
    ...(o.cluster !== undefined ? { cluster: o.cluster } : {}),
  };
}
