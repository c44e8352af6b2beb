import { Map as IMap } from 'immutable';
import type { KubernetesObject } from '../resource/kubernetes-object.js';
import { ResourceID } from '../resource/resource-id.js';
import type { ChunkTable } from './internal/chunk-table.js';
import { nameOf } from './internal/names.js';
import { bucketArray, bucketSet, type StringMultimap } from './internal/string-multimap.js';
import { UnknownIndexError } from './store-error.js';

/**
 * The read API shared by {@link IndexedStore} (its current content) and {@link StoreSnapshot}
 * (content frozen in time).
 *
 * Three kinds of strings, as in client-go: the object key (`namespace/name`, or `name` for
 * cluster-scoped objects), the index name, and the indexed value an indexer returns.
 * Every object returned is deeply frozen: copy before changing (`structuredClone`).
 *
 * @example
 * ```ts
 * import type { KubernetesObject, StoreReader } from '@kindex/core';
 *
 * // Accept the narrowest reader: a store, a snapshot or a test double all fit.
 * function countApps(store: StoreReader<KubernetesObject>, namespace: string): number {
 *   return new Set(store.list(namespace).map((o) => o.metadata?.labels?.['app'])).size;
 * }
 * ```
 */
export interface StoreReader<R extends KubernetesObject = KubernetesObject> {
  /** Number of objects. O(1). */
  readonly size: number;
  /** resourceVersion of the last applied write that carried one. */
  readonly resourceVersion: string | undefined;
  /** The object with this ID or key, if present. O(log n), effectively constant. */
  get(idOrKey: ResourceID | string): R | undefined;
  /** Whether an object with this ID or key is present. */
  has(idOrKey: ResourceID | string): boolean;
  /**
   * The objects of one namespace (O(objects in it)), or of all namespaces when `namespace` is
   * undefined or `''` (as `metav1.NamespaceAll`), optionally filtered. Cluster-scoped objects
   * are listed only with all namespaces. In no particular order.
   */
  list(namespace?: string, predicate?: (obj: R) => boolean): R[];
  /** The keys of one namespace's objects, or of all objects. */
  keys(namespace?: string): string[];
  /**
   * The objects an index holds under one indexed value, in no particular order.
   * @throws {UnknownIndexError} when no indexer has that name.
   */
  byIndex(indexName: string, value: string): R[];
  /**
   * The keys of the objects an index holds under one indexed value. O(1).
   * @throws {UnknownIndexError} when no indexer has that name.
   */
  indexKeys(indexName: string, value: string): ReadonlySet<string>;
  /**
   * Every indexed value of an index that holds at least one object.
   * @throws {UnknownIndexError} when no indexer has that name.
   */
  indexValues(indexName: string): string[];
  /** Names of the indexes, in the order they were added. */
  indexNames(): string[];
}

/** Objects by namespace (`''` for cluster-scoped), then by name. */
export type ObjectTable<R extends KubernetesObject> = IMap<string, ChunkTable<R>>;

/**
 * A consistent, never-changing view of an {@link IndexedStore}: the objects and indexes as they
 * were when `snapshot()` was called. Taking one is O(1) (the store swaps in a new persistent
 * value on every write and never changes an old one), so a reconcile can take one and read it
 * across many calls, or keep it as long as it likes.
 *
 * @example
 * ```ts
 * import { IndexedStore, type StoreSnapshot } from '@kindex/core';
 * const store = new IndexedStore();
 *
 * // One consistent view for a whole reconcile, however the store changes meanwhile.
 * const snapshot: StoreSnapshot = store.snapshot();
 * const total = snapshot.size;
 * const inShop = snapshot.list('shop');
 * ```
 */
export class StoreSnapshot<R extends KubernetesObject = KubernetesObject> implements StoreReader<R> {
  /** @internal */
  readonly objects: ObjectTable<R>;
  /** @internal */
  readonly indexes: IMap<string, StringMultimap>;
  readonly size: number;
  readonly resourceVersion: string | undefined;

  /** @internal Built by IndexedStore only. */
  constructor(objects: ObjectTable<R>, indexes: IMap<string, StringMultimap>, size: number, resourceVersion: string | undefined) {
    this.objects = objects;
    this.indexes = indexes;
    this.size = size;
    this.resourceVersion = resourceVersion;
  }

  get(idOrKey: ResourceID | string): R | undefined {
    if (typeof idOrKey !== 'string') return this.objects.get(idOrKey.namespace ?? '')?.get(idOrKey.name);
    const slash = idOrKey.indexOf('/');
    return slash < 0 ? this.objects.get('')?.get(idOrKey) : this.objects.get(idOrKey.slice(0, slash))?.get(idOrKey.slice(slash + 1));
  }

  has(idOrKey: ResourceID | string): boolean {
    return this.get(idOrKey) !== undefined;
  }

  list(namespace?: string, predicate?: (obj: R) => boolean): R[] {
    const out: R[] = [];
    const collect = (byName: ChunkTable<R>): void => {
      byName.forEach(predicate === undefined ? (obj) => out.push(obj) : (obj) => predicate(obj) && out.push(obj));
    };
    if (namespace === undefined || namespace === '') {
      for (const byName of this.objects.values()) collect(byName);
    } else {
      const byName = this.objects.get(namespace);
      if (byName !== undefined) collect(byName);
    }
    return out;
  }

  keys(namespace?: string): string[] {
    const out: string[] = [];
    for (const [ns, byName] of this.objects) {
      if (namespace !== undefined && namespace !== '' && ns !== namespace) continue;
      byName.forEach((obj) => out.push(ResourceID.keyOf(nameOf(obj), ns)));
    }
    return out;
  }

  byIndex(indexName: string, value: string): R[] {
    const out: R[] = [];
    for (const key of bucketArray(this.#index(indexName).get(value))) {
      const obj = this.get(key);
      if (obj !== undefined) out.push(obj);
    }
    return out;
  }

  indexKeys(indexName: string, value: string): ReadonlySet<string> {
    return bucketSet(this.#index(indexName).get(value));
  }

  indexValues(indexName: string): string[] {
    return this.#index(indexName).keySeq().toArray();
  }

  indexNames(): string[] {
    return this.indexes.keySeq().toArray();
  }

  #index(indexName: string): StringMultimap {
    const index = this.indexes.get(indexName);
    if (index === undefined) throw new UnknownIndexError(indexName, this.indexNames());
    return index;
  }
}
