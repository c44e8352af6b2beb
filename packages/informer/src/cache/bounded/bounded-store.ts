/**
 * Bounded caches (JOSDK's `BoundedItemStore`): an informer store that keeps at most N object
 * bodies, or those used within a time window, and reads an evicted one back from the API server
 * when a reconcile needs it.
 *
 * {@link BoundedStore} is an {@link IndexedStore} whose content holds only the objects in memory
 * (an `lru-cache` decides which), plus one short record per object the server has (its
 * resourceVersion, uid, generation and finalizers, in about 75 bytes with the name: see
 * `compact-records.ts`). The reflector writes it as any store: a watch
 * event or a relist is diffed against the records, so evicted objects produce no spurious creates
 * or deletes, and an event for an evicted object carries a minimal old object built from its
 * record (JOSDK passes the same). Choose it through `cacheBound` on a controller (primaries) or
 * an event source without a reverse index; see {@link CacheBound} for the trade-off.
 *
 * @module
 */
import { LRUCache } from 'lru-cache';
import {
  IndexedStore,
  ResourceID,
  type Indexer,
  type KubernetesObject,
  type ReconcileStamps,
  type StoreDelta,
  type StoreWriter,
  type UpsertResult,
} from '@kindex/core';
import { deepFreeze, isRecreated, jsonEqual } from '@kindex/core/internal';
import { checkCacheBound, type CacheBound } from './cache-bound.js';
import { BoundedReconcileStamps } from './bounded-reconcile-stamps.js';
import { CompactRecords } from './compact-records.js';

/**
 * Reads one object from the API server for a {@link BoundedStore}, shaped as the reflector caches
 * objects (transformed); undefined when the server does not have it. The store freezes what it
 * gets, as the reflector does (at no cost for an object already frozen).
 *
 * @example
 * ```ts
 * import { type KubernetesObject, type ResourceID } from '@kindex/core';
 * import { Kinds, type KubeClient, type ResourceFetcher } from '@kindex/informer';
 * declare const client: KubeClient;
 *
 * const fetch: ResourceFetcher = async (id: ResourceID) => {
 *   const found: KubernetesObject | undefined = await client.get(Kinds.ConfigMap, id);
 *   return found;
 * };
 * ```
 */
export type ResourceFetcher<R extends KubernetesObject = KubernetesObject> = (id: ResourceID) => Promise<R | undefined>;

/**
 * Options of {@link BoundedStore}.
 *
 * @example
 * ```ts
 * import { BoundedStore, type BoundedStoreOptions } from '@kindex/informer';
 *
 * const options: BoundedStoreOptions = { bound: { maxObjects: 1_000 }, fetch: async () => undefined, typeMeta: { apiVersion: 'v1', kind: 'ConfigMap' } };
 * const store = new BoundedStore(options);
 * ```
 */
export interface BoundedStoreOptions<R extends KubernetesObject = KubernetesObject> {
  /** What to keep in memory. */
  readonly bound: CacheBound;
  /** How an evicted object is read back ({@link BoundedStore.load}). */
  readonly fetch: ResourceFetcher<R>;
  /** `apiVersion` and `kind` of the minimal objects that stand for evicted ones. Defaults to none. */
  readonly typeMeta?: { readonly apiVersion: string; readonly kind: string };
}

/**
 * What a {@link BoundedStore} did so far, for metrics and benchmarks.
 *
 * @example
 * ```ts
 * import type { BoundedStore, BoundedStoreStats } from '@kindex/informer';
 * declare const store: BoundedStore;
 *
 * const stats: BoundedStoreStats = store.stats;
 * console.log(`${stats.loads} API reads for ${stats.evicted} evictions`);
 * ```
 */
export interface BoundedStoreStats {
  /** Object bodies that left memory (count or time bound). */
  readonly evicted: number;
  /** API reads of evicted objects ({@link BoundedStore.load}), shared reads counted once. */
  readonly loads: number;
  /** Reads whose object was the version the watch last reported, so the store keeps it again. */
  readonly restored: number;
}

/**
 * An {@link IndexedStore} that keeps in memory only the objects its {@link CacheBound} allows and
 * a short record of every other one.
 *
 * - Reads (`get`, `list`, `keys`, `size`, snapshots) see the objects in memory; a `get` counts as
 *   a use (recency and `expireAfterAccessMs`). {@link knows} and {@link knownSize} answer for
 *   every object the server has.
 * - Writes are the reflector's: `upsertIfChanged` skips a replayed resourceVersion even for an
 *   evicted object; `replace` reports exactly what changed against the records; an old or deleted
 *   object that is out of memory is handed on as a minimal object (name, namespace,
 *   resourceVersion, uid, generation, finalizers).
 * - {@link load} reads an evicted object from the API server, once for concurrent callers, and
 *   keeps it again when it is the version the watch last reported.
 * - No named index (it would miss what is out of memory) and no `batch`.
 *
 * @example
 * ```ts
 * import { BoundedStore } from '@kindex/informer';
 * import type { KubernetesObject } from '@kindex/core';
 * declare const objects: KubernetesObject[];
 *
 * const store = new BoundedStore({ bound: { maxObjects: 2 }, fetch: async () => undefined });
 * store.replace(objects, '10');
 * console.log(store.size, store.knownSize); // at most 2 in memory; every object known
 * ```
 */
export class BoundedStore<R extends KubernetesObject = KubernetesObject> extends IndexedStore<R> {
  /** A record of every object the server has. */
  readonly #records = new CompactRecords();
  readonly #lru: LRUCache<string, true>;
  readonly #fetch: ResourceFetcher<R>;
  readonly #typeMeta: { readonly apiVersion: string; readonly kind: string } | undefined;
  readonly #loading = new Map<string, Promise<R | undefined>>();
  #resourceVersion: string | undefined;
  #stats = { evicted: 0, loads: 0, restored: 0 };
  /** Whether a controller keeps its reconcile stamps in the records now. */
  #stampsClaimed = false;

  constructor(options: BoundedStoreOptions<R>) {
    // The reflector freezes what it writes, and load() freezes what it reads.
    super({ assumeFrozen: true });
    const bound = checkCacheBound('BoundedStore', options.bound);
    this.#fetch = options.fetch;
    this.#typeMeta = options.typeMeta;
    const ttl = bound.expireAfterAccessMs;
    const dispose: LRUCache.Disposer<string, true> = (_value, key, reason) => {
      if (reason !== 'evict' && reason !== 'expire') return;
      super.delete(key);
      this.#stats.evicted++;
    };
    this.#lru =
      ttl === undefined
        ? new LRUCache<string, true>({ max: bound.maxObjects!, dispose })
        : // Autopurge: without it, expired bodies would stay in memory until touched.
          new LRUCache<string, true>({
            ttl,
            updateAgeOnGet: true,
            ttlAutopurge: true,
            dispose,
            ...(bound.maxObjects !== undefined ? { max: bound.maxObjects } : {}),
          });
  }

  /** Counts of evictions and API reads so far. */
  get stats(): BoundedStoreStats {
    return { ...this.#stats };
  }

  /** Objects the server has (in memory or not), as far as the watch has told. */
  get knownSize(): number {
    return this.#records.size;
  }

  /** The resourceVersion of the last list or watch event the store was given. */
  override get resourceVersion(): string | undefined {
    return this.#resourceVersion;
  }

  /**
   * @internal The records' reconcile stamps, for one controller's max-interval sweep (4 bytes a
   * known object), or undefined while another holder has them (until it calls `release()`).
   */
  claimReconcileStamps(): (ReconcileStamps & { release(): void }) | undefined {
    if (this.#stampsClaimed) return undefined;
    this.#stampsClaimed = true;
    return new BoundedReconcileStamps(this.#records, () => (this.#stampsClaimed = false));
  }

  /** Whether the server has the object, as far as the watch has told, in memory or not. */
  knows(idOrKey: ResourceID | string): boolean {
    return this.#records.findKey(idOrKey) >= 0;
  }

  /** Every object the server has: the one in memory, or the minimal object that stands for it. */
  knownObjects(): R[] {
    const out: R[] = [];
    const records = this.#records;
    records.forEach((slot) =>
      out.push(super.get(ResourceID.keyOf(records.nameOf(slot), records.namespaceOf(slot))) ?? this.#minimal(slot)),
    );
    return out;
  }

  /** The object in memory, as a use of it; undefined when it is out of memory or unknown. */
  override get(idOrKey: ResourceID | string): R | undefined {
    const found = super.get(idOrKey);
    if (found === undefined) return undefined;
    // Counts as a use; an expired object not yet purged leaves now.
    return this.#lru.get(typeof idOrKey === 'string' ? idOrKey : idOrKey.key) === undefined ? undefined : found;
  }

  /**
   * The object, from memory or else from the API server (one GET, shared by concurrent callers),
   * kept again when it is the version the watch last reported. A newer version is returned but
   * not kept: its watch event is on its way and must not read as a replay. Undefined when the
   * server has no such object.
   * @throws what the fetcher throws (the caller retries).
   */
  load(idOrKey: ResourceID | string): Promise<R | undefined> {
    const key = typeof idOrKey === 'string' ? idOrKey : idOrKey.key;
    const cached = this.get(key);
    if (cached !== undefined) return Promise.resolve(cached);
    let pending = this.#loading.get(key);
    if (pending === undefined) {
      pending = this.#read(key).finally(() => this.#loading.delete(key));
      this.#loading.set(key, pending);
    }
    return pending;
  }

  override upsert(obj: R): UpsertResult<R> | undefined {
    return this.#write(obj);
  }

  override upsertIfChanged(obj: R): UpsertResult<R> | undefined {
    const meta = obj.metadata;
    const rv = meta?.resourceVersion;
    if (rv !== undefined && rv !== '' && typeof meta?.name === 'string') {
      const slot = this.#records.find(meta.namespace ?? '', meta.name);
      if (slot >= 0 && this.#records.resourceVersionOf(slot) === rv) return undefined;
    }
    return this.#write(obj);
  }

  override delete(idOrKey: ResourceID | string, resourceVersion?: string): R | undefined {
    const full = super.delete(idOrKey, resourceVersion);
    if (resourceVersion !== undefined) this.#resourceVersion = resourceVersion;
    const slot = this.#records.findKey(idOrKey);
    if (slot < 0) return full;
    const old = full ?? this.#minimal(slot);
    this.#records.remove(slot);
    this.#lru.delete(typeof idOrKey === 'string' ? idOrKey : idOrKey.key);
    return old;
  }

  /**
   * As {@link IndexedStore.replace}, diffed against the records: an evicted object whose
   * resourceVersion is unchanged produces nothing; a changed one an update whose old object is
   * minimal; one missing from the list a delete (state unknown) of what the store has of it.
   */
  override replace(objects: Iterable<R>, resourceVersion?: string): StoreDelta<R>[] {
    const incoming = new Map<string, R>();
    for (const obj of objects) {
      const name = obj.metadata?.name;
      // Not a resource: the base store reports it and keeps nothing.
      if (typeof name !== 'string' || name === '') super.upsert(obj);
      else incoming.set(ResourceID.keyOf(name, obj.metadata?.namespace), obj);
    }
    const deltas: StoreDelta<R>[] = [];
    for (const [key, obj] of incoming) {
      const meta = obj.metadata!;
      const slot = this.#records.find(meta.namespace ?? '', meta.name!);
      if (slot >= 0 && this.#unchanged(key, slot, obj)) continue;
      const written = this.#write(obj);
      if (written === undefined) continue;
      const { object, old } = written;
      if (old === undefined) deltas.push({ type: 'create', object });
      else if (isRecreated(old, object)) deltas.push({ type: 'delete', object: old, deleteStateUnknown: true }, { type: 'create', object });
      else deltas.push({ type: 'update', object, oldObject: old });
    }
    const vanished: string[] = [];
    const records = this.#records;
    records.forEach((slot) => {
      const key = ResourceID.keyOf(records.nameOf(slot), records.namespaceOf(slot));
      if (!incoming.has(key)) vanished.push(key);
    });
    for (const key of vanished) {
      const old = this.delete(key);
      if (old !== undefined) deltas.push({ type: 'delete', object: old, deleteStateUnknown: true });
    }
    this.#resourceVersion = resourceVersion ?? this.#resourceVersion;
    return deltas;
  }

  override clear(): void {
    super.clear();
    this.#lru.clear();
    this.#records.clear();
    this.#resourceVersion = undefined;
  }

  /** @throws always: an index would miss the objects out of memory. */
  override addIndexer(indexName: string, indexer?: Indexer<R>): void {
    void indexer;
    throw new TypeError(
      `a bounded cache holds no index (${JSON.stringify(indexName)} would miss the objects out of memory); remove cacheBound from this cache, or find the objects without the index`,
    );
  }

  /** @throws always: the reflector, the only writer, writes one event at a time. */
  override batch<T>(apply: (writer: StoreWriter<R>) => T): T {
    void apply;
    throw new TypeError('BoundedStore.batch is not supported: write with upsert, delete and replace');
  }

  #unchanged(key: string, slot: number, obj: R): boolean {
    const before = this.#records.resourceVersionOf(slot);
    const after = obj.metadata?.resourceVersion;
    if (before !== '' && after !== undefined && after !== '') return before === after;
    const held = super.get(key);
    return held !== undefined && jsonEqual(held, obj);
  }

  /** Writes one object: memory (evicting the least recently used beyond the bound), record, version. */
  #write(obj: R): UpsertResult<R> | undefined {
    const meta = obj.metadata;
    const namespace = meta?.namespace ?? '';
    const slot = typeof meta?.name === 'string' ? this.#records.find(namespace, meta.name) : -1;
    const written = super.upsert(obj);
    if (written === undefined) return undefined; // not a resource: reported by the base store
    const { object } = written;
    // The old object stands for an evicted one: built before the record is overwritten.
    const old = written.old ?? (slot < 0 ? undefined : this.#minimal(slot));
    const objectMeta = object.metadata!;
    // The object's own name string is kept: no key string per known object.
    this.#records.put(objectMeta as typeof objectMeta & { name: string });
    this.#lru.set(ResourceID.keyOf(objectMeta.name!, namespace), true);
    const rv = objectMeta.resourceVersion;
    if (rv !== undefined) this.#resourceVersion = rv;
    return { object, old };
  }

  async #read(key: string): Promise<R | undefined> {
    this.#stats.loads++;
    const read = await this.#fetch(ResourceID.parse(key));
    if (read === undefined) return undefined; // gone: the watch's DELETED event will say so
    const fetched = deepFreeze(read);
    const slot = this.#records.findKey(key);
    const rv = fetched.metadata?.resourceVersion;
    if (slot >= 0 && rv !== undefined && this.#records.resourceVersionOf(slot) === rv && super.get(key) === undefined) {
      super.upsert(fetched);
      this.#lru.set(key, true);
      this.#stats.restored++;
    }
    return fetched;
  }

  /** The object that stands for one out of memory: the fields its record keeps, frozen. */
  #minimal(slot: number): R {
    return deepFreeze({ ...this.#typeMeta, metadata: this.#records.metaOf(slot) } as R);
  }
}

/** The store as a bounded one, or undefined when it keeps every object. */
export function asBounded<R extends KubernetesObject>(store: IndexedStore<R> | undefined): BoundedStore<R> | undefined {
  return store instanceof BoundedStore ? (store as BoundedStore<R>) : undefined;
}
