import { ResourceID, type KubernetesObject, type StoreReader, type StoreSnapshot } from '@kindex/core';
import { NotCachedError } from './cache-errors.js';

/**
 * What a {@link CacheSnapshot} asks of its cache (an {@link InformerCache} is one): its name and
 * why an object cannot be in it, for the {@link NotCachedError} of a read it cannot answer.
 */
export interface CacheScope {
  readonly name: string;
  /** Why `id` cannot be cached (namespace not watched, another shard, field selector), or undefined when it can. */
  exclusionOf(id: ResourceID): string | undefined;
}

/** The key under which a cache holds the informer of every namespace (one informer for all). */
export const ALL_NAMESPACES = '';

/**
 * A consistent view of an {@link InformerCache} across its namespaces. Reads of an object the
 * cache cannot hold throw {@link NotCachedError} instead of answering "not found".
 *
 * @example
 * ```ts
 * import type { CacheSnapshot, InformerCache } from '@kindex/informer';
 * declare const configMaps: InformerCache;
 *
 * // One consistent view across every namespace of the cache.
 * const view: CacheSnapshot = configMaps.snapshot();
 * const total = view.size;
 * const web = view.get('shop/web-config');
 * ```
 */
export class CacheSnapshot<R extends KubernetesObject = KubernetesObject> implements Omit<
  StoreReader<R>,
  'indexValues' | 'indexNames' | 'resourceVersion'
> {
  readonly #cache: CacheScope;
  readonly #stores: ReadonlyMap<string, StoreReader<R>>;

  /** @internal */
  constructor(cache: CacheScope, stores: ReadonlyMap<string, StoreReader<R>>) {
    this.#cache = cache;
    this.#stores = stores;
  }

  /**
   * Ends the view: each namespace's store stops keeping old versions for it (a reconcile's
   * Context does it when the reconcile ends). Idempotent; reads afterwards throw.
   */
  release(): void {
    for (const store of this.#stores.values()) (store as Partial<StoreSnapshot<R>>).release?.();
  }

  /**
   * Whether any namespace's store was written since this snapshot was taken (always true over a
   * reader that cannot tell); while not, the cache's current objects are this snapshot's.
   */
  get hasChanged(): boolean {
    for (const store of this.#stores.values()) if ((store as Partial<StoreSnapshot<R>>).hasChanged !== false) return true;
    return false;
  }

  get size(): number {
    let n = 0;
    for (const s of this.#stores.values()) n += s.size;
    return n;
  }

  get(idOrKey: ResourceID | string): R | undefined {
    const id = typeof idOrKey === 'string' ? ResourceID.parse(idOrKey) : idOrKey;
    const store = this.#storeFor(id.namespace);
    if (store === undefined) {
      const why = this.#cache.exclusionOf(id);
      if (why !== undefined) throw new NotCachedError(id.key, this.#cache.name, why);
      return undefined;
    }
    const found = store.get(id);
    if (found === undefined) {
      const why = this.#cache.exclusionOf(id);
      if (why !== undefined) throw new NotCachedError(id.key, this.#cache.name, why);
    }
    return found;
  }

  /** Like {@link get} but never throws: undefined for anything not in the cache. */
  peek(idOrKey: ResourceID | string): R | undefined {
    if (typeof idOrKey === 'string') return this.#storeFor(ResourceID.namespaceOfKey(idOrKey))?.get(idOrKey);
    return this.#storeFor(idOrKey.namespace)?.get(idOrKey);
  }

  has(idOrKey: ResourceID | string): boolean {
    return this.peek(idOrKey) !== undefined;
  }

  list(namespace?: string, predicate?: (obj: R) => boolean): R[] {
    if (namespace !== undefined && namespace !== '') {
      return this.#storeFor(namespace)?.list(namespace, predicate) ?? [];
    }
    const out: R[] = [];
    for (const s of this.#stores.values()) for (const o of s.list(undefined, predicate)) out.push(o);
    return out;
  }

  keys(namespace?: string): string[] {
    if (namespace !== undefined && namespace !== '') return this.#storeFor(namespace)?.keys(namespace) ?? [];
    const out: string[] = [];
    for (const s of this.#stores.values()) for (const k of s.keys()) out.push(k);
    return out;
  }

  byIndex(indexName: string, value: string): R[] {
    if (this.#stores.size === 1) return this.#stores.values().next().value!.byIndex(indexName, value);
    const out: R[] = [];
    for (const s of this.#stores.values()) for (const o of s.byIndex(indexName, value)) out.push(o);
    return out;
  }

  indexKeys(indexName: string, value: string): ReadonlySet<string> {
    if (this.#stores.size === 1) return this.#stores.values().next().value!.indexKeys(indexName, value);
    const out = new Set<string>();
    for (const s of this.#stores.values()) for (const k of s.indexKeys(indexName, value)) out.add(k);
    return out;
  }

  #storeFor(namespace: string | undefined): StoreReader<R> | undefined {
    return this.#stores.get(ALL_NAMESPACES) ?? (namespace === undefined ? undefined : this.#stores.get(namespace));
  }
}
