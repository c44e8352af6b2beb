/**
 * The multi-namespace cache: one {@link InformerCache} reads the shared informers of a set of
 * namespaces (or the one of all) as one cache, follows namespace and shard changes at run time,
 * and passes their store changes on, with where each came from ({@link CacheDeltaOrigin}): it is
 * each informer's {@link SharedInformerSink}, and calls its own {@link CacheDeltaSink} (the event
 * source that owns it) directly, then its `onDelta` listeners; `deltas$` is derived from them.
 *
 * @module
 */
import { Subject, Subscription, type Observable } from 'rxjs';
import {
  ResourceID,
  ShardSelector,
  type IndexedStore,
  type Indexer,
  type KubernetesObject,
  type ReconcileStamps,
  type StoreDelta,
  type StoreReader,
  type StoreSnapshot,
} from '@kindex/core';
import { FieldSelector, Listeners } from '@kindex/core/internal';
import type { ReflectorHealth } from '../reflector/reflector-health.js';
import type { ResourceKind } from '../kind/resource-kind.js';
import type { InformerLease } from './informer-registry.js';
import { checkFieldSelector, checkLabelSelector } from '../config/option-validation.js';
import { ALL_NAMESPACES, CacheSnapshot } from './cache-snapshot.js';
import type { CacheDelta, CacheDeltaOrigin } from './cache-delta.js';
import type { CacheDeltaSink } from './cache-delta-sink.js';
import { shardSwapDeltas } from './shard-swap-deltas.js';
import type { SharedInformerSink } from './shared-informer-sink.js';
import {
  CACHE_START_OPTIONS,
  INFORMER_CACHE_OPTIONS,
  informerSpecOf,
  normalizeNamespaces,
  type CacheStartOptions,
  type InformerCacheOptions,
  type NamespaceSet,
} from './informer-cache-options.js';

import { KubeApiError, isNonTransient } from '../client/kube-api-error.js';
import { asBounded } from './bounded/bounded-store.js';
import { CacheReconcileStamps } from './bounded/cache-reconcile-stamps.js';
import { boundedShardsError, checkCacheBound, type CacheBound } from './bounded/cache-bound.js';

import { CacheSyncError, StartAbortedError } from '../startup/startup-errors.js';

/**
 * The objects of one kind across a set of namespaces: one shared informer per namespace (or one
 * for all), read as one cache.
 *
 * Reads (`get`, `list`, `byIndex`) never touch the network. `snapshot()` freezes all namespaces
 * at once in O(namespaces). Changing the namespace set starts and syncs the new informers and
 * releases the removed ones, reporting their objects as `namespace-removed` deltas.
 *
 * @example
 * ```ts
 * import { InformerCache, InformerRegistry, Kinds } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * // ConfigMaps of two namespaces, on informers shared with anyone else who asks the same registry.
 * const configMaps = new InformerCache({ name: 'configmaps', kubeConfig, kind: Kinds.ConfigMap, registry: new InformerRegistry(), namespaces: ['shop', 'blog'] });
 * await configMaps.start();
 * const inShop = configMaps.list('shop');
 * await configMaps.stop();
 * ```
 */
export class InformerCache<R extends KubernetesObject = KubernetesObject> implements SharedInformerSink<R> {
  readonly name: string;
  readonly kind: ResourceKind<R>;
  /** Every store change across the namespaces, after the store shows it. Hot, synchronous. */
  readonly deltas$: Observable<CacheDelta<R>>;
  /** Problems of the informers behind this cache. */
  readonly errors$: Observable<Error>;
  /** Health of each informer, tagged with its namespace (`''` for all). */
  readonly health$: Observable<{ readonly namespace: string; readonly health: ReflectorHealth }>;

  readonly #options: InformerCacheOptions<R>;
  readonly #leases = new Map<string, { lease: InformerLease<R>; subscriptions: Subscription[] }>();
  readonly #indexers = new Map<string, Indexer<R>>();
  /** The one consumer called directly (the owning event source), if connected. */
  #sink: CacheDeltaSink<R> | undefined;
  readonly #deltas = new Listeners<StoreDelta<R>, CacheDeltaOrigin>();
  readonly #errors = new Subject<Error>();
  readonly #health = new Subject<{ readonly namespace: string; readonly health: ReflectorHealth }>();
  readonly #nameSelector: FieldSelector | undefined;
  readonly #bound: CacheBound | undefined;
  #namespaces: NamespaceSet;
  #shards: ShardSelector | undefined;
  #running = false;
  // setShardSelector calls run one after the other: each swaps every informer.
  #shardChange: Promise<void> = Promise.resolve();

  constructor(options: InformerCacheOptions<R>) {
    INFORMER_CACHE_OPTIONS.check(options, `InformerCache options${typeof options.name === 'string' ? ` (${options.name})` : ''}`);
    this.#options = options;
    this.name = options.name;
    this.kind = options.kind;
    this.#namespaces = normalizeNamespaces(options.namespaces ?? 'all');
    this.#shards = options.shardSelector;
    this.deltas$ = this.#deltas.observe((delta, origin) => ({ delta, origin }));
    this.errors$ = this.#errors.asObservable();
    this.health$ = this.#health.asObservable();
    // Both selectors are checked here, where they are configured: the server would answer 400.
    if (options.labelSelector) checkLabelSelector(options.name, options.labelSelector);
    this.#nameSelector = options.fieldSelector ? checkFieldSelector(options.name, options.fieldSelector) : undefined;
    this.#bound = options.bound === undefined ? undefined : checkCacheBound(options.name, options.bound);
    if (this.#bound !== undefined && this.#shards !== undefined) throw boundedShardsError(options.name);
  }

  /** Whether this cache keeps only some objects in memory (its `bound` option). */
  get bounded(): boolean {
    return this.#bound !== undefined;
  }

  /** Whether the server has the object as far as the watch has told, in memory or not (unbounded: whether it is cached). */
  knows(key: string): boolean {
    const store = this.#storeOf(key);
    return asBounded(store)?.knows(key) ?? store?.get(key) !== undefined;
  }

  /**
   * The object under a key: from memory, or, for a bounded cache, from the API server when it
   * left memory (one GET, kept again; see {@link BoundedStore.load}). Undefined when neither
   * has it.
   */
  load(key: string): Promise<R | undefined> {
    const store = this.#storeOf(key);
    return asBounded(store)?.load(key) ?? Promise.resolve(store?.get(key));
  }

  /** Makes `sink` (the owning event source) the consumer of every change, replacing any other; returns the function that disconnects it. */
  connect(sink: CacheDeltaSink<R>): () => void {
    this.#sink = sink;
    return () => {
      if (this.#sink === sink) this.#sink = undefined;
    };
  }

  /** @internal One change of a shared informer's store ({@link SharedInformerSink}), handed on with its origin; for the informers only. */
  onInformerDelta(delta: StoreDelta<R>, listing: boolean): void {
    const origin: CacheDeltaOrigin = listing ? 'list' : 'watch';
    // #deliver's lines, inline: one frame less on every watch event.
    if (this.#sink !== undefined) this.#sink.onCacheDelta(delta, origin);
    if (this.#deltas.listening) this.#deltas.emit(delta, origin);
  }

  /**
   * Calls `listener` with every store change across the namespaces, after the store shows it and
   * after the sink, as `deltas$` does but as a plain call, with no wrapper object per change.
   * @returns the function that removes the listener.
   * @example
   * ```ts
   * import { type InformerCache } from '@kindex/informer';
   * declare const configMaps: InformerCache;
   *
   * const stop = configMaps.onDelta((delta, origin) => {
   *   // 'namespace-removed' and 'shard-removed' say the object left this cache's scope, not the server.
   *   if (origin !== 'namespace-removed' && origin !== 'shard-removed') console.log(delta.type, delta.object.metadata?.name);
   * });
   * stop();
   * ```
   */
  onDelta(listener: (delta: StoreDelta<R>, origin: CacheDeltaOrigin) => void): () => void {
    return this.#deltas.add(listener);
  }

  /** The namespaces held now. */
  get namespaces(): NamespaceSet {
    return this.#namespaces;
  }

  /**
   * Starts (or joins) the informers and resolves when all have synced.
   * @throws {CacheSyncError} when the server refuses a list for good (400/401/403/404) and
   *   `failFast` is on; the cache is stopped again.
   * @throws {StartAbortedError} when `signal` aborts or the cache is stopped first.
   */
  async start(options: CacheStartOptions = {}): Promise<void> {
    CACHE_START_OPTIONS.check(options, `InformerCache ${this.name} start options`);
    this.#running = true;
    // One controller for every pending wait, so the first failure ends the others' waits too.
    const waits = new AbortController();
    const signal = options.signal === undefined ? waits.signal : AbortSignal.any([waits.signal, options.signal]);
    const rejectOn = options.failFast === false ? undefined : isNonTransient;
    try {
      await Promise.all(this.#wanted().map((ns) => this.#attach(ns, { signal, ...(rejectOn ? { rejectOn } : {}) })));
    } catch (error) {
      waits.abort();
      await this.stop();
      throw error;
    } finally {
      waits.abort();
    }
  }

  /**
   * What has not synced yet: the namespaces (`''` for all) and the last error seen, for a cache
   * sync timeout's message.
   */
  pendingSync(): { readonly namespaces: readonly string[]; readonly lastError: string | undefined } {
    const namespaces: string[] = [];
    let lastError: { message: string; at: number } | undefined;
    for (const [ns, { lease }] of this.#leases) {
      const health = lease.informer.reflector.health;
      if (health.synced) continue;
      namespaces.push(ns);
      if (health.lastError !== undefined && (lastError === undefined || health.lastError.at > lastError.at)) lastError = health.lastError;
    }
    return { namespaces, lastError: lastError?.message };
  }

  /**
   * The error to show for an informer's failure: a {@link CacheSyncError} with the fix for a
   * 400/401/403/404, the error itself otherwise.
   */
  explain(namespace: string, error: Error, phase: 'startup' | 'running'): Error {
    if (!(error instanceof KubeApiError) || !error.nonTransient) return error;
    return CacheSyncError.from(error, {
      controller: undefined,
      eventSource: undefined,
      type: this.kind,
      namespace: namespace === ALL_NAMESPACES || !this.kind.namespaced ? undefined : namespace,
      labelSelector: this.#options.labelSelector || undefined,
      fieldSelector: this.#options.fieldSelector || undefined,
      phase,
    });
  }

  /** Releases every informer; the cache reads empty afterwards. */
  async stop(): Promise<void> {
    this.#running = false;
    const all = [...this.#leases.keys()];
    await Promise.all(all.map((ns) => this.#detach(ns, false)));
  }

  /**
   * Changes the namespaces held. New ones start and sync before this resolves; removed ones stop,
   * and their objects leave the cache as `namespace-removed` deltas.
   */
  async setNamespaces(namespaces: NamespaceSet): Promise<void> {
    this.#namespaces = normalizeNamespaces(namespaces);
    if (!this.#running) return;
    const wanted = new Set(this.#wanted());
    const removed = [...this.#leases.keys()].filter((ns) => !wanted.has(ns));
    const added = [...wanted].filter((ns) => !this.#leases.has(ns));
    await Promise.all(removed.map((ns) => this.#detach(ns, true)));
    await Promise.all(added.map((ns) => this.#attach(ns)));
  }

  /** The shard selector applied now, if any. */
  get shardSelector(): ShardSelector | undefined {
    return this.#shards;
  }

  /**
   * Changes the shard ranges held. New informers for the new selector start and sync first, then
   * take over in one step: objects only the old ranges had leave as `shard-removed` deltas, those
   * only the new ranges have arrive as `attach` creates, and objects in both stay without an event.
   * So reads never see a gap. Resolves once the new informers serve the cache.
   */
  setShardSelector(selector: ShardSelector | undefined): Promise<void> {
    if (this.#bound !== undefined && selector !== undefined) return Promise.reject(boundedShardsError(this.name));
    const run = this.#shardChange.then(() => this.#swapShards(selector));
    this.#shardChange = run.catch(() => undefined);
    return run;
  }

  async #swapShards(selector: ShardSelector | undefined): Promise<void> {
    const same = selector === undefined ? this.#shards === undefined : this.#shards !== undefined && selector.equals(this.#shards);
    this.#shards = selector;
    if (same || !this.#running) return;
    const fresh = new Map<string, InformerLease<R>>();
    try {
      for (const ns of this.#leases.keys()) {
        const lease = this.#acquire(ns);
        fresh.set(ns, lease);
        for (const [name, indexer] of this.#indexers) lease.informer.ensureIndexer(name, indexer);
        await lease.informer.start();
      }
      await Promise.all([...fresh.values()].map((l) => l.informer.waitForSync()));
    } catch (error) {
      await Promise.all([...fresh.values()].map((l) => l.release()));
      throw error;
    }
    // From here to the end, synchronous: no delta of either informer can fall between the diff
    // and the new subscriptions.
    const released: InformerLease<R>[] = [];
    for (const [ns, lease] of fresh) {
      const old = this.#leases.get(ns);
      if (old === undefined || !this.#running) {
        released.push(lease);
        continue;
      }
      for (const s of old.subscriptions) s.unsubscribe();
      const before = old.lease.informer.store;
      const after = lease.informer.store;
      for (const [delta, origin] of shardSwapDeltas(before, after)) this.#deliver(delta, origin);
      this.#leases.set(ns, { lease, subscriptions: this.#follow(ns, lease) });
      released.push(old.lease);
    }
    await Promise.all(released.map((l) => l.release()));
  }

  /** Whether every informer has synced. */
  hasSynced(): boolean {
    return this.#running && [...this.#leases.values()].every((l) => l.lease.informer.hasSynced());
  }

  /**
   * Adds a named index to every namespace's store, now and for namespaces added later.
   * Usable before and after start (existing objects are indexed at once).
   */
  addIndexer(name: string, indexer: Indexer<R>): void {
    for (const { lease } of this.#leases.values()) lease.informer.ensureIndexer(name, indexer);
    this.#indexers.set(name, indexer);
  }

  /**
   * The cached object with this ID, or undefined when the cache could hold it but does not.
   * @throws {NotCachedError} when the cache cannot hold it: its namespace is not watched, or the
   *   field selector excludes its name or namespace.
   */
  get(id: ResourceID | string): R | undefined {
    return this.#live().get(id);
  }

  /**
   * The cached object under a key (`namespace/name` or `name`), or undefined: the lookup path of
   * `getSecondaryResources`, live and allocation-free (no snapshot, no ID parsing, never throws).
   */
  peekKey(key: string): R | undefined {
    return this.#storeOf(key)?.get(key);
  }

  /** @internal The max-interval sweep's reconcile stamps, in a bounded cache's records (4 bytes a primary); undefined when unbounded. */
  reconcileStamps(): (ReconcileStamps & { release(): void }) | undefined {
    const stores = (): IndexedStore<R>[] => [...this.#leases.values()].map(({ lease }) => lease.informer.store);
    return this.#bound === undefined ? undefined : new CacheReconcileStamps(stores, (key) => this.#storeOf(key));
  }

  #storeOf(key: string): IndexedStore<R> | undefined {
    const lease = this.#leases.get(ALL_NAMESPACES) ?? this.#leases.get(ResourceID.namespaceOfKey(key) ?? ALL_NAMESPACES);
    return lease?.lease.informer.store;
  }

  /** Objects of one namespace, or of all held namespaces, optionally filtered. */
  list(namespace?: string, predicate?: (obj: R) => boolean): R[] {
    return this.#live().list(namespace, predicate);
  }

  /** Objects an index holds under a value, across namespaces. */
  byIndex(indexName: string, value: string): R[] {
    return this.#live().byIndex(indexName, value);
  }

  /** Keys of the objects an index holds under a value, across namespaces. */
  indexKeys(indexName: string, value: string): ReadonlySet<string> {
    return this.#live().indexKeys(indexName, value);
  }

  /** Number of cached objects. */
  get size(): number {
    let n = 0;
    for (const { lease } of this.#leases.values()) n += lease.informer.store.size;
    return n;
  }

  /**
   * Snapshots of this cache's stores taken and not yet released, summed over the namespaces:
   * each makes writes keep old versions, so it should fall back to 0 between reconciles.
   */
  get openSnapshots(): number {
    let n = 0;
    for (const { lease } of this.#leases.values()) n += lease.informer.store.openSnapshots;
    return n;
  }

  /**
   * Distinct values of each named index, summed over the namespaces. O(values): for
   * diagnostics, not for hot paths.
   */
  indexSizes(): Record<string, number> {
    const sizes: Record<string, number> = {};
    for (const name of this.#indexers.keys()) {
      let n = 0;
      for (const { lease } of this.#leases.values()) n += lease.informer.store.indexValues(name).length;
      sizes[name] = n;
    }
    return sizes;
  }

  /**
   * The live stores as one reader: for the cache's own one-call reads, which cannot see a change
   * halfway (JavaScript runs them to completion), so they need no snapshot.
   */
  #live(): CacheSnapshot<R> {
    const stores = new Map<string, StoreReader<R>>();
    for (const [ns, { lease }] of this.#leases) stores.set(ns, lease.informer.store);
    return new CacheSnapshot(this, stores);
  }

  /** All namespaces frozen now, as one reader. O(namespaces). */
  snapshot(): CacheSnapshot<R> {
    const stores = new Map<string, StoreSnapshot<R>>();
    for (const [ns, { lease }] of this.#leases) stores.set(ns, lease.informer.store.snapshot());
    return new CacheSnapshot(this, stores);
  }

  /** @internal Explains why `id` cannot be cached, or undefined when it can. */
  exclusionOf(id: ResourceID): string | undefined {
    if (this.kind.namespaced && this.#namespaces !== 'all' && id.namespace !== undefined && !this.#namespaces.includes(id.namespace)) {
      return `namespace ${id.namespace} is not watched (watched: ${this.#namespaces.join(', ') || 'none'})`;
    }
    const shards = this.#shards;
    if (
      shards !== undefined &&
      shards.field === 'object.metadata.namespace' &&
      !shards.matches({ metadata: { namespace: id.namespace ?? '' } })
    ) {
      return `its namespace is in another shard (this cache holds ${shards.toString()})`;
    }
    if (this.#nameSelector !== undefined) {
      const fields: Record<string, string | undefined> = { 'metadata.name': id.name, 'metadata.namespace': id.namespace ?? '' };
      const relevant = this.#nameSelector.requirements.every((r) => r.field in fields);
      if (relevant && !this.#nameSelector.matches((f) => fields[f])) {
        return `the field selector ${JSON.stringify(this.#options.fieldSelector)} excludes it`;
      }
    }
    return undefined;
  }

  /** @internal Describes the selectors, for "not found" explanations. */
  describeSelectors(): string | undefined {
    const parts: string[] = [];
    if (this.#options.labelSelector) parts.push(`label selector ${JSON.stringify(this.#options.labelSelector)}`);
    if (this.#options.fieldSelector) parts.push(`field selector ${JSON.stringify(this.#options.fieldSelector)}`);
    if (this.#shards !== undefined) parts.push(`shard selector ${JSON.stringify(this.#shards.toString())}`);
    return parts.length ? parts.join(' and ') : undefined;
  }

  #wanted(): string[] {
    if (!this.kind.namespaced || this.#namespaces === 'all') return [ALL_NAMESPACES];
    return [...this.#namespaces];
  }

  async #attach(ns: string, wait: { signal?: AbortSignal; rejectOn?: (error: Error) => boolean } = {}): Promise<void> {
    if (this.#leases.has(ns)) return;
    const lease = this.#acquire(ns);
    const informer = lease.informer;
    for (const [name, indexer] of this.#indexers) informer.ensureIndexer(name, indexer);
    // Replay what a shared informer already holds (a bounded one: what it knows, minimal or not),
    // then follow it: both in this same tick, so no change can fall between the two.
    for (const object of asBounded(informer.store)?.knownObjects() ?? informer.store.list())
      this.#deliver({ type: 'create', object }, 'attach');
    this.#leases.set(ns, { lease, subscriptions: this.#follow(ns, lease) });
    await informer.start();
    let synced: boolean;
    try {
      synced = await informer.waitForSync(wait);
    } catch (error) {
      throw this.explain(ns, error as Error, 'startup');
    }
    // Unsynced without an error: aborted, or stopped under us (the informer completed its health).
    if (!synced && wait.signal !== undefined) throw new StartAbortedError(`cache of ${this.name}`, 'aborted');
  }

  #acquire(ns: string): InformerLease<R> {
    return this.#options.registry.acquire<R>(informerSpecOf(this.#options, ns, this.#shards, this.#bound));
  }

  #follow(ns: string, lease: InformerLease<R>): Subscription[] {
    const informer = lease.informer;
    return [
      new Subscription(informer.connect(this)),
      informer.errors$.subscribe((e) => this.#errors.next(e)),
      informer.health$.subscribe((health) => this.#health.next({ namespace: ns, health })),
    ];
  }

  /** A change the cache reports itself (attach, scope removal): to the sink, then to the listeners. */
  #deliver(delta: StoreDelta<R>, origin: CacheDeltaOrigin): void {
    if (this.#sink !== undefined) this.#sink.onCacheDelta(delta, origin);
    if (this.#deltas.listening) this.#deltas.emit(delta, origin);
  }

  async #detach(ns: string, announce: boolean): Promise<void> {
    const entry = this.#leases.get(ns);
    if (entry === undefined) return;
    this.#leases.delete(ns);
    for (const s of entry.subscriptions) s.unsubscribe();
    // A bounded store: every object it knows leaves, minimal or not.
    const leaving = announce ? (asBounded(entry.lease.informer.store)?.knownObjects() ?? entry.lease.informer.store.list()) : [];
    for (const object of leaving) this.#deliver({ type: 'delete', object, deleteStateUnknown: true }, 'namespace-removed');
    await entry.lease.release();
  }
}
