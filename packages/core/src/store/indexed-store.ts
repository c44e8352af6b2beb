/**
 * The store stage: the cache an informer fills, with client-go style named indexes.
 *
 * {@link IndexedStore} holds frozen objects keyed by `namespace/name`, grouped by namespace (so
 * `list(namespace)` costs only that namespace), plus any number of named indexes
 * (`addIndexer`). Its whole state is one persistent value (immutable.js maps of small
 * copy-on-write chunks) swapped on each write, so `snapshot()` is O(1) and a snapshot never
 * changes. Writers are the reflector and event sources: `replace` after a list (returns the
 * deltas), `upsert`/`delete` per watch event, `batch` for many at once. Readers use the
 * {@link StoreReader} API on the store (current content) or on a {@link StoreSnapshot} (one
 * consistent view across many calls).
 *
 * Cost (100k pod-like objects of ~2 KB, Node 20 x64): ~55 bytes retained per object beyond the
 * object itself with no custom index, ~100 more per index; see `indexed-store.bench.ts`.
 *
 * @module
 */
import { Observable, Subject } from 'rxjs';
import type { KubernetesObject } from '../resource/kubernetes-object.js';
import { InvalidResourceError, ResourceID } from '../resource/resource-id.js';
import { deepFreeze } from '../resource/deep-freeze.js';
import { jsonEqual } from '../resource/json-equal.js';
import { nameOf } from './internal/names.js';
import { StoreDraft } from './internal/store-draft.js';
import { multimapAdd, type StringMultimap } from './internal/string-multimap.js';
import { Map as IMap } from 'immutable';
import type { StoreDelta } from './store-delta.js';
import { DuplicateIndexerError, IndexerError, type StoreError } from './store-error.js';
import { StoreSnapshot, type StoreReader } from './store-snapshot.js';

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

/**
 * What {@link IndexedStore.upsert} did: the object as stored and the version it replaced.
 *
 * @example
 * ```ts
 * import { IndexedStore, type UpsertResult } from '@kindex/core';
 * const store = new IndexedStore();
 *
 * const result: UpsertResult | undefined = store.upsert({ metadata: { name: 'web', namespace: 'shop', resourceVersion: '7' } });
 * if (result?.old === undefined) console.log('new object', result?.object.metadata?.name);
 * ```
 */
export interface UpsertResult<R extends KubernetesObject = KubernetesObject> {
  /** The object now in the store (the same object, frozen). */
  readonly object: R;
  /** The previous version, or undefined when the object is new. */
  readonly old: R | undefined;
}

/**
 * The writes {@link IndexedStore.batch} offers, applied together when the batch ends.
 *
 * @example
 * ```ts
 * import { IndexedStore, type KubernetesObject, type StoreWriter } from '@kindex/core';
 * const store = new IndexedStore();
 *
 * // Several writes applied as one change, so readers never see half of them.
 * store.batch((writer: StoreWriter<KubernetesObject>) => {
 *   writer.upsert({ metadata: { name: 'a', namespace: 'shop' } });
 *   writer.delete('shop/b');
 * });
 * ```
 */
export interface StoreWriter<R extends KubernetesObject = KubernetesObject> {
  /** The object as the batch has it so far (the store's readers still see the old content). */
  get(idOrKey: ResourceID | string): R | undefined;
  /** As {@link IndexedStore.upsert}. */
  upsert(obj: R): UpsertResult<R> | undefined;
  /** As {@link IndexedStore.delete}. */
  delete(idOrKey: ResourceID | string, resourceVersion?: string): R | undefined;
}

const NO_VALUES: readonly string[] = Object.freeze([]);

/**
 * A persistent, indexed cache of Kubernetes objects of one kind.
 *
 * - Keys: `namespace/name`, or `name` for cluster-scoped objects ({@link ResourceID.key}).
 * - Objects are deeply frozen on the way in and returned as they are: never copied, never
 *   changed. Freezing stops at subtrees that are already frozen.
 * - Bad input never throws out of a write: an object without a name is rejected and reported
 *   on `errors$` as an {@link InvalidResourceError}; an indexer that throws (or returns anything
 *   but an array of strings) for one object keeps that object out of that index only and is
 *   reported as an {@link IndexerError}. Everything else goes on.
 * - Not thread-safe by design: JavaScript runs each write to completion, and readers that need
 *   several calls to agree take a `snapshot()`.
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
 * ```
 */
export class IndexedStore<R extends KubernetesObject = KubernetesObject> implements StoreReader<R> {
  readonly #indexers = new Map<string, Indexer<R>>();
  readonly #assumeFrozen: boolean;
  readonly #errors = new Subject<StoreError>();
  #state: StoreSnapshot<R> = new StoreSnapshot<R>(IMap(), IMap(), 0, undefined);

  /**
   * Problems the store reported and moved past. Hot: subscribe before writing to see them all.
   */
  readonly errors$: Observable<StoreError> = this.#errors.asObservable();

  constructor(options: IndexedStoreOptions<R> = {}) {
    this.#assumeFrozen = options.assumeFrozen ?? false;
    for (const [name, indexer] of Object.entries(options.indexers ?? {})) this.addIndexer(name, indexer);
  }

  /** The current content as a snapshot that never changes. O(1). */
  snapshot(): StoreSnapshot<R> {
    return this.#state;
  }

  get size(): number {
    return this.#state.size;
  }

  get resourceVersion(): string | undefined {
    return this.#state.resourceVersion;
  }

  get(idOrKey: ResourceID | string): R | undefined {
    return this.#state.get(idOrKey);
  }

  has(idOrKey: ResourceID | string): boolean {
    return this.#state.has(idOrKey);
  }

  list(namespace?: string, predicate?: (obj: R) => boolean): R[] {
    return this.#state.list(namespace, predicate);
  }

  keys(namespace?: string): string[] {
    return this.#state.keys(namespace);
  }

  byIndex(indexName: string, value: string): R[] {
    return this.#state.byIndex(indexName, value);
  }

  indexKeys(indexName: string, value: string): ReadonlySet<string> {
    return this.#state.indexKeys(indexName, value);
  }

  indexValues(indexName: string): string[] {
    return this.#state.indexValues(indexName);
  }

  indexNames(): string[] {
    return this.#state.indexNames();
  }

  /**
   * Adds a named index and fills it from the current content (one batch, O(objects)).
   * Works before and after objects arrive; later writes keep it up to date.
   * @throws {DuplicateIndexerError} when an indexer of that name exists.
   */
  addIndexer(indexName: string, indexer: Indexer<R>): void {
    if (this.#indexers.has(indexName)) throw new DuplicateIndexerError(indexName);
    this.#indexers.set(indexName, indexer);
    const draft = new StoreDraft(this.#state, true);
    let index: StringMultimap = IMap<string, string>().asMutable();
    for (const [namespace, byName] of this.#state.objects) {
      for (const obj of byName.values()) {
        const key = ResourceID.keyOf(nameOf(obj), namespace);
        for (const value of this.#values(indexName, indexer, obj, key)) index = multimapAdd(index, value, key);
      }
    }
    draft.addIndex(indexName, index.asImmutable());
    this.#state = draft.finish(this.#state.resourceVersion);
  }

  /**
   * Inserts or replaces one object (a watch ADDED or MODIFIED) and updates every index for it
   * only: O(log n + indexed values). The store's resourceVersion becomes the object's.
   * @returns the stored object and the version it replaced, or undefined when the object was
   *   rejected (reported on `errors$`).
   */
  upsert(obj: R): UpsertResult<R> | undefined {
    const draft = new StoreDraft(this.#state, false);
    const result = this.#upsertInto(draft, obj);
    if (result !== undefined) this.#state = draft.finish(obj.metadata?.resourceVersion ?? this.#state.resourceVersion);
    return result;
  }

  /** TEMPORARY until the store redesign lands: upsert unless the stored object has this resourceVersion. */
  upsertIfChanged(obj: R): UpsertResult<R> | undefined {
    const rv = obj.metadata?.resourceVersion;
    const old = obj.metadata?.name === undefined ? undefined : this.get(ResourceID.keyOf(obj.metadata.name, obj.metadata.namespace));
    if (rv !== undefined && rv !== '' && old?.metadata?.resourceVersion === rv) return undefined;
    return this.upsert(obj);
  }

  /**
   * Removes one object (a watch DELETED) and its index entries; tolerates absence.
   * @param resourceVersion the delete's resourceVersion, recorded as the store's when given.
   * @returns the removed object, or undefined when there was none.
   */
  delete(idOrKey: ResourceID | string, resourceVersion?: string): R | undefined {
    const draft = new StoreDraft(this.#state, false);
    const old = this.#deleteFrom(draft, idOrKey);
    if (old !== undefined || resourceVersion !== undefined) {
      this.#state = draft.finish(resourceVersion ?? this.#state.resourceVersion);
    }
    return old;
  }

  /**
   * Applies many upserts and deletes as one write: readers (and snapshots) see none of them
   * until `apply` returns, then all of them. Cheaper than single writes for more than a handful
   * (transient maps, no path copying): use it to apply a relist's deltas. When `apply` throws,
   * nothing is applied and the error is rethrown.
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
    const draft = new StoreDraft(this.#state, true);
    let resourceVersion = this.#state.resourceVersion;
    let open = true;
    const writer: StoreWriter<R> = {
      get: (idOrKey) => {
        const [namespace, name] = split(idOrKey);
        return draft.get(namespace, name);
      },
      upsert: (obj) => {
        if (!open) throw new Error('IndexedStore.batch: writer used after the batch ended');
        const result = this.#upsertInto(draft, obj);
        if (result !== undefined) resourceVersion = obj.metadata?.resourceVersion ?? resourceVersion;
        return result;
      },
      delete: (idOrKey, rv) => {
        if (!open) throw new Error('IndexedStore.batch: writer used after the batch ended');
        resourceVersion = rv ?? resourceVersion;
        return this.#deleteFrom(draft, idOrKey);
      },
    };
    try {
      const result = apply(writer);
      this.#state = draft.finish(resourceVersion);
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
   * overall. When a key appears twice in `objects`, the last one wins. Rejected objects are
   * reported on `errors$` and skipped.
   * @param resourceVersion the list's resourceVersion, recorded as the store's.
   */
  replace(objects: Iterable<R>, resourceVersion?: string): StoreDelta<R>[] {
    const incoming = new Map<string, [namespace: string, name: string, obj: R]>();
    for (const obj of objects) {
      const at = this.#locate(obj);
      if (at !== undefined) incoming.set(ResourceID.keyOf(at[1], at[0]), [at[0], at[1], obj]);
    }
    // Index entries reuse the incoming key strings: one string per object, shared by all indexes.
    const base = this.#state;
    const draft = new StoreDraft(base, true);
    const deltas: StoreDelta<R>[] = [];
    for (const [key, [namespace, name, obj]] of incoming) {
      const old = draft.get(namespace, name);
      if (old !== undefined && unchanged(old, obj)) continue;
      const stored = this.#writeInto(draft, namespace, name, old, obj, key);
      if (old === undefined) {
        deltas.push({ type: 'create', object: stored });
      } else if (recreated(old, stored)) {
        // Deleted and created again under the same name between two lists: not an update.
        deltas.push({ type: 'delete', object: old, deleteStateUnknown: true }, { type: 'create', object: stored });
      } else {
        deltas.push({ type: 'update', object: stored, oldObject: old });
      }
    }
    for (const [namespace, byName] of base.objects) {
      for (const old of byName.values()) {
        const name = nameOf(old);
        const key = ResourceID.keyOf(name, namespace);
        if (incoming.has(key)) continue;
        draft.remove(namespace, name);
        draft.size--;
        this.#reindex(draft, key, old, undefined);
        deltas.push({ type: 'delete', object: old, deleteStateUnknown: true });
      }
    }
    this.#state = draft.finish(resourceVersion ?? base.resourceVersion);
    return deltas;
  }

  /** Removes every object, keeping the indexers. Emits nothing. */
  clear(): void {
    let indexes = IMap<string, StringMultimap>();
    for (const name of this.#indexers.keys()) indexes = indexes.set(name, IMap());
    this.#state = new StoreSnapshot<R>(IMap(), indexes, 0, undefined);
  }

  /** Namespace ('' when cluster-scoped) and name of an object, or undefined after reporting it. */
  #locate(obj: R): [namespace: string, name: string] | undefined {
    const meta = (obj as KubernetesObject | null | undefined)?.metadata;
    if (
      meta !== null &&
      typeof meta === 'object' &&
      typeof meta.name === 'string' &&
      meta.name !== '' &&
      (meta.namespace === undefined || typeof meta.namespace === 'string')
    ) {
      return [meta.namespace ?? '', meta.name];
    }
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
    return undefined;
  }

  #upsertInto(draft: StoreDraft<R>, obj: R): UpsertResult<R> | undefined {
    const at = this.#locate(obj);
    if (at === undefined) return undefined;
    const old = draft.get(at[0], at[1]);
    return { object: this.#writeInto(draft, at[0], at[1], old, obj), old };
  }

  #deleteFrom(draft: StoreDraft<R>, idOrKey: ResourceID | string): R | undefined {
    const [namespace, name] = split(idOrKey);
    const old = draft.get(namespace, name);
    if (old === undefined) return undefined;
    draft.remove(namespace, name);
    draft.size--;
    if (this.#indexers.size > 0) this.#reindex(draft, ResourceID.keyOf(name, namespace), old, undefined);
    return old;
  }

  #writeInto(draft: StoreDraft<R>, namespace: string, name: string, old: R | undefined, obj: R, key?: string): R {
    const stored = this.#assumeFrozen ? obj : deepFreeze(obj);
    draft.put(namespace, name, stored);
    if (old === undefined) draft.size++;
    if (this.#indexers.size > 0) this.#reindex(draft, key ?? ResourceID.keyOf(name, namespace), old, stored);
    return stored;
  }

  /** Moves one object's index entries from what `old` indexes to what `obj` indexes. */
  #reindex(draft: StoreDraft<R>, key: string, old: R | undefined, obj: R | undefined): void {
    for (const [indexName, indexer] of this.#indexers) {
      const before = old === undefined ? NO_VALUES : this.#previousValues(indexer, old);
      const after = obj === undefined ? NO_VALUES : this.#values(indexName, indexer, obj, key);
      if (sameValues(before, after)) continue; // the common update: labels untouched
      for (const value of before) if (!has(after, value)) draft.unindex(indexName, value, key);
      for (const value of after) if (!has(before, value)) draft.index(indexName, value, key);
    }
  }

  /** Values of an object being indexed; a failure is reported and indexes it nowhere. */
  #values(indexName: string, indexer: Indexer<R>, obj: R, key: string): readonly string[] {
    let values: unknown;
    try {
      values = indexer(obj);
    } catch (cause) {
      this.#errors.next(new IndexerError(key, indexName, 'indexer threw', { cause }));
      return NO_VALUES;
    }
    if (!Array.isArray(values)) {
      this.#errors.next(new IndexerError(key, indexName, `indexer returned ${describe(values)}, not an array of strings`));
      return NO_VALUES;
    }
    for (let i = 0; i < values.length; i++) {
      if (typeof values[i] !== 'string') {
        this.#errors.next(new IndexerError(key, indexName, `indexer returned ${describe(values[i])} at [${i}], not a string`));
        return NO_VALUES;
      }
    }
    return values.length === 0 ? NO_VALUES : (values as readonly string[]);
  }

  /**
   * Values of an object leaving an index. A failure was reported when the object came in, and
   * kept it out of the index then, so it means "nothing to remove" now.
   */
  #previousValues(indexer: Indexer<R>, old: R): readonly string[] {
    try {
      const values: unknown = indexer(old);
      return Array.isArray(values) && values.every((v) => typeof v === 'string') ? values : NO_VALUES;
    } catch {
      return NO_VALUES;
    }
  }
}

/** Namespace ('' when cluster-scoped) and name of an ID or key, without allocating an ID. */
function split(idOrKey: ResourceID | string): [namespace: string, name: string] {
  if (typeof idOrKey !== 'string') return [idOrKey.namespace ?? '', idOrKey.name];
  const slash = idOrKey.indexOf('/');
  return slash < 0 ? ['', idOrKey] : [idOrKey.slice(0, slash), idOrKey.slice(slash + 1)];
}

function recreated(old: KubernetesObject, obj: KubernetesObject): boolean {
  const before = old.metadata?.uid;
  const after = obj.metadata?.uid;
  return before !== undefined && after !== undefined && before !== after;
}

function unchanged(old: KubernetesObject, obj: KubernetesObject): boolean {
  const before = old.metadata?.resourceVersion;
  const after = obj.metadata?.resourceVersion;
  if (before !== undefined && after !== undefined) return before === after;
  return jsonEqual(old, obj);
}

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Membership in an indexer's result: a scan for the usual handful of values, a set beyond. */
function has(values: readonly string[], value: string): boolean {
  if (values.length <= 16) return values.includes(value);
  let set = largeValueSets.get(values);
  if (set === undefined) largeValueSets.set(values, (set = new Set(values)));
  return set.has(value);
}

const largeValueSets = new WeakMap<readonly string[], ReadonlySet<string>>();

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : typeof value;
}
