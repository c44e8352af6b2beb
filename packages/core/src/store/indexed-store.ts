/**
 * The store stage: the cache an informer fills, with client-go style named indexes.
 *
 * {@link IndexedStore} holds frozen objects keyed by `namespace/name`, grouped by namespace (so
 * `list(namespace)` costs only that namespace), plus any number of named indexes
 * (`addIndexer`). Its content is plain mutable Maps, so a write costs about a Map write;
 * `snapshot()` is O(1) all the same and a snapshot never changes: while one is open, each write
 * first records the version it replaces in an undo log (`snapshot/undo-log.ts`), which the
 * snapshot reads through. Writers are the reflector and event sources: `replace` after a list
 * (returns the deltas; a bulk load when the store is empty), `upsert`/`upsertIfChanged`/`delete`
 * per watch event, `batch` for many at once. Readers use the {@link StoreReader} API on the store
 * (current content) or on a {@link StoreSnapshot} (one consistent view across many calls).
 *
 * Cost: see `indexed-store.bench.ts` for writes, lookups and bytes per object.
 *
 * @module
 */
import { Observable, Subject } from 'rxjs';
import type { KubernetesObject } from '../resource/kubernetes-object.js';
import { InvalidResourceError, ResourceID } from '../resource/resource-id.js';
import { deepFreeze } from '../resource/deep-freeze.js';
import { namedMetadataOf } from '../resource/named-metadata.js';
import { jsonEqual } from '../resource/json-equal.js';
import { bucketAdd, bucketForEach, type KeyBucket } from '../internal/key-bucket.js';
import { splitKey, StoreContent } from './internal/store-content.js';
import { indexValues, reindex, type ReportStoreError } from './internal/reindex.js';
import { isRecreated, type StoreDelta } from './store-delta.js';
import { DuplicateIndexerError, UnknownIndexError, type StoreError } from './store-error.js';
import { StoreSnapshot, type StoreReader } from './store-snapshot.js';
import type { StoreWriter, UpsertResult } from './store-writer.js';
import Type from 'typebox';
import { defineOptions } from '../options/define-options.js';

/**
 * Computes the indexed values of one object for a named index (client-go's IndexFunc).
 *
 * Must be a pure function of the object: on update and delete the store calls it again on the
 * old object to find the entries to remove, instead of remembering them per object (which would
 * cost memory on every cached object).
 *
 * @example
 * ```ts
 * import { IndexedStore, type Indexer, type KubernetesObject } from '@kindex/core';
 *
 * // Index pods by the node they run on.
 * const byNode: Indexer<KubernetesObject & { spec?: { nodeName?: string } }> = (pod) => (pod.spec?.nodeName ? [pod.spec.nodeName] : []);
 * const pods = new IndexedStore({ indexers: { byNode } });
 * const onNode1 = pods.byIndex('byNode', 'node-1');
 * ```
 */
export type Indexer<R extends KubernetesObject = KubernetesObject> = (obj: R) => readonly string[];

/**
 * Options of {@link IndexedStore}.
 *
 * @example
 * ```ts
 * import { IndexedStore, type IndexedStoreOptions, type KubernetesObject } from '@kindex/core';
 *
 * const options: IndexedStoreOptions = {
 *   indexers: { byApp: (obj: KubernetesObject) => [obj.metadata?.labels?.['app'] ?? ''] },
 * };
 * const store = new IndexedStore(options);
 * ```
 */
export interface IndexedStoreOptions<R extends KubernetesObject = KubernetesObject> {
  /** Named indexers to start with; more can be added later with `addIndexer`. Defaults to none. */
  indexers?: Readonly<Record<string, Indexer<R>>>;
  /**
   * Trust that every object written is already deeply frozen, and skip freezing. Freezing stops
   * at frozen subtrees anyway, so this only saves the walk over objects the caller promises
   * nobody will change. The store reads names and index values from its objects again later,
   * so changing a stored object corrupts it. Defaults to `false`.
   */
  assumeFrozen?: boolean;
}

/** {@link IndexedStoreOptions}' keys and value checks. */
const INDEXED_STORE_OPTIONS = defineOptions<IndexedStoreOptions>('IndexedStore options', {
  indexers: Type.Optional(
    Type.Record(Type.String(), Type.Function([Type.Unknown()], Type.Unknown()), { description: 'an object of named indexer functions' }),
  ),
  assumeFrozen: Type.Optional(Type.Boolean({ description: 'true or false' })),
});

/**
 * A indexed cache of Kubernetes objects of one kind, with O(1) consistent snapshots.
 *
 * - Keys: `namespace/name`, or `name` for cluster-scoped objects ({@link ResourceID.key}).
 * - Objects are deeply frozen on the way in and returned as they are: never copied, never
 *   changed. Freezing stops at subtrees that are already frozen.
 * - Bad input never throws out of a write: an object without a name is rejected and reported
 *   on `errors$` as an {@link InvalidResourceError}; an indexer that throws (or returns anything
 *   but an array of strings) for one object keeps that object out of that index only and is
 *   reported as an {@link IndexerError}. Everything else goes on.
 * - Not thread-safe by design: JavaScript runs each write to completion, and readers that need
 *   several calls to agree take a `snapshot()` (and `release()` it when done).
 *
 * @example
 * ```ts
 * import { IndexedStore, ResourceID, type KubernetesObject } from '@kindex/core';
 * type Job = KubernetesObject & { spec: { clusterName: string } };
 * declare const listedJobs: Job[];
 * declare const list: { metadata: { resourceVersion: string } };
 * declare const changedJob: Job;
 * const jobs = new IndexedStore<Job>({
 *   indexers: { byCluster: (job) => [ResourceID.keyOf(job.spec.clusterName, job.metadata?.namespace)] },
 * });
 * jobs.replace(listedJobs, list.metadata.resourceVersion);
 * jobs.upsert(changedJob);
 * const view = jobs.snapshot();
 * view.byIndex('byCluster', 'team-a/cluster-1'); // every Job of that Cluster
 * view.release();
 * ```
 */
export class IndexedStore<R extends KubernetesObject = KubernetesObject> implements StoreReader<R> {
  readonly #content = new StoreContent<R>();
  readonly #assumeFrozen: boolean;
  readonly #errors = new Subject<StoreError>();
  readonly #report: ReportStoreError = (error) => this.#errors.next(error);

  /**
   * Problems the store reported and moved past. Hot: subscribe before writing to see them all.
   */
  readonly errors$: Observable<StoreError> = this.#errors.asObservable();

  constructor(options: IndexedStoreOptions<R> = {}) {
    INDEXED_STORE_OPTIONS.check(options);
    this.#assumeFrozen = options.assumeFrozen ?? false;
    for (const [name, indexer] of Object.entries(options.indexers ?? {})) this.addIndexer(name, indexer);
  }

  /** The current content as a snapshot that never changes. O(1); `release()` it when done. */
  snapshot(): StoreSnapshot<R> {
    return new StoreSnapshot<R>(this.#content);
  }

  /** Snapshots taken and not yet released (nor garbage collected): each makes writes keep old versions. */
  get openSnapshots(): number {
    return this.#content.log.openCount;
  }

  get size(): number {
    return this.#content.size;
  }

  get resourceVersion(): string | undefined {
    return this.#content.resourceVersion;
  }

  get(idOrKey: ResourceID | string): R | undefined {
    return this.#content.lookup(idOrKey);
  }

  has(idOrKey: ResourceID | string): boolean {
    return this.#content.lookup(idOrKey) !== undefined;
  }

  list(namespace?: string, predicate?: (obj: R) => boolean): R[] {
    const out: R[] = [];
    const collect = (byName: ReadonlyMap<string, R>): void => {
      if (predicate === undefined) for (const obj of byName.values()) out.push(obj);
      else for (const obj of byName.values()) if (predicate(obj)) out.push(obj);
    };
    if (namespace === undefined || namespace === '') for (const byName of this.#content.objects.values()) collect(byName);
    else {
      const byName = this.#content.objects.get(namespace);
      if (byName !== undefined) collect(byName);
    }
    return out;
  }

  keys(namespace?: string): string[] {
    const out: string[] = [];
    for (const [ns, byName] of this.#content.objects) {
      if (namespace !== undefined && namespace !== '' && ns !== namespace) continue;
      for (const name of byName.keys()) out.push(ResourceID.keyOf(name, ns));
    }
    return out;
  }

  byIndex(indexName: string, value: string): R[] {
    const out: R[] = [];
    bucketForEach(this.#index(indexName).get(value), (key) => {
      const obj = this.#content.lookup(key);
      if (obj !== undefined) out.push(obj);
    });
    return out;
  }

  indexKeys(indexName: string, value: string): ReadonlySet<string> {
    const bucket = this.#index(indexName).get(value);
    return bucket === undefined ? new Set() : typeof bucket === 'string' ? new Set([bucket]) : new Set(bucket);
  }

  indexValues(indexName: string): string[] {
    return [...this.#index(indexName).keys()];
  }

  indexNames(): string[] {
    return [...this.#content.indexNames];
  }

  /**
   * Adds a named index and fills it from the current content (O(objects)). Works before and
   * after objects arrive; later writes keep it up to date. Snapshots taken before do not have it.
   * @throws {DuplicateIndexerError} when an indexer of that name exists.
   */
  addIndexer(indexName: string, indexer: Indexer<R>): void {
    const content = this.#content;
    if (content.indexers.has(indexName)) throw new DuplicateIndexerError(indexName);
    const index = new Map<string, KeyBucket>();
    for (const [namespace, byName] of content.objects) {
      for (const [name, obj] of byName) {
        const key = ResourceID.keyOf(name, namespace);
        for (const value of indexValues(indexName, indexer, obj, key, this.#report)) bucketAdd(index, value, key);
      }
    }
    content.indexers.set(indexName, indexer);
    content.indexes.set(indexName, index);
    content.indexNames = Object.freeze([...content.indexNames, indexName]);
  }

  /**
   * Inserts or replaces one object (a watch ADDED or MODIFIED) and updates every index for it
   * only: O(indexed values). The store's resourceVersion becomes the object's.
   * @returns the stored object and the version it replaced, or undefined when the object was
   *   rejected (reported on `errors$`).
   */
  upsert(obj: R): UpsertResult<R> | undefined {
    if (!this.#valid(obj)) return undefined;
    const meta = obj.metadata!;
    const namespace = meta.namespace ?? '';
    const old = this.#content.get(namespace, meta.name!);
    return { object: this.#put(namespace, meta.name!, old, obj), old };
  }

  /**
   * As {@link upsert}, unless the store holds the object with the same non-empty
   * resourceVersion already (a replayed watch event): then nothing is written. One lookup of the
   * old object, which is the one returned: the reflector's diff base and write in one step.
   * @returns the stored object and the version it replaced, or undefined when nothing was
   *   written (unchanged, or rejected and reported on `errors$`).
   */
  upsertIfChanged(obj: R): UpsertResult<R> | undefined {
    if (!this.#valid(obj)) return undefined;
    const meta = obj.metadata!;
    const namespace = meta.namespace ?? '';
    const old = this.#content.get(namespace, meta.name!);
    if (old !== undefined) {
      const rv = meta.resourceVersion;
      if (rv !== undefined && rv !== '' && old.metadata?.resourceVersion === rv) return undefined;
    }
    return { object: this.#put(namespace, meta.name!, old, obj), old };
  }

  /**
   * Removes one object (a watch DELETED) and its index entries; tolerates absence.
   * @param resourceVersion the delete's resourceVersion, recorded as the store's when given.
   * @returns the removed object, or undefined when there was none.
   */
  delete(idOrKey: ResourceID | string, resourceVersion?: string): R | undefined {
    const [namespace, name] = splitKey(idOrKey);
    const old = this.#content.get(namespace, name);
    if (old !== undefined) this.#remove(namespace, name, old);
    if (resourceVersion !== undefined) this.#content.resourceVersion = resourceVersion;
    return old;
  }

  /**
   * Applies many upserts and deletes as one write: readers (and snapshots) see none of them
   * until `apply` returns, then all of them. When `apply` throws, nothing is applied and the
   * error is rethrown.
   * @returns what `apply` returned.
   * @example
   * ```ts
   * import { IndexedStore, type KubernetesObject } from '@kindex/core';
   * type Delta = { type: 'added' | 'deleted'; key: string; object: KubernetesObject };
   * declare const deltas: Delta[];
   * const store = new IndexedStore();
   * store.batch((w) => { for (const d of deltas) if (d.type === 'deleted') w.delete(d.key); else w.upsert(d.object); });
   * ```
   */
  batch<T>(apply: (writer: StoreWriter<R>) => T): T {
    // Writes wait here, in order, until apply returns: nothing to undo when it throws.
    const pending = new Map<string, [namespace: string, name: string, obj: R | undefined]>();
    let resourceVersion = this.#content.resourceVersion;
    let open = true;
    const current = (namespace: string, name: string, key: string): R | undefined => {
      const write = pending.get(key);
      return write === undefined ? this.#content.get(namespace, name) : write[2];
    };
    const writer: StoreWriter<R> = {
      get: (idOrKey) => {
        const [namespace, name] = splitKey(idOrKey);
        return current(namespace, name, ResourceID.keyOf(name, namespace));
      },
      upsert: (obj) => {
        if (!open) throw new Error('IndexedStore.batch: writer used after the batch ended');
        if (!this.#valid(obj)) return undefined;
        const meta = obj.metadata!;
        const namespace = meta.namespace ?? '';
        const key = ResourceID.keyOf(meta.name!, namespace);
        const old = current(namespace, meta.name!, key);
        const stored = this.#assumeFrozen ? obj : deepFreeze(obj);
        pending.set(key, [namespace, meta.name!, stored]);
        resourceVersion = meta.resourceVersion ?? resourceVersion;
        return { object: stored, old };
      },
      delete: (idOrKey, rv) => {
        if (!open) throw new Error('IndexedStore.batch: writer used after the batch ended');
        resourceVersion = rv ?? resourceVersion;
        const [namespace, name] = splitKey(idOrKey);
        const key = ResourceID.keyOf(name, namespace);
        const old = current(namespace, name, key);
        if (old !== undefined) pending.set(key, [namespace, name, undefined]);
        return old;
      },
    };
    try {
      const result = apply(writer);
      for (const [key, [namespace, name, obj]] of pending) {
        const old = this.#content.get(namespace, name);
        if (obj !== undefined) this.#put(namespace, name, old, obj, key);
        else if (old !== undefined) this.#remove(namespace, name, old, key);
      }
      this.#content.resourceVersion = resourceVersion;
      return result;
    } finally {
      open = false;
    }
  }

  /**
   * Replaces the whole content with a fresh list (the reflector's list or relist) in one batch.
   *
   * Returns exactly what changed: `create` for new keys, `update` for objects whose
   * resourceVersion differs (whose content differs, when either has no resourceVersion), and
   * `delete` with `deleteStateUnknown: true` for objects missing from the list. An object whose
   * `metadata.uid` changed was deleted and created again: `delete` (state unknown) then `create`,
   * as the reflector reports it. Creates and updates come in list order, deletes last. Unchanged
   * objects produce nothing and keep their stored (frozen, indexed) version untouched. O(n)
   * overall, and into an empty store (the initial list) a bulk load that compares nothing. When a
   * key appears twice in `objects`, the last one wins. Rejected objects are reported on
   * `errors$` and skipped.
   * @param resourceVersion the list's resourceVersion, recorded as the store's.
   */
  replace(objects: Iterable<R>, resourceVersion?: string): StoreDelta<R>[] {
    const content = this.#content;
    const deltas = content.size === 0 ? this.#load(objects) : this.#diff(objects);
    content.resourceVersion = resourceVersion ?? content.resourceVersion;
    return deltas;
  }

  /** Removes every object, keeping the indexers. Emits nothing. */
  clear(): void {
    const content = this.#content;
    if (content.log.recording) {
      for (const [namespace, byName] of content.objects) {
        for (const [name, obj] of byName) content.log.recordBeforeWrite(ResourceID.keyOf(name, namespace), obj);
      }
    }
    content.objects.clear();
    for (const name of content.indexes.keys()) content.indexes.set(name, new Map());
    content.size = 0;
    content.resourceVersion = undefined;
  }

  /** The initial list: every object is new, so nothing is compared (a key listed twice: the last wins). */
  #load(objects: Iterable<R>): StoreDelta<R>[] {
    const content = this.#content;
    const deltas: StoreDelta<R>[] = [];
    for (const obj of objects) {
      if (!this.#valid(obj)) continue;
      const meta = obj.metadata!;
      const namespace = meta.namespace ?? '';
      const old = content.get(namespace, meta.name!);
      const stored = this.#put(namespace, meta.name!, old, obj);
      if (old === undefined) deltas.push({ type: 'create', object: stored });
      else deltas[deltas.findIndex((d) => d.object === old)] = { type: 'create', object: stored };
    }
    return deltas;
  }

  #diff(objects: Iterable<R>): StoreDelta<R>[] {
    const content = this.#content;
    const incoming = new Map<string, R>();
    for (const obj of objects) if (this.#valid(obj)) incoming.set(ResourceID.keyOf(obj.metadata!.name!, obj.metadata!.namespace), obj);
    const deltas: StoreDelta<R>[] = [];
    for (const [key, obj] of incoming) {
      const namespace = obj.metadata!.namespace ?? '';
      const name = obj.metadata!.name!;
      const old = content.get(namespace, name);
      if (old !== undefined && unchanged(old, obj)) continue;
      const stored = this.#put(namespace, name, old, obj, key);
      if (old === undefined) {
        deltas.push({ type: 'create', object: stored });
      } else if (isRecreated(old, stored)) {
        // Deleted and created again under the same name between two lists: not an update.
        deltas.push({ type: 'delete', object: old, deleteStateUnknown: true }, { type: 'create', object: stored });
      } else {
        deltas.push({ type: 'update', object: stored, oldObject: old });
      }
    }
    const vanished: Array<[namespace: string, name: string, key: string, old: R]> = [];
    for (const [namespace, byName] of content.objects) {
      for (const [name, old] of byName) {
        const key = ResourceID.keyOf(name, namespace);
        if (!incoming.has(key)) vanished.push([namespace, name, key, old]);
      }
    }
    for (const [namespace, name, key, old] of vanished) {
      this.#remove(namespace, name, old, key);
      deltas.push({ type: 'delete', object: old, deleteStateUnknown: true });
    }
    return deltas;
  }

  /** Whether an object can be stored (namespace and name readable); reports it when not. */
  #valid(obj: R): boolean {
    if (namedMetadataOf(obj) !== undefined) return true;
    try {
      ResourceID.fromResource(obj); // throws the error naming the field
      this.#errors.next(new InvalidResourceError(undefined, 'metadata', 'object is not a resource'));
    } catch (error) {
      this.#errors.next(
        error instanceof InvalidResourceError
          ? error
          : new InvalidResourceError(undefined, 'metadata', 'object is not a resource', { cause: error }),
      );
    }
    return false;
  }

  /** Writes one object over `old` (undefined: new): the undo log, the table, the size, the indexes. */
  #put(namespace: string, name: string, old: R | undefined, obj: R, knownKey?: string): R {
    const content = this.#content;
    const stored = this.#assumeFrozen ? obj : deepFreeze(obj);
    const key = content.log.recording || content.indexers.size > 0 ? (knownKey ?? ResourceID.keyOf(name, namespace)) : undefined;
    if (content.log.recording) content.log.recordBeforeWrite(key!, old);
    let byName = content.objects.get(namespace);
    if (byName === undefined) content.objects.set(namespace, (byName = new Map<string, R>()));
    // The object's own name string as the key: no key string per stored object.
    byName.set((stored.metadata as { name: string }).name, stored);
    if (old === undefined) content.size++;
    if (content.indexers.size > 0) reindex(content, key!, old, stored, this.#report);
    const rv = stored.metadata?.resourceVersion;
    if (rv !== undefined) content.resourceVersion = rv;
    return stored;
  }

  #remove(namespace: string, name: string, old: R, knownKey?: string): void {
    const content = this.#content;
    const key = content.log.recording || content.indexers.size > 0 ? (knownKey ?? ResourceID.keyOf(name, namespace)) : undefined;
    if (content.log.recording) content.log.recordBeforeWrite(key!, old);
    const byName = content.objects.get(namespace)!;
    byName.delete(name);
    if (byName.size === 0) content.objects.delete(namespace);
    content.size--;
    if (content.indexers.size > 0) reindex(content, key!, old, undefined, this.#report);
  }

  #index(indexName: string): Map<string, KeyBucket> {
    const index = this.#content.indexes.get(indexName);
    if (index === undefined) throw new UnknownIndexError(indexName, this.indexNames());
    return index;
  }
}

function unchanged(old: KubernetesObject, obj: KubernetesObject): boolean {
  const before = old.metadata?.resourceVersion;
  const after = obj.metadata?.resourceVersion;
  if (before !== undefined && after !== undefined) return before === after;
  return jsonEqual(old, obj);
}
