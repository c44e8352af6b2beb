import { Subject, Subscription, type Observable } from 'rxjs';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  FieldSelector,
  Listeners,
  ResourceID,
  ShardSelector,
  rejectUnknownOptions,
  type Indexer,
  type KubernetesObject,
  type OptionKeysOf,
  type StoreDelta,
  type StoreReader,
  type StoreSnapshot,
} from '@kindex/core';
import type { ReflectorOptions } from '../reflector/reflector.js';
import type { ObjectTransform } from '../reflector/object-transform.js';
import type { ReflectorHealth } from '../reflector/reflector-health.js';
import type { ResourceKind } from '../kind/resource-kind.js';
import type { InformerLease, InformerRegistry } from './informer-registry.js';
import { NotCachedError } from './cache-errors.js';
import { checkFieldSelector, checkLabelSelector, REFLECTOR_TUNING_KEYS } from '../config/option-validation.js';
import { ApiRequestError, isNonTransient } from '../reflector/reflector-error.js';
import { CacheSyncError, StartAbortedError } from '../startup/startup-errors.js';

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

/** The keys of {@link CacheStartOptions}: unknown ones are rejected, not ignored. */
const CACHE_START_OPTION_KEYS = { signal: true, failFast: true } as const satisfies OptionKeysOf<CacheStartOptions>;

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
 * Why a cache delta happened:
 * - `watch`: a watch event reported it;
 * - `list`: a list found it (the first list, or a relist after 410 Gone); a list's deltas arrive
 *   in one synchronous run, so a consumer may gather them and act once per batch;
 * - `attach`: the cache joined a shared informer that already held the object;
 * - `namespace-removed`: the namespace left the cache's set; the object is gone from the cache
 *   but not from the server, so consumers clean up without reconciling anything.
 * - `shard-removed`: the cache's shard selector changed and no longer covers the object (another
 *   replica owns it now); as `namespace-removed`, a cleanup and not a deletion.
 *
 * @example
 * ```ts
 * import type { CacheDeltaOrigin, InformerCache } from '@kindex/informer';
 * declare const configMaps: InformerCache;
 *
 * // Objects leaving because a namespace or a shard was dropped are not real deletes: do not clean up after them.
 * const isRealChange = (origin: CacheDeltaOrigin) => origin !== 'namespace-removed' && origin !== 'shard-removed';
 * configMaps.deltas$.subscribe((d) => isRealChange(d.origin) && console.log(d.delta.type));
 * ```
 */
export type CacheDeltaOrigin = 'watch' | 'list' | 'attach' | 'namespace-removed' | 'shard-removed';

/**
 * Whether a delta only says the object left this cache's scope (namespaces or shards), not the server.
 *
 * @example
 * ```ts
 * import { isScopeRemoval, type InformerCache } from '@kindex/informer';
 * declare const jobs: InformerCache;
 *
 * // Forget what left the cache's scope; clean up only after what the server deleted.
 * jobs.deltas$.subscribe(({ delta, origin }) => {
 *   if (delta.type === 'delete' && !isScopeRemoval(origin)) console.log('deleted', delta.object.metadata?.name);
 * });
 * ```
 */
export function isScopeRemoval(origin: CacheDeltaOrigin): boolean {
  return origin === 'namespace-removed' || origin === 'shard-removed';
}

/**
 * A store change of an {@link InformerCache}, with its origin.
 *
 * @example
 * ```ts
 * import type { CacheDelta, InformerCache } from '@kindex/informer';
 * declare const configMaps: InformerCache;
 *
 * configMaps.deltas$.subscribe(({ delta, origin }: CacheDelta) => {
 *   if (origin === 'watch') console.log(delta.type, delta.object.metadata?.name);
 * });
 * ```
 */
export interface CacheDelta<R extends KubernetesObject = KubernetesObject> {
  readonly delta: StoreDelta<R>;
  readonly origin: CacheDeltaOrigin;
}

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
  /** Connection tuning passed to each reflector (page size, timeouts, backoff). */
  readonly reflector?: Pick<ReflectorOptions<R>, 'pageSize' | 'watchTimeoutSeconds' | 'inactivityTimeoutMs' | 'backoff'>;
}

/** The keys of {@link InformerCacheOptions}, `reflector`'s own included: unknown ones are rejected, not ignored. */
const INFORMER_CACHE_OPTION_KEYS = {
  name: true,
  kubeConfig: true,
  kind: true,
  registry: true,
  namespaces: true,
  labelSelector: true,
  fieldSelector: true,
  shardSelector: true,
  transform: true,
  reflector: REFLECTOR_TUNING_KEYS,
} as const satisfies OptionKeysOf<InformerCacheOptions>;

const ALL = '';

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
export class InformerCache<R extends KubernetesObject = KubernetesObject> {
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
  readonly #deltas = new Listeners<StoreDelta<R>, CacheDeltaOrigin>();
  readonly #errors = new Subject<Error>();
  readonly #health = new Subject<{ readonly namespace: string; readonly health: ReflectorHealth }>();
  readonly #nameSelector: FieldSelector | undefined;
  #namespaces: NamespaceSet;
  #shards: ShardSelector | undefined;
  #running = false;
  // setShardSelector calls run one after the other: each swaps every informer.
  #shardChange: Promise<void> = Promise.resolve();

  constructor(options: InformerCacheOptions<R>) {
    rejectUnknownOptions(
      `InformerCache options${typeof options.name === 'string' ? ` (${options.name})` : ''}`,
      options,
      INFORMER_CACHE_OPTION_KEYS,
    );
    this.#options = options;
    this.name = options.name;
    this.kind = options.kind;
    this.#namespaces = normalize(options.namespaces ?? 'all');
    this.#shards = options.shardSelector;
    this.deltas$ = this.#deltas.observe((delta, origin) => ({ delta, origin }));
    this.errors$ = this.#errors.asObservable();
    this.health$ = this.#health.asObservable();
    // Both selectors are checked here, where they are configured: the server would answer 400.
    if (options.labelSelector) checkLabelSelector(options.name, options.labelSelector);
    this.#nameSelector = options.fieldSelector ? checkFieldSelector(options.name, options.fieldSelector) : undefined;
  }

  /**
   * Calls `listener` with every store change across the namespaces, after the store shows it, as
   * `deltas$` does but as a plain call, with no wrapper object per change: the per-event path of
   * event sources and controllers.
   * @returns the function that removes the listener.
   * @example
   * ```ts
   * import { isScopeRemoval, type InformerCache } from '@kindex/informer';
   * declare const configMaps: InformerCache;
   *
   * const stop = configMaps.onDelta((delta, origin) => {
   *   if (!isScopeRemoval(origin)) console.log(delta.type, delta.object.metadata?.name);
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
    rejectUnknownOptions(`InformerCache ${this.name} start options`, options, CACHE_START_OPTION_KEYS);
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
    if (!(error instanceof ApiRequestError) || !error.nonTransient) return error;
    return CacheSyncError.from(error, {
      controller: undefined,
      eventSource: undefined,
      type: this.kind,
      namespace: namespace === ALL || !this.kind.namespaced ? undefined : namespace,
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
    this.#namespaces = normalize(namespaces);
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
      for (const object of before.list()) {
        if (after.get(ResourceID.keyOfResource(object)) === undefined) {
          this.#deltas.emit({ type: 'delete', object, deleteStateUnknown: true }, 'shard-removed');
        }
      }
      for (const object of after.list()) {
        const previous = before.get(ResourceID.keyOfResource(object));
        if (previous === undefined) this.#deltas.emit({ type: 'create', object }, 'attach');
        else if (previous.metadata?.resourceVersion !== object.metadata?.resourceVersion) {
          this.#deltas.emit({ type: 'update', object, oldObject: previous }, 'attach');
        }
      }
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
    const lease = this.#leases.get(ALL) ?? this.#leases.get(namespaceOfKey(key) ?? ALL);
    return lease?.lease.informer.store.get(key);
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
    if (!this.kind.namespaced || this.#namespaces === 'all') return [ALL];
    return [...this.#namespaces];
  }

  async #attach(ns: string, wait: { signal?: AbortSignal; rejectOn?: (error: Error) => boolean } = {}): Promise<void> {
    if (this.#leases.has(ns)) return;
    const lease = this.#acquire(ns);
    const informer = lease.informer;
    for (const [name, indexer] of this.#indexers) informer.ensureIndexer(name, indexer);
    // Replay what a shared informer already holds, then follow it: both in this same tick, so
    // no change can fall between the two.
    for (const object of informer.store.list()) this.#deltas.emit({ type: 'create', object }, 'attach');
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
    const o = this.#options;
    return o.registry.acquire<R>({
      ...o.reflector,
      kubeConfig: o.kubeConfig,
      type: o.kind,
      ...(ns === ALL ? {} : { namespace: ns }),
      ...(o.labelSelector ? { labelSelector: o.labelSelector } : {}),
      ...(o.fieldSelector ? { fieldSelector: o.fieldSelector } : {}),
      ...(this.#shards !== undefined ? { shardSelector: this.#shards } : {}),
      ...(o.transform !== undefined ? { transform: o.transform } : {}),
    });
  }

  #follow(ns: string, lease: InformerLease<R>): Subscription[] {
    const informer = lease.informer;
    return [
      new Subscription(informer.onDelta((delta, listing) => this.#deltas.emit(delta, listing ? 'list' : 'watch'))),
      informer.errors$.subscribe((e) => this.#errors.next(e)),
      informer.health$.subscribe((health) => this.#health.next({ namespace: ns, health })),
    ];
  }

  async #detach(ns: string, announce: boolean): Promise<void> {
    const entry = this.#leases.get(ns);
    if (entry === undefined) return;
    this.#leases.delete(ns);
    for (const s of entry.subscriptions) s.unsubscribe();
    if (announce) {
      for (const object of entry.lease.informer.store.list()) {
        this.#deltas.emit({ type: 'delete', object, deleteStateUnknown: true }, 'namespace-removed');
      }
    }
    await entry.lease.release();
  }
}

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
  readonly #cache: InformerCache<R>;
  readonly #stores: ReadonlyMap<string, StoreReader<R>>;

  /** @internal */
  constructor(cache: InformerCache<R>, stores: ReadonlyMap<string, StoreReader<R>>) {
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
    if (typeof idOrKey === 'string') return this.#storeFor(namespaceOfKey(idOrKey))?.get(idOrKey);
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
    return this.#stores.get(ALL) ?? (namespace === undefined ? undefined : this.#stores.get(namespace));
  }
}

/** The namespace part of a store key (`namespace/name`), undefined for `name` alone. */
function namespaceOfKey(key: string): string | undefined {
  const slash = key.indexOf('/');
  return slash < 0 ? undefined : key.slice(0, slash);
}

function normalize(ns: NamespaceSet): NamespaceSet {
  if (ns === 'all') return 'all';
  if (!Array.isArray(ns)) throw new TypeError(`namespaces must be 'all' or an array of names, got ${JSON.stringify(ns)}`);
  for (const [i, n] of ns.entries()) {
    if (typeof n !== 'string' || n === '') throw new TypeError(`namespaces[${i}] must be a non-empty string, got ${JSON.stringify(n)}`);
  }
  return Object.freeze([...new Set<string>(ns)].sort());
}
