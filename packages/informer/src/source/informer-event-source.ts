/**
 * The event source of Kubernetes secondary resources (JOSDK's InformerEventSource): an informer
 * cache of one kind, a secondary-to-primary mapper, the reverse primary-to-secondary index, and
 * event filters, emitting the primaries to reconcile.
 *
 * Per event, in order: the shared store applies it; the reverse index records the mapper's
 * result (`P_new`) and returns the primaries the secondary left (`P_old`); the filter decides;
 * `P_new ∪ P_old` is handed on as one trigger, by a direct call to the `onTrigger` listeners (the
 * event processor); `triggers$` is derived from them. So a reference that moves reconciles both
 * primaries, and `getSecondaryResources(primary)` is an index read (the index holds each
 * secondary's cached version): O(its secondaries). Around the class: its configuration types, the
 * builder's steps (`InformerEventSourceConfigurer`), the snapshot reader and `primariesOf` have
 * files of their own; the trigger end (`ResourceTriggers`) is shared with the controller's primary
 * source, so primary and secondary events become triggers by the same code.
 *
 * @module
 */
import { BehaviorSubject, Subject, Subscription, type Observable } from 'rxjs';
import type { KubeEventSource } from './kube-event-source.js';
import {
  and,
  eventSourceHandle,
  mapEvent,
  MultipleSecondaryResourcesError,
  PrimaryToSecondaryIndex,
  ResourceID,
  type EventSourceContext,
  type EventSourceHandle,
  type EventSourceHealth,
  type EventSourcePendingSync,
  type EventSourceProblem,
  type EventSourceStatistics,
  type Indexer,
  type KubernetesObject,
  type Predicate,
  type SecondaryResourceReader,
  type Trigger,
  type StoreDelta,
  type ShardSelector,
} from '@kindex/core';
import { InformerCache } from '../cache/informer-cache.js';
import type { CacheDeltaOrigin } from '../cache/cache-delta.js';
import { type CacheStartOptions, type NamespaceSet } from '../cache/informer-cache-options.js';
import { InformerRegistry } from '../cache/informer-registry.js';
import { CacheSyncError } from '../startup/startup-errors.js';
import type { ResourceKind } from '../kind/resource-kind.js';
import { KubeClient } from '../client/kube-client.js';
import { NamespaceSelection } from '../namespace-selector/namespace-selection.js';
import { unchangedPriority } from './unchanged-priority.js';
import { InformerEventSourceConfigurer } from './informer-event-source-configurer.js';
import type { InformerEventSourceConfiguration, KubeEventSourceContext } from './informer-event-source-configuration.js';
import { InformerSourceSnapshot, secondariesOf } from './informer-source-snapshot.js';
import { primariesOf } from './primaries-of.js';
import { ResourceTriggers } from './resource-triggers.js';
import { inheritedShardSelector } from './inherited-shard-selector.js';
import { ListedPrimaries } from './listed-primaries.js';
import { EventStages } from './event-stages.js';
import { pendingSyncOf, statisticsOf } from './kube-source-figures.js';
import { remoteCacheSyncCluster } from './remote-cluster.js';

/**
 * Builder of an {@link InformerEventSource}, in the spirit of JOSDK's
 * `InformerEventSourceConfiguration.from(R, P)`.
 *
 * @example
 * ```ts
 * import { InformerEventSource, Kinds, fromOwnerReferences, type InformerEventSourceBuilder, type KubeClient } from '@kindex/informer';
 * import type { EventSourceContext, KubernetesObject } from '@kindex/core';
 * declare const context: EventSourceContext<KubernetesObject, KubeClient>;
 *
 * // Pods owned by our ConfigMap primaries, only the running ones, cached without managedFields.
 * const builder: InformerEventSourceBuilder<KubernetesObject, KubernetesObject> = InformerEventSource.from(Kinds.Pod, Kinds.ConfigMap)
 *   .withName('pods')
 *   .withFieldSelector('status.phase=Running')
 *   .withSecondaryToPrimaryMapper(fromOwnerReferences({ group: '', kind: 'ConfigMap' }))
 *   .withOnUpdateFilter((pod, old) => pod.metadata?.labels?.['ready'] !== old.metadata?.labels?.['ready']);
 * const pods = builder.build(context);
 * ```
 */
export class InformerEventSourceBuilder<R extends KubernetesObject, P extends KubernetesObject> extends InformerEventSourceConfigurer<
  R,
  P
> {
  /**
   * Builds the event source for a controller. The controller's event filters (when the context
   * carries them) are ANDed with this source's own.
   *
   * Given a {@link KubeClient} instead of a context, builds a standalone source (JOSDK allows
   * informer event sources outside controllers): `'inherit'` namespaces mean every namespace,
   * and the caller starts and stops it. See {@link InformerEventSource} for an example.
   */
  build(context: EventSourceContext<P, KubeClient> | KubeEventSourceContext<P> | KubeClient): InformerEventSource<R, P> {
    const own = this.buildable();
    if (context instanceof KubeClient) return this.claimed(context, new InformerEventSource<R, P>(own, context, 'all'));
    const controllerFilters = 'eventFilters' in context ? context.eventFilters : [];
    const config =
      controllerFilters.length === 0
        ? own
        : { ...own, filter: and<R>(...(controllerFilters as readonly Predicate<R>[]), ...(own.filter ? [own.filter] : [])) };
    const inherited = 'shardSelector' in context ? inheritedShardSelector(context.shardSelector) : undefined;
    return this.claimed(context.client, new InformerEventSource<R, P>(config, context.client, context.configuration.namespaces, inherited));
  }
}

/**
 * An event source over an informer cache of secondary resources of kind `R`, for primaries `P`.
 *
 * Standalone use (no controller): build it with a {@link KubeClient}, `start()` it (resolves
 * once the cache has synced; rejects with a `CacheSyncError` as a controller would), read it
 * with `get`/`list`/`byIndex`, subscribe to `triggers$` if wanted, and `stop()` it.
 *
 * ```ts
 * const configMaps = InformerEventSource.from(Kinds.ConfigMap).withNamespaces(['team-a']).build(client);
 * configMaps.addIndexer('byApp', (cm) => [cm.metadata?.labels?.['app'] ?? '']);
 * await configMaps.start();
 * configMaps.get(ResourceID.of('settings', 'team-a'))?.data; // typed: Kinds are
 * configMaps.byIndex('byApp', 'web');
 * await configMaps.stop();
 * ```
 *
 * In a reconcile, reach a registered source as its class through a handle:
 * `context.getEventSource(InformerEventSource.handle(Kinds.ConfigMap, WebPageKind)).list(ns)`.
 *
 * @example
 * ```ts
 * import { InformerEventSource, type KubeClient, type ResourceKind } from '@kindex/informer';
 * import { Mappers, ResourceID, type EventSourceContext, type KubernetesObject } from '@kindex/core';
 * type Job = KubernetesObject & { spec: { clusterName: string } };
 * declare const ClusterKind: ResourceKind;
 * declare const JobKind: ResourceKind<Job>;
 * declare const context: EventSourceContext<Job, KubeClient>;
 * const clusters = InformerEventSource.from(ClusterKind, JobKind)
 *   .withSecondaryToPrimaryMapper(Mappers.fromIndex(context.primaryCache, 'byCluster', (c) => ResourceID.keyOfResource(c)))
 *   .withPrimaryToSecondaryMapper((job) => [ResourceID.of(job.spec.clusterName, job.metadata?.namespace)])
 *   .build(context);
 * ```
 */
export class InformerEventSource<
  R extends KubernetesObject = KubernetesObject,
  P extends KubernetesObject = KubernetesObject,
> implements KubeEventSource<R, P> {
  /**
   * Starts a builder for secondaries of `kind` and primaries of `primaryKind`. Without
   * `primaryKind` (a standalone source) the default mapper names no primaries.
   */
  static from<R extends KubernetesObject, P extends KubernetesObject = KubernetesObject>(
    kind: ResourceKind<R>,
    primaryKind?: ResourceKind<P>,
  ): InformerEventSourceBuilder<R, P> {
    return new InformerEventSourceBuilder<R, P>(kind, primaryKind);
  }

  /**
   * A typed handle for `context.getEventSource(handle)`: the informer event source of `kind`
   * (the one named `eventSourceName` when several serve the kind), returned as an
   * `InformerEventSource<R, P>` without a cast. Make it once, next to the reconciler.
   *
   * @example
   * ```ts
   * import { ResourceID, type Context, type KubernetesObject } from '@kindex/core';
   * import { InformerEventSource, Kinds, resourceKind, type KubeClient } from '@kindex/informer';
   * const WebPageKind = resourceKind({ group: 'sample.dev', version: 'v1', kind: 'WebPage', plural: 'webpages', namespaced: true });
   * declare const context: Context<KubernetesObject, KubeClient>;
   *
   * const ConfigMaps = InformerEventSource.handle(Kinds.ConfigMap, WebPageKind);
   * // In reconcile: a typed ConfigMap (data is Record<string, string>), no cast.
   * const cm = context.getEventSource(ConfigMaps).get(ResourceID.of('settings', 'web'));
   * const mode = cm?.data?.['mode'];
   * ```
   */
  static handle<R extends KubernetesObject, P extends KubernetesObject>(
    kind: ResourceKind<R>,
    primaryKind: ResourceKind<P>,
    eventSourceName?: string,
  ): EventSourceHandle<InformerEventSource<R, P>> {
    void primaryKind; // carries P only: the run-time check is the class
    return eventSourceHandle<InformerEventSource<R, P>>({
      type: kind,
      eventSourceName,
      className: 'InformerEventSource',
      accepts: (source): source is InformerEventSource<R, P> => source instanceof InformerEventSource,
    });
  }

  readonly name: string;
  readonly resourceType: ResourceKind<R>;
  readonly configuration: InformerEventSourceConfiguration<R, P>;
  /** The primaries to reconcile; derived from the {@link onTrigger} listeners, free while nobody subscribes. */
  readonly triggers$: Observable<Trigger>;
  readonly health$: Observable<EventSourceHealth>;
  /** Problems met and moved past: throwing mappers and filters, bad objects, failed requests. */
  readonly problems$: Observable<EventSourceProblem>;
  /** The informer cache (read it directly to bypass the reverse index). */
  readonly cache: InformerCache<R>;

  readonly #triggers: ResourceTriggers;
  /** A list's primaries, triggered once each when the list has been delivered. */
  readonly #listed: ListedPrimaries<R>;
  /** Scope removal, stealth and filter: the code the controller's primary source runs too. */
  readonly #stages: EventStages<R>;
  readonly #health: BehaviorSubject<EventSourceHealth>;
  readonly #problems = new Subject<EventSourceProblem>();
  readonly #index: PrimaryToSecondaryIndex<R> | undefined;
  readonly #inherit: boolean;
  readonly #selection: NamespaceSelection | undefined;
  readonly #inheritShards: boolean;
  #subscriptions: Subscription[] = [];
  /** One reporter for the per-event path's user code (mappers, filters, handlers): no closure per event. */
  readonly #reportError = (error: unknown): void => this.#report(error);

  constructor(
    config: InformerEventSourceConfiguration<R, P>,
    client: KubeClient,
    controllerNamespaces: NamespaceSet = 'all',
    controllerShards?: ShardSelector,
  ) {
    this.configuration = config;
    this.name = config.name;
    this.resourceType = config.kind;
    this.#inherit = config.namespaces === 'inherit';
    const choice = config.namespaces;
    const kubeConfig = config.cluster?.kubeConfig ?? client.kubeConfig; // a remote source: its cluster's
    this.#selection =
      typeof choice === 'object' && 'selector' in choice
        ? new NamespaceSelection({
            owner: `event source ${config.name}`,
            labelSelector: choice.selector,
            kubeConfig,
            registry: InformerRegistry.of(client),
          })
        : undefined;
    this.#inheritShards = config.shardSelector === 'inherit';
    const shards =
      config.shardSelector === 'inherit' ? controllerShards : config.shardSelector === 'none' ? undefined : config.shardSelector;
    this.cache = new InformerCache<R>({
      name: `event source ${config.name}${config.cluster !== undefined ? ` on cluster ${config.cluster.name}` : ''}`,
      kubeConfig,
      ...(config.cluster !== undefined ? { cluster: config.cluster.name } : {}),
      registry: InformerRegistry.of(client),
      kind: config.kind,
      // With a selector, nothing is watched until the selection has listed the namespaces.
      namespaces: choice === 'inherit' ? controllerNamespaces : typeof choice === 'object' && 'selector' in choice ? [] : choice,
      ...(config.labelSelector ? { labelSelector: config.labelSelector } : {}),
      ...(config.fieldSelector ? { fieldSelector: config.fieldSelector } : {}),
      ...(shards !== undefined ? { shardSelector: shards } : {}),
      ...(config.transform !== undefined ? { transform: config.transform } : {}),
      ...(config.reflector ? { reflector: config.reflector } : {}),
    });
    // JOSDK: with a primary-to-secondary mapper the reverse index is not kept at all.
    this.#index = config.toSecondaryIds === undefined ? new PrimaryToSecondaryIndex<R>({ toPrimaryIds: config.toPrimaryIds }) : undefined;
    this.#health = new BehaviorSubject<EventSourceHealth>({ source: this.name, status: 'starting' });
    this.#triggers = new ResourceTriggers(config.name);
    this.#listed = new ListedPrimaries<R>(this.#triggers);
    this.#stages = new EventStages<R>({ stealth: config.stealth, filter: config.filter, report: this.#reportError });
    this.triggers$ = this.#triggers.triggers$;
    this.health$ = this.#health.asObservable();
    this.problems$ = this.#problems.asObservable();
  }

  /**
   * Calls `listener` with every trigger, as `triggers$` does but as a plain call: how the event
   * processor connects, so a watch event reaches its queue by direct calls from the socket on.
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
    return this.#triggers.onTrigger(listener);
  }

  /** The label selector on Namespace objects choosing this source's namespaces, if it has one. */
  get namespaceSelector(): string | undefined {
    return this.#selection?.labelSelector;
  }

  /** Whether the namespaces follow the controller's. */
  get inheritsNamespaces(): boolean {
    return this.#inherit;
  }

  /** The namespaces its cache watches now. */
  get namespaces(): NamespaceSet {
    return this.cache.namespaces;
  }

  /** True once every watched namespace has listed. */
  hasSynced(): boolean {
    return this.cache.hasSynced();
  }

  /** Its kind, the namespaces not synced yet (`''`: all namespaces) and the last error met. */
  pendingSync(): EventSourcePendingSync {
    return pendingSyncOf(this.cache);
  }

  /** Objects cached, synced, distinct values per index and the reverse index's size, for debug views. */
  statistics(): EventSourceStatistics {
    return statisticsOf(this);
  }

  /**
   * Starts the cache and resolves once it has synced.
   * @throws {CacheSyncError} when the server refuses the list for good (400/401/403/404): the
   *   message names this source, the kind, the namespace and the fix. The cache is stopped.
   * @throws {StartAbortedError} when `signal` aborts first (the cache is stopped).
   */
  async start(options: CacheStartOptions = {}): Promise<void> {
    if (this.#subscriptions.length === 0) {
      this.#subscriptions = [
        // The bound method itself listens: no wrapper frame per event.
        new Subscription(this.cache.onDelta(this.#onDelta.bind(this))),
        this.cache.errors$.subscribe((error) => this.#report(this.#named(error))),
        this.cache.health$.subscribe(({ namespace, health }) => {
          const status = health.lastError && !health.watching ? 'unhealthy' : 'healthy';
          if (this.#health.value.status !== 'starting' && this.#health.value.status !== 'stopped' && this.#health.value.status !== status) {
            const error = status === 'unhealthy' ? this.#explain(namespace, health.lastError!.error, 'running') : undefined;
            this.#health.next({ source: this.name, status, ...(error !== undefined ? { error } : {}) });
          }
        }),
      ];
      if (this.#index !== undefined) {
        this.#subscriptions.push(this.#index.errors$.subscribe((error) => this.#report(error)));
      }
      if (this.#selection !== undefined) {
        this.#subscriptions.push(this.#selection.cache.errors$.subscribe((error) => this.#report(error)));
      }
    }
    try {
      if (this.#selection !== undefined) await this.cache.setNamespaces(await this.#selection.start(options));
      await this.cache.start(options);
      this.#selection?.follow(
        (namespaces) => this.cache.setNamespaces(namespaces),
        (error) => this.#report(error),
      );
    } catch (error) {
      const cluster = remoteCacheSyncCluster(this.configuration.cluster?.name);
      const explained = error instanceof CacheSyncError ? error.withContext({ eventSource: this.#named(this.name), cluster }) : error;
      await this.#selection?.stop();
      await this.cache.stop();
      if (this.#health.value.status !== 'stopped') this.#health.next({ source: this.name, status: 'unhealthy', error: explained });
      throw explained;
    }
    this.#health.next({ source: this.name, status: 'healthy' });
  }

  #explain(namespace: string, error: Error, phase: 'startup' | 'running'): Error {
    const explained = this.cache.explain(namespace, error, phase);
    const cluster = remoteCacheSyncCluster(this.configuration.cluster?.name);
    return explained instanceof CacheSyncError
      ? explained.withContext({ eventSource: this.#named(this.name), cluster })
      : this.#named(explained);
  }

  /**
   * A remote source names its cluster: in its errors (health, problems and the log lines made of
   * them) and as the event source of a startup error.
   */
  #named(error: Error): Error;
  #named(source: string): string;
  #named(what: Error | string): Error | string {
    const cluster = this.configuration.cluster?.name;
    if (cluster === undefined) return what;
    return typeof what === 'string' ? `${what} on cluster ${cluster}` : new Error(`cluster ${cluster}: ${what.message}`, { cause: what });
  }

  /** Stops the caches (releasing shared informers) and clears the reverse index; health becomes `stopped`. */
  async stop(): Promise<void> {
    await this.#selection?.stop();
    await this.cache.stop();
    for (const s of this.#subscriptions) s.unsubscribe();
    this.#subscriptions = [];
    this.#index?.clear();
    this.#health.next({ source: this.name, status: 'stopped' });
  }

  /**
   * Changes the watched namespaces at run time: new ones start and sync before this resolves;
   * removed ones stop and their objects leave the cache and the index without reconciling.
   */
  changeNamespaces(namespaces: NamespaceSet): Promise<void> {
    return this.cache.setNamespaces(namespaces);
  }

  /** Whether the shard selector follows the controller's. */
  get inheritsShardSelector(): boolean {
    return this.#inheritShards;
  }

  /**
   * Changes the cached shard ranges at run time: the new ranges sync before this resolves; objects
   * outside them leave the cache and the index without reconciling.
   */
  changeShardSelector(selector: ShardSelector | undefined): Promise<void> {
    return this.cache.setShardSelector(selector);
  }

  /**
   * The secondaries of a primary, from the index (or the primary-to-secondary mapper), read live:
   * the index and the stores cannot change during this synchronous call, so no snapshot is
   * taken. O(secondaries of the primary): the index holds the cached version of each secondary
   * (it is fed every delta of the cache right after the store applied it), so no key is looked up
   * again in the cache. A reconcile reads through its Context's snapshot.
   */
  getSecondaryResources(primary: P): readonly R[] {
    const index = this.#index;
    if (index !== undefined) return index.secondariesOf(ResourceID.keyOfResource(primary));
    return secondariesOf(primary, this.configuration.toSecondaryIds, undefined, (key) => this.cache.peekKey(key));
  }

  /**
   * The one secondary of a primary, or undefined.
   * @throws {MultipleSecondaryResourcesError} when the primary has several.
   */
  getSecondaryResource(primary: P): R | undefined {
    const all = this.getSecondaryResources(primary);
    if (all.length > 1) throw new MultipleSecondaryResourcesError(ResourceID.keyOfResource(primary), this.resourceType.name, all.length);
    return all[0];
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

  /** Keys of the primaries the reverse index files this secondary under (none with a P2S mapper). */
  primaryKeysOf(secondary: ResourceID | string): ReadonlySet<string> {
    return this.#index?.primaryKeys(secondary) ?? new Set();
  }

  /**
   * Sizes of the reverse index (primaries with secondaries, secondaries with primaries), or
   * undefined when a primary-to-secondary mapper replaces it. For diagnostics.
   */
  reverseIndexSize(): { readonly primaries: number; readonly secondaries: number } | undefined {
    const index = this.#index;
    return index === undefined ? undefined : { primaries: index.primaryCount, secondaries: index.secondaryCount };
  }

  /** The cache and the reverse index frozen together. */
  snapshot(): SecondaryResourceReader<R, P> {
    const index = this.#index;
    return new InformerSourceSnapshot<R, P>(this.cache.snapshot(), index?.snapshot(), this.configuration.toSecondaryIds, index);
  }

  #onDelta(delta: StoreDelta<R>, origin: CacheDeltaOrigin): void {
    let primaries = primariesOf(delta, this.#index, this.configuration.toPrimaryIds, this.#reportError);
    // A namespace leaving the set (a scope removal) is cleaned up above but reconciles nothing.
    const event = this.#stages.apply(delta, origin);
    if (event === undefined) return;
    const handler = this.configuration.handler;
    if (handler !== undefined) primaries = mapEvent(handler, event, this.#reportError);
    if (primaries.length === 0) return;
    if (origin === 'list' || origin === 'attach') this.#listed.add(primaries, event, unchangedPriority(delta.type, origin));
    else this.#triggers.resource(primaries, event, undefined);
  }

  #report(error: unknown): void {
    this.#problems.next({ source: this.name, error });
  }
}
