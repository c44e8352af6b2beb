import { BehaviorSubject, Subject, Subscription, type Observable } from 'rxjs';
import type {
  EventSourceHealth,
  EventSourcePendingSync,
  EventSourceProblem,
  EventSourceStatistics,
  Indexer,
  KubernetesObject,
  ResourceID,
  ShardSelector,
  StoreDelta,
  Trigger,
  TriggerSink,
} from '@kindex/core';
import type { CacheDeltaOrigin } from '../cache/cache-delta.js';
import type { CacheDeltaSink } from '../cache/cache-delta-sink.js';
import type { InformerCache } from '../cache/informer-cache.js';
import type { CacheStartOptions, NamespaceSet } from '../cache/informer-cache-options.js';
import type { ResourceKind } from '../kind/resource-kind.js';
import type { ReflectorHealth } from '../reflector/reflector-health.js';
import { CacheSyncError } from '../startup/startup-errors.js';
import type { KubeEventSource } from './kube-event-source.js';
import { ResourceTriggers } from './resource-triggers.js';
import { remoteCacheSyncCluster } from './remote-cluster.js';

/**
 * What every informer-backed event source shares (JOSDK's ManagedInformerEventSource): the
 * {@link InformerCache} it owns and is the {@link CacheDeltaSink} of, the trigger end
 * (`ResourceTriggers`) it hands triggers to the event processor through, health and
 * problems, start and stop around the cache, scope changes, sync and figures, and reads of the
 * cache. A subclass holds only what differs: what one cache delta does
 * ({@link ManagedInformerEventSource.onCacheDelta}), and the hooks it overrides.
 *
 * Per watch event: the cache calls `onCacheDelta` directly; the subclass maps the delta to
 * primaries and filters it, and calls `this.triggers.resource(...)`, which calls the connected
 * event processor's `accept` directly. `InformerEventSource` (secondaries: mappers, reverse index)
 * and the controller's `ControllerEventSource` (its primaries: tombstones, read-after-write) are
 * the two subclasses.
 *
 * Health: `starting` until the first start resolves, `healthy` once synced, `unhealthy` with
 * the explained error while a namespace's informer fails and is not watching (overridable, see
 * {@link ManagedInformerEventSource.onNamespaceHealth}), `stopped` after stop.
 *
 * @example
 * ```ts
 * import { ManagedInformerEventSource, type KubeEventSource } from '@kindex/informer';
 * declare const sources: readonly KubeEventSource[];
 *
 * // Every informer-backed source, the controller's own included, reads its cache the same way.
 * for (const source of sources) {
 *   if (source instanceof ManagedInformerEventSource) console.log(source.name, source.cache.size, source.hasSynced());
 * }
 * ```
 * @see `InformerEventSource`, the source of secondaries, and the controller's `ControllerEventSource`.
 */
export abstract class ManagedInformerEventSource<R extends KubernetesObject, P extends KubernetesObject>
  implements KubeEventSource<R, P>, CacheDeltaSink<R>
{
  readonly name: string;
  readonly resourceType: ResourceKind<R>;
  /** The informer cache (read it directly to bypass the reverse index). */
  readonly cache: InformerCache<R>;
  /** The primaries to reconcile; derived from the {@link onTrigger} listeners, free while nobody subscribes. */
  readonly triggers$: Observable<Trigger>;
  readonly health$: Observable<EventSourceHealth>;
  /** Problems met and moved past: throwing mappers and filters, bad objects, failed requests. */
  readonly problems$: Observable<EventSourceProblem>;
  abstract readonly namespaceSelector: string | undefined;
  abstract readonly inheritsNamespaces: boolean;
  abstract readonly inheritsShardSelector: boolean;
  /**
   * @internal Where the subclass's deltas become triggers, handed to the connected event
   * processor (kindex's two subclasses use it; it is not an extension point).
   */
  protected readonly triggers: ResourceTriggers;
  protected readonly health: BehaviorSubject<EventSourceHealth>;
  /** One reporter for the per-event path's user code (mappers, filters, handlers): no closure per event. */
  protected readonly reportError = (error: unknown): void => this.#problems.next({ source: this.name, error });
  readonly #problems = new Subject<EventSourceProblem>();
  /** The cluster a remote source watches, named in its errors; undefined for the operator's own. */
  readonly #cluster: string | undefined;
  #subscriptions: Subscription[] = [];

  /**
   * @param cluster the name of the cluster the cache watches when it is not the operator's own:
   *   errors and the source's name in startup errors carry it.
   */
  protected constructor(name: string, cache: InformerCache<R>, cluster?: string) {
    this.name = name;
    this.cache = cache;
    this.resourceType = cache.kind;
    this.#cluster = cluster;
    this.triggers = new ResourceTriggers(name);
    this.health = new BehaviorSubject<EventSourceHealth>({ source: name, status: 'starting' });
    this.triggers$ = this.triggers.triggers$;
    this.health$ = this.health.asObservable();
    this.problems$ = this.#problems.asObservable();
  }

  /**
   * One change of the cache ({@link CacheDeltaSink}): what the subclass triggers for it. Called by
   * the cache only, directly, after its store shows the change; must not throw.
   */
  abstract onCacheDelta(delta: StoreDelta<R>, origin: CacheDeltaOrigin): void;

  /** The reverse primary-to-secondary index's size, when the source keeps one. */
  abstract reverseIndexSize(): { readonly primaries: number; readonly secondaries: number } | undefined;

  /**
   * Makes `sink` (the event processor) the consumer of every trigger, called directly: how the
   * processor connects, so a watch event reaches its queue by direct calls from the socket on.
   * @returns the function that disconnects it.
   */
  connect(sink: TriggerSink): () => void {
    return this.triggers.connect(sink);
  }

  /**
   * Calls `listener` with every trigger (after the connected sink), as `triggers$` does but as a
   * plain call.
   * @returns the function that removes the listener.
   * @example
   * ```ts
   * import type { InformerEventSource } from '@kindex/informer';
   * declare const configMaps: InformerEventSource;
   *
   * const stop = configMaps.onTrigger((trigger) => console.log(trigger.cause.type, trigger.primaryIds.map(String)));
   * stop();
   * ```
   */
  onTrigger(listener: (trigger: Trigger) => void): () => void {
    return this.triggers.onTrigger(listener);
  }

  /** The namespaces its cache watches now. */
  get namespaces(): NamespaceSet {
    return this.cache.namespaces;
  }

  /** True once every watched namespace has listed. */
  hasSynced(): boolean {
    return this.cache.hasSynced();
  }

  /** Its kind (as `plural.group/version`), the namespaces not synced yet (`''`: all namespaces) and the last error met. */
  pendingSync(): EventSourcePendingSync {
    const k = this.cache.kind;
    return { kind: `${k.plural}${k.group ? `.${k.group}` : ''}/${k.version}`, ...this.cache.pendingSync() };
  }

  /** Objects cached, synced, distinct values per index and the reverse index's size, for debug views. */
  statistics(): EventSourceStatistics {
    const cache = this.cache;
    return { objects: cache.size, synced: cache.hasSynced(), indexes: cache.indexSizes(), reverseIndex: this.reverseIndexSize() };
  }

  /**
   * Connects to the cache (its deltas, as its sink; its errors; its per-namespace health), then
   * starts it and resolves once it has synced.
   * @throws {CacheSyncError} when the server refuses the list for good (400/401/403/404): the
   *   message names this source, the kind, the namespace and the fix. The cache is stopped.
   * @throws {StartAbortedError} when `signal` aborts first (the cache is stopped).
   */
  async start(options: CacheStartOptions = {}): Promise<void> {
    if (this.#subscriptions.length === 0) {
      this.#subscriptions = [
        new Subscription(this.cache.connect(this)),
        this.cache.errors$.subscribe((error) => this.reportError(this.#named(error))),
        this.cache.health$.subscribe(({ namespace, health }) => this.onNamespaceHealth(namespace, health)),
        ...this.extraSubscriptions(),
      ];
    }
    try {
      await this.startCache(options);
    } catch (error) {
      const explained =
        error instanceof CacheSyncError
          ? error.withContext({ eventSource: this.#label(), cluster: remoteCacheSyncCluster(this.#cluster) })
          : error;
      await this.stopCache();
      if (this.health.value.status !== 'stopped') this.health.next({ source: this.name, status: 'unhealthy', error: explained });
      throw explained;
    }
    this.health.next({ source: this.name, status: 'healthy' });
  }

  /** Stops the cache (releasing shared informers) and disconnects from it; health becomes `stopped`. */
  async stop(): Promise<void> {
    await this.stopCache();
    for (const s of this.#subscriptions) s.unsubscribe();
    this.#subscriptions = [];
    this.cleared();
    this.health.next({ source: this.name, status: 'stopped' });
  }

  /**
   * Changes the watched namespaces at run time: new ones start and sync before this resolves;
   * removed ones stop and their objects leave the cache (and any index) without reconciling.
   */
  changeNamespaces(namespaces: NamespaceSet): Promise<void> {
    return this.cache.setNamespaces(namespaces);
  }

  /**
   * Changes the cached shard ranges at run time: the new ranges sync before this resolves; objects
   * outside them leave the cache (and any index) without reconciling.
   */
  changeShardSelector(selector: ShardSelector | undefined): Promise<void> {
    return this.cache.setShardSelector(selector);
  }

  /**
   * A cached object; undefined when absent.
   * @throws {NotCachedError} when this source's namespaces or field selector exclude it.
   */
  get(id: ResourceID | string): R | undefined {
    return this.cache.get(id);
  }

  /** The cached objects, optionally of one namespace and passing `predicate`; reads the cache, never the API server. */
  list(namespace?: string, predicate?: (obj: R) => boolean): R[] {
    return this.cache.list(namespace, predicate);
  }

  /** The cached objects whose indexer `indexName` yields `value`; cheaper than `list` with a filter for repeated lookups. */
  byIndex(indexName: string, value: string): R[] {
    return this.cache.byIndex(indexName, value);
  }

  /** Adds a named index to this source's cache. */
  addIndexer(name: string, indexer: Indexer<R>): void {
    this.cache.addIndexer(name, indexer);
  }

  /** Starts the cache and waits for its sync (a source with a namespace selection lists the namespaces first). */
  protected startCache(options: CacheStartOptions): Promise<void> {
    return this.cache.start(options);
  }

  /** Stops the cache (and whatever {@link startCache} started besides). */
  protected stopCache(): Promise<void> {
    return this.cache.stop();
  }

  /** Further subscriptions `start` makes and `stop` ends (problems of a reverse index, of a namespace selection). */
  protected extraSubscriptions(): Subscription[] {
    return [];
  }

  /** Forgets what the source derived from the cache, once stopped (a reverse index). */
  protected cleared(): void {}

  /**
   * Follows one namespace's informer health once started: unhealthy, with the explained error,
   * while it has an error and is not watching; healthy again once it watches.
   */
  protected onNamespaceHealth(namespace: string, health: ReflectorHealth): void {
    const status = health.lastError && !health.watching ? 'unhealthy' : 'healthy';
    const current = this.health.value.status;
    if (current === 'starting' || current === 'stopped' || current === status) return;
    const error = status === 'unhealthy' ? this.explain(namespace, health.lastError!.error, 'running') : undefined;
    this.health.next({ source: this.name, status, ...(error !== undefined ? { error } : {}) });
  }

  /** An informer's failure as this source reports it: a {@link CacheSyncError} naming the source and the fix, when it has one. */
  protected explain(namespace: string, error: Error, phase: 'startup' | 'running'): Error {
    const explained = this.cache.explain(namespace, error, phase);
    return explained instanceof CacheSyncError
      ? explained.withContext({ eventSource: this.#label(), cluster: remoteCacheSyncCluster(this.#cluster) })
      : this.#named(explained);
  }

  /** A remote source's errors name its cluster (in health, problems and the log lines made of them). */
  #named(error: Error): Error {
    const cluster = this.#cluster;
    return cluster === undefined ? error : new Error(`cluster ${cluster}: ${error.message}`, { cause: error });
  }

  /** The source as a startup error names it: a remote source with its cluster. */
  #label(): string {
    return this.#cluster === undefined ? this.name : `${this.name} on cluster ${this.#cluster}`;
  }
}
