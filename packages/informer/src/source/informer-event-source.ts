/**
 * The event source of Kubernetes secondary resources (JOSDK's InformerEventSource): an informer
 * cache of one kind, a secondary-to-primary mapper, the reverse primary-to-secondary index, and
 * event filters, emitting the primaries to reconcile.
 *
 * Per event, in order: the shared store applies it; the reverse index records the mapper's
 * result (`P_new`) and returns the primaries the secondary left (`P_old`); the filter decides;
 * `P_new ∪ P_old` is handed on as one trigger, by a direct call to the event processor (the
 * `TriggerSink` connected to the source), then to `onTrigger` listeners and `triggers$`. So a
 * reference that moves reconciles both primaries, and `getSecondaryResources(primary)` is an index
 * read (the index holds each secondary's cached version): O(its secondaries). Around the class:
 * what it shares with the controller's primary source (the cache it is the sink of, start and
 * stop, health, the trigger end) is their base, `ManagedInformerEventSource`; its configuration
 * types, the builder's steps (`InformerEventSourceConfigurer`), the snapshot reader and
 * `primariesOf` have files of their own.
 *
 * @module
 */
import {
  and,
  MultipleSecondaryResourcesError,
  PrimaryToSecondaryIndex,
  ResourceID,
  type EventSourceContext,
  type EventSourceHandle,
  type KubernetesObject,
  type Predicate,
  type SecondaryResourceReader,
  type StoreDelta,
  type ShardSelector,
} from '@kindex/core';
import { eventSourceHandle, mapEvent } from '@kindex/core/internal';
import type { Subscription } from 'rxjs';
import { InformerCache } from '../cache/informer-cache.js';
import type { CacheDeltaOrigin } from '../cache/cache-delta.js';
import { type CacheStartOptions, type NamespaceSet } from '../cache/informer-cache-options.js';
import { InformerRegistry } from '../cache/informer-registry.js';
import type { ResourceKind } from '../kind/resource-kind.js';
import { KubeClient } from '../client/kube-client.js';
import { NamespaceSelection } from '../namespace-selector/namespace-selection.js';
import { unchangedPriority } from './unchanged-priority.js';
import { InformerEventSourceConfigurer } from './informer-event-source-configurer.js';
import type { InformerEventSourceConfiguration, KubeEventSourceContext } from './informer-event-source-configuration.js';
import { InformerSourceSnapshot, secondariesOf } from './informer-source-snapshot.js';
import { primariesOf } from './primaries-of.js';
import { inheritedShardSelector } from './inherited-shard-selector.js';
import { ListedPrimaries } from './listed-primaries.js';
import { EventStages } from './event-stages.js';
import { ManagedInformerEventSource } from './managed-informer-event-source.js';

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
> extends ManagedInformerEventSource<R, P> {
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

  readonly configuration: InformerEventSourceConfiguration<R, P>;
  /** A list's primaries, triggered once each when the list has been delivered. */
  readonly #listed: ListedPrimaries<R>;
  /** Scope removal, stealth and filter: the code the controller's primary source runs too. */
  readonly #stages: EventStages<R>;
  readonly #index: PrimaryToSecondaryIndex<R> | undefined;
  readonly #inherit: boolean;
  readonly #selection: NamespaceSelection | undefined;
  readonly #inheritShards: boolean;

  constructor(
    config: InformerEventSourceConfiguration<R, P>,
    client: KubeClient,
    controllerNamespaces: NamespaceSet = 'all',
    controllerShards?: ShardSelector,
  ) {
    super(config.name, sourceCache(config, client, controllerNamespaces, controllerShards), config.cluster?.name);
    this.configuration = config;
    this.#inherit = config.namespaces === 'inherit';
    const choice = config.namespaces;
    this.#selection =
      typeof choice === 'object' && 'selector' in choice
        ? new NamespaceSelection({
            owner: `event source ${config.name}`,
            labelSelector: choice.selector,
            kubeConfig: config.cluster?.kubeConfig ?? client.kubeConfig,
            registry: InformerRegistry.of(client),
          })
        : undefined;
    this.#inheritShards = config.shardSelector === 'inherit';
    // JOSDK: with a primary-to-secondary mapper the reverse index is not kept at all.
    this.#index = config.toSecondaryIds === undefined ? new PrimaryToSecondaryIndex<R>({ toPrimaryIds: config.toPrimaryIds }) : undefined;
    this.#listed = new ListedPrimaries<R>(this.triggers);
    this.#stages = new EventStages<R>({ stealth: config.stealth, filter: config.filter, report: this.reportError });
  }

  /** The label selector on Namespace objects choosing this source's namespaces, if it has one. */
  get namespaceSelector(): string | undefined {
    return this.#selection?.labelSelector;
  }

  /** Whether the namespaces follow the controller's. */
  get inheritsNamespaces(): boolean {
    return this.#inherit;
  }

  /** Whether the shard selector follows the controller's. */
  get inheritsShardSelector(): boolean {
    return this.#inheritShards;
  }

  /** With a namespace selector, lists the namespaces first, then starts the cache on them and follows their changes. */
  protected override async startCache(options: CacheStartOptions): Promise<void> {
    if (this.#selection !== undefined) await this.cache.setNamespaces(await this.#selection.start(options));
    await this.cache.start(options);
    this.#selection?.follow(
      (namespaces) => this.cache.setNamespaces(namespaces),
      (error) => this.reportError(error),
    );
  }

  protected override async stopCache(): Promise<void> {
    await this.#selection?.stop();
    await this.cache.stop();
  }

  protected override extraSubscriptions(): Subscription[] {
    const subscriptions: Subscription[] = [];
    if (this.#index !== undefined) subscriptions.push(this.#index.errors$.subscribe(this.reportError));
    if (this.#selection !== undefined) subscriptions.push(this.#selection.cache.errors$.subscribe(this.reportError));
    return subscriptions;
  }

  /** The reverse index is cleared when the source stops. */
  protected override cleared(): void {
    this.#index?.clear();
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

  /**
   * @internal One delta of the cache (`CacheDeltaSink`), called by the cache only: the reverse
   * index and mapper name the primaries, the stages filter, the handler may rename them, and
   * they are triggered (a list's at the end of the list).
   */
  onCacheDelta(delta: StoreDelta<R>, origin: CacheDeltaOrigin): void {
    let primaries = primariesOf(delta, this.#index, this.configuration.toPrimaryIds, this.reportError);
    // A namespace leaving the set (a scope removal) is cleaned up above but reconciles nothing.
    const event = this.#stages.apply(delta, origin);
    if (event === undefined) return;
    const handler = this.configuration.handler;
    if (handler !== undefined) primaries = mapEvent(handler, event, this.reportError);
    if (primaries.length === 0) return;
    if (origin === 'list' || origin === 'attach') this.#listed.add(primaries, event, unchangedPriority(delta.type, origin));
    else this.triggers.resource(primaries, event, undefined);
  }
}

/** The informer cache of a source: its cluster's, on its namespaces (or the controller's), selectors and shards. */
function sourceCache<R extends KubernetesObject, P extends KubernetesObject>(
  config: InformerEventSourceConfiguration<R, P>,
  client: KubeClient,
  controllerNamespaces: NamespaceSet,
  controllerShards: ShardSelector | undefined,
): InformerCache<R> {
  const choice = config.namespaces;
  const shards = config.shardSelector === 'inherit' ? controllerShards : config.shardSelector === 'none' ? undefined : config.shardSelector;
  return new InformerCache<R>({
    name: `event source ${config.name}${config.cluster !== undefined ? ` on cluster ${config.cluster.name}` : ''}`,
    kubeConfig: config.cluster?.kubeConfig ?? client.kubeConfig, // a remote source: its cluster's
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
}
