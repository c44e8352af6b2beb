import type { KubernetesObject } from '../resource/kubernetes-object.js';
import { ResourceID } from '../resource/resource-id.js';
import { UNRECORDED, type UndoView } from '../snapshot/undo-log.js';
import { bucketForEach } from '../internal/key-bucket.js';
import { storedValues, type StoreContent } from './internal/store-content.js';
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
  /** The object with this ID or key, if present. O(1). */
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
   * The keys of the objects an index holds under one indexed value. O(keys).
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

/**
 * A consistent, never-changing view of an {@link IndexedStore}: the objects and indexes as they
 * were when `snapshot()` was called. Taking one is O(1) and copies nothing: the store keeps the
 * previous version of each object it changes while a snapshot that predates the change is open
 * (an undo log), and the snapshot reads the live store through it. Reads cost what the store's
 * do, plus the changes made since the snapshot was taken.
 *
 * Call `release()` when done (a reconcile's Context does it when the reconcile ends), so the
 * store stops keeping old versions for it; a snapshot nobody releases is released when it is
 * garbage collected. Reads after `release()` throw {@link ReleasedSnapshotError}.
 *
 * @example
 * ```ts
 * import { IndexedStore, type StoreSnapshot } from '@kindex/core';
 * const store = new IndexedStore();
 *
 * // One consistent view for a whole reconcile, however the store changes meanwhile.
 * const snapshot: StoreSnapshot = store.snapshot();
 * try {
 *   const total = snapshot.size;
 *   const inShop = snapshot.list('shop');
 * } finally {
 *   snapshot.release();
 * }
 * ```
 */
export class StoreSnapshot<R extends KubernetesObject = KubernetesObject> implements StoreReader<R> {
  readonly size: number;
  readonly resourceVersion: string | undefined;
  readonly #content: StoreContent<R>;
  readonly #view: UndoView<string, R>;
  readonly #indexNames: readonly string[];

  /** @internal Built by IndexedStore only. */
  constructor(content: StoreContent<R>) {
    this.#content = content;
    this.size = content.size;
    this.resourceVersion = content.resourceVersion;
    this.#indexNames = content.indexNames;
    this.#view = content.log.open(this);
  }

  /** Ends the view: the store stops keeping old versions for it. Reads afterwards throw. Idempotent. */
  release(): void {
    this.#view.release();
  }

  /**
   * Whether the store was written since this snapshot was taken; while not, the store's current
   * objects are this snapshot's (a reader may then take them from anything that holds them).
   * @throws {ReleasedSnapshotError} after `release()`.
   */
  get hasChanged(): boolean {
    return this.#view.changed;
  }

  get(idOrKey: ResourceID | string): R | undefined {
    const then = this.#view.valueAt(typeof idOrKey === 'string' ? idOrKey : idOrKey.key);
    return then === UNRECORDED ? this.#content.lookup(idOrKey) : then;
  }

  has(idOrKey: ResourceID | string): boolean {
    return this.get(idOrKey) !== undefined;
  }

  list(namespace?: string, predicate?: (obj: R) => boolean): R[] {
    const out: R[] = [];
    const all = namespace === undefined || namespace === '';
    const changed = this.#changedByNamespace();
    const collect = (ns: string, byName: ReadonlyMap<string, R>): void => {
      const skip = changed.get(ns);
      for (const [name, obj] of byName) {
        if (skip?.has(name) === true) continue;
        if (predicate === undefined || predicate(obj)) out.push(obj);
      }
    };
    if (all) for (const [ns, byName] of this.#content.objects) collect(ns, byName);
    else {
      const byName = this.#content.objects.get(namespace);
      if (byName !== undefined) collect(namespace, byName);
    }
    for (const [ns, byName] of changed) {
      if (!all && ns !== namespace) continue;
      for (const then of byName.values()) if (then !== undefined && (predicate === undefined || predicate(then))) out.push(then);
    }
    return out;
  }

  keys(namespace?: string): string[] {
    const out: string[] = [];
    const all = namespace === undefined || namespace === '';
    const changed = this.#changedByNamespace();
    for (const [ns, byName] of this.#content.objects) {
      if (!all && ns !== namespace) continue;
      const skip = changed.get(ns);
      for (const name of byName.keys()) if (skip?.has(name) !== true) out.push(ResourceID.keyOf(name, ns));
    }
    for (const [ns, byName] of changed) {
      if (!all && ns !== namespace) continue;
      for (const [name, then] of byName) if (then !== undefined) out.push(ResourceID.keyOf(name, ns));
    }
    return out;
  }

  byIndex(indexName: string, value: string): R[] {
    const out: R[] = [];
    for (const key of this.indexKeys(indexName, value)) {
      const obj = this.get(key);
      if (obj !== undefined) out.push(obj);
    }
    return out;
  }

  indexKeys(indexName: string, value: string): ReadonlySet<string> {
    const indexer = this.#indexer(indexName);
    const changed = this.#changedByKey();
    const out = new Set<string>();
    bucketForEach(this.#content.indexes.get(indexName)?.get(value), (key) => {
      if (!changed.has(key)) out.add(key);
    });
    for (const [key, then] of changed) if (then !== undefined && storedValues(indexer, then).includes(value)) out.add(key);
    return out;
  }

  indexValues(indexName: string): string[] {
    const indexer = this.#indexer(indexName);
    const changed = this.#changedByKey();
    const out = new Set<string>();
    for (const [value, bucket] of this.#content.indexes.get(indexName) ?? []) {
      // A value stays when at least one of its keys is unchanged since the snapshot.
      if (typeof bucket === 'string' ? !changed.has(bucket) : [...bucket].some((k) => !changed.has(k))) out.add(value);
    }
    for (const then of changed.values()) if (then !== undefined) for (const value of storedValues(indexer, then)) out.add(value);
    return [...out];
  }

  indexNames(): string[] {
    return [...this.#indexNames];
  }

  #indexer(indexName: string) {
    const indexer = this.#indexNames.includes(indexName) ? this.#content.indexers.get(indexName) : undefined;
    if (indexer === undefined) throw new UnknownIndexError(indexName, this.indexNames());
    return indexer;
  }

  /** Keys changed since the snapshot, with their value then (undefined: absent then). */
  #changedByKey(): Map<string, R | undefined> {
    const changed = new Map<string, R | undefined>();
    this.#view.forEachChanged((key, then) => changed.set(key, then));
    return changed;
  }

  /** The same, by namespace then name, for walking the live table without building keys. */
  #changedByNamespace(): Map<string, Map<string, R | undefined>> {
    const changed = new Map<string, Map<string, R | undefined>>();
    this.#view.forEachChanged((key, then) => {
      const slash = key.indexOf('/');
      const ns = slash < 0 ? '' : key.slice(0, slash);
      let byName = changed.get(ns);
      if (byName === undefined) changed.set(ns, (byName = new Map<string, R | undefined>()));
      byName.set(slash < 0 ? key : key.slice(slash + 1), then);
    });
    return changed;
  }
}
