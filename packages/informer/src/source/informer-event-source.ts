/**
 * The event source of Kubernetes secondary resources (JOSDK's InformerEventSource): an informer
 * cache of one kind, a secondary-to-primary mapper, the reverse primary-to-secondary index, and
 * event filters, emitting the primaries to reconcile.
 *
 * Per event, in order: the shared store applies it; the reverse index records the mapper's
 * result (`P_new`) and returns the primaries the secondary left (`P_old`); the filter decides;
 * `P_new ∪ P_old` is emitted as one trigger. So a reference that moves reconciles both primaries,
 * and `getSecondaryResources(primary)` is an index read plus store reads: O(its secondaries).
 *
 * @module
 */
import { BehaviorSubject, Subject, Subscription, type Observable } from 'rxjs';
import {
  and,
  evaluate,
  eventSourceHandle,
  Listeners,
  stealthTransition,
  mapEvent,
  MapperError,
  MultipleSecondaryResourcesError,
  PrimaryToSecondaryIndex,
  ResourceID,
  type EventSource,
  type EventSourceContext,
  type EventSourceHandle,
  type EventTransform,
  type EventHandler,
  type EventSourceHealth,
  type Indexer,
  type KubernetesObject,
  type Predicate,
  type PrimaryToSecondaryMapper,
  type ReverseIndexSnapshot,
  type SecondaryResourceReader,
  type SecondaryToPrimaryMapper,
  type Trigger,
  type TriggerCause,
  type StoreDelta,
  type ResourceEvent,
  type ShardSelector,
  rejectUnknownOptions,
} from '@kindex/core';
import {
  InformerCache,
  isScopeRemoval,
  type CacheDeltaOrigin,
  type CacheSnapshot,
  type CacheStartOptions,
  type NamespaceSet,
} from '../cache/informer-cache.js';
import { CacheSyncError } from '../startup/startup-errors.js';
import type { ResourceKind } from '../kind/resource-kind.js';
import { KubeClient } from '../client/kube-client.js';
import { fromOwnerReferences } from '../mapper/owner-reference-mapper.js';
import type { ObjectTransform } from '../reflector/object-transform.js';
import { checkFieldSelector, checkLabelSelector, REFLECTOR_TUNING_KEYS, type ReflectorTuningOptions } from '../config/option-validation.js';
import { NamespaceSelection } from '../namespace-selector/namespace-selection.js';
import { unchangedPriority } from './unchanged-priority.js';

/**
 * Which namespaces an event source watches: a set, the controller's (`'inherit'`), or those
 * whose Namespace object matches a label selector, followed at run time.
 *
 * @example
 * ```ts
 * import type { InformerEventSourceConfiguration, NamespaceChoice } from '@kindex/informer';
 * import type { KubernetesObject } from '@kindex/core';
 * declare const configuration: InformerEventSourceConfiguration<KubernetesObject, KubernetesObject>;
 *
 * // 'inherit' (the default) follows the controller's namespaces, also when they change at run time.
 * const namespaces: NamespaceChoice = configuration.namespaces;
 * const follows = namespaces === 'inherit';
 * ```
 */
export type NamespaceChoice = NamespaceSet | 'inherit' | { readonly selector: string };

/**
 * Configuration of an {@link InformerEventSource}; build it with {@link InformerEventSource.from}.
 *
 * @example
 * ```ts
 * import { InformerEventSource, Kinds, type InformerEventSourceConfiguration } from '@kindex/informer';
 * import type { KubernetesObject } from '@kindex/core';
 *
 * // The builder's result before build(): check it in a unit test of prepareEventSources.
 * const configuration: InformerEventSourceConfiguration<KubernetesObject, KubernetesObject> = InformerEventSource.from(Kinds.Secret, Kinds.ConfigMap)
 *   .withLabelSelector('app=web')
 *   .configuration();
 * console.log(configuration.name, configuration.labelSelector, configuration.namespaces);
 * ```
 */
export interface InformerEventSourceConfiguration<R extends KubernetesObject, P extends KubernetesObject> {
  readonly kind: ResourceKind<R>;
  /** Undefined for a standalone source built without a primary kind. */
  readonly primaryKind: ResourceKind<P> | undefined;
  /** Defaults to the kind's name (`group/version/Kind`). */
  readonly name: string;
  readonly labelSelector: string | undefined;
  readonly fieldSelector: string | undefined;
  /** Defaults to `'inherit'`: the controller's namespaces, following its changes. */
  readonly namespaces: NamespaceChoice;
  /**
   * Which shard ranges to cache: `'inherit'` takes the controller's shard selector when it
   * shards by namespace (and follows its changes), and none otherwise; `'none'` caches every
   * object. Defaults to `'inherit'`.
   */
  readonly shardSelector: ShardSelector | 'inherit' | 'none';
  /** Defaults to the owner references of the primary kind. */
  readonly toPrimaryIds: SecondaryToPrimaryMapper<R>;
  /** When set, `getSecondaryResources` uses it and no reverse index is kept. */
  readonly toSecondaryIds: PrimaryToSecondaryMapper<P> | undefined;
  /** Filters on the secondary's events, ANDed. Defaults to none (everything passes). */
  readonly filter: Predicate<R> | undefined;
  /**
   * kopf's stealth mode (see {@link InformerEventSourceBuilder.withStealthFilter}), applied to
   * each event before `filter`. Defaults to undefined (off).
   */
  readonly stealth: EventTransform<R> | undefined;
  /**
   * Maps events to the primaries to reconcile instead of the reverse index's `P_new ∪ P_old`
   * (controller-runtime style). The index is still kept for `getSecondaryResources`.
   * Defaults to undefined.
   */
  readonly handler: EventHandler<R> | undefined;
  readonly transform: ObjectTransform<R> | null | undefined;
  readonly reflector: ReflectorTuningOptions | undefined;
}

/**
 * The context a kindex controller hands to `prepareEventSources`: core's, plus controller-wide filters.
 *
 * @example
 * ```ts
 * import { InformerEventSource, Kinds, type KubeClient, type KubeEventSourceContext } from '@kindex/informer';
 * import type { EventSource, KubernetesObject, Reconciler } from '@kindex/core';
 * import { UpdateControl } from '@kindex/core';
 *
 * // Inside an Operator, prepareEventSources gets this context: build() applies the controller's eventFilters too.
 * const reconciler: Reconciler<KubernetesObject, KubeClient> = {
 *   prepareEventSources(context): EventSource<unknown, KubernetesObject>[] {
 *     const filters = (context as KubeEventSourceContext<KubernetesObject>).eventFilters;
 *     console.log(`${filters.length} controller-wide filters`);
 *     return [InformerEventSource.from(Kinds.Secret, Kinds.ConfigMap).build(context)];
 *   },
 *   reconcile: () => UpdateControl.noUpdate(),
 * };
 * ```
 */
export interface KubeEventSourceContext<P extends KubernetesObject> extends EventSourceContext<P, KubeClient> {
  /** Filters applied to the events of every source of the controller (ANDed with each source's). */
  readonly eventFilters: readonly Predicate<KubernetesObject>[];
  /** The controller's shard selector, if it has one. */
  readonly shardSelector?: ShardSelector | undefined;
}

/**
 * Problems an event source met and moved past (mappers, filters, informers).
 *
 * @example
 * ```ts
 * import type { EventSourceProblem, InformerEventSource } from '@kindex/informer';
 * declare const pods: InformerEventSource;
 *
 * // A mapper or filter that threw on one object: reported here, the object's event is not lost.
 * pods.problems$.subscribe((problem: EventSourceProblem) => console.warn(`${problem.source}:`, problem.error));
 * ```
 */
export interface EventSourceProblem {
  readonly source: string;
  readonly error: unknown;
}

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
export class InformerEventSourceBuilder<R extends KubernetesObject, P extends KubernetesObject> {
  #config: InformerEventSourceConfiguration<R, P>;
  /** The stealth filters so far, ANDed; the configuration holds their transform. */
  #stealthFilter: Predicate<R> | undefined;

  /** @internal use {@link InformerEventSource.from} */
  constructor(kind: ResourceKind<R>, primaryKind: ResourceKind<P> | undefined) {
    this.#config = {
      kind,
      primaryKind,
      name: kind.name,
      labelSelector: undefined,
      fieldSelector: undefined,
      namespaces: 'inherit',
      shardSelector: 'inherit',
      // Without a primary kind no owner reference can name a primary: nothing to reconcile.
      toPrimaryIds:
        primaryKind === undefined
          ? () => []
          : fromOwnerReferences<R>({
              group: primaryKind.group,
              kind: primaryKind.kind,
              clusterScopedOwner: !primaryKind.namespaced,
            }),
      toSecondaryIds: undefined,
      filter: undefined,
      stealth: undefined,
      handler: undefined,
      transform: undefined,
      reflector: undefined,
    };
  }

  #with(change: Partial<InformerEventSourceConfiguration<R, P>>): this {
    this.#config = { ...this.#config, ...change };
    return this;
  }

  /** Unique name within the controller. Defaults to the kind's name. */
  withName(name: string): this {
    return this.#with({ name });
  }
  /** Server-side label selector of the cache. */
  withLabelSelector(labelSelector: string): this {
    checkLabelSelector(`event source ${this.#config.name}`, labelSelector);
    return this.#with({ labelSelector });
  }
  /** Server-side field selector of the cache. */
  withFieldSelector(fieldSelector: string): this {
    checkFieldSelector(`event source ${this.#config.name}`, fieldSelector);
    return this.#with({ fieldSelector });
  }
  /** Watch these namespaces (changeable later with `changeNamespaces`). */
  withNamespaces(namespaces: readonly string[]): this {
    return this.#with({ namespaces: [...namespaces] });
  }
  /**
   * Cache only these shard ranges (`'none'`: every object; `'inherit'`, the default: the
   * controller's, when it shards by namespace).
   */
  withShardSelector(shardSelector: ShardSelector | 'inherit' | 'none'): this {
    return this.#with({ shardSelector });
  }
  /** Watch every namespace. */
  withAllNamespaces(): this {
    return this.#with({ namespaces: 'all' });
  }
  /**
   * Watch the namespaces whose Namespace object matches `labelSelector`, following labels as
   * they change at run time (an added namespace's objects arrive as creates; a removed one's
   * leave the cache without triggers). Needs list and watch on namespaces.
   */
  withNamespaceSelector(labelSelector: string): this {
    checkLabelSelector(`event source ${this.#config.name} namespaceSelector`, labelSelector);
    return this.#with({ namespaces: { selector: labelSelector } });
  }
  /** Watch the controller's namespaces and follow its changes. The default. */
  withNamespacesInheritedFromController(): this {
    return this.#with({ namespaces: 'inherit' });
  }
  /** Which primaries a secondary concerns. Defaults to owner references of the primary kind. */
  withSecondaryToPrimaryMapper(toPrimaryIds: SecondaryToPrimaryMapper<R>): this {
    return this.#with({ toPrimaryIds });
  }
  /** Which secondaries a primary reads; replaces the reverse index. */
  withPrimaryToSecondaryMapper(toSecondaryIds: PrimaryToSecondaryMapper<P>): this {
    return this.#with({ toSecondaryIds });
  }
  /** A predicate (or kopf filter) on the secondary's events; several calls are ANDed. */
  withFilter(filter: Predicate<R>): this {
    const prev = this.#config.filter;
    return this.#with({ filter: prev === undefined ? filter : and(prev, filter) });
  }
  /**
   * kopf's stealth mode: objects that do not pass `filter` (judged on their state, as a
   * `generic` event) are invisible to this source's filters and handler. An object that starts
   * passing arrives as a `create`, one that stops passing as a `delete` (so a create-only
   * filter such as {@link InformerEventSourceBuilder.withOnAddFilter} sees objects gaining the
   * label later, as kopf's `on.create` does). The cache still holds every object the selectors
   * admit: use `withLabelSelector` to keep objects out of memory, this for what a selector
   * cannot express. Several calls are ANDed. Defaults to off.
   *
   * @example
   * ```ts
   * import { kopfFilter, PRESENT } from '@kindex/core';
   * import { InformerEventSource, Kinds, resourceKind } from '@kindex/informer';
   * const WebPageKind = resourceKind({ group: 'sample.dev', version: 'v1', kind: 'WebPage', plural: 'webpages', namespaced: true });
   *
   * // ConfigMaps that gain the label later arrive as creates, those losing it as deletes.
   * const managed = InformerEventSource.from(Kinds.ConfigMap, WebPageKind)
   *   .withStealthFilter(kopfFilter({ labels: { 'example.com/managed': PRESENT } }))
   *   .withOnAddFilter(() => true);
   * ```
   * @see stealthTransition
   */
  withStealthFilter(filter: Predicate<R>): this {
    this.#stealthFilter = this.#stealthFilter === undefined ? filter : and(this.#stealthFilter, filter);
    return this.#with({ stealth: stealthTransition(this.#stealthFilter) });
  }
  /** Only create events passing `accept` go on. */
  withOnAddFilter(accept: (object: R) => boolean): this {
    return this.withFilter({ name: 'onAdd', create: (e) => accept(e.object) });
  }
  /** Only update events passing `accept` go on. */
  withOnUpdateFilter(accept: (object: R, oldObject: R) => boolean): this {
    return this.withFilter({ name: 'onUpdate', update: (e) => accept(e.object, e.oldObject) });
  }
  /** Only delete events passing `accept` go on. */
  withOnDeleteFilter(accept: (object: R, deleteStateUnknown: boolean) => boolean): this {
    return this.withFilter({ name: 'onDelete', delete: (e) => accept(e.object, e.deleteStateUnknown) });
  }
  /** Only generic events passing `accept` go on. */
  withGenericFilter(accept: (object: R) => boolean): this {
    return this.withFilter({ name: 'generic', generic: (e) => accept(e.object) });
  }
  /** Decides which primaries an event reconciles (see {@link InformerEventSourceConfiguration.handler}). */
  withEventHandler(handler: EventHandler<R>): this {
    return this.#with({ handler });
  }
  /** Reshapes objects before caching; `null` keeps them as sent. Defaults to dropping managedFields. */
  withTransform(transform: ObjectTransform<R> | null): this {
    return this.#with({ transform });
  }
  /** Connection tuning of the reflectors (page size, timeouts, backoff). */
  withReflectorOptions(reflector: InformerEventSourceConfiguration<R, P>['reflector']): this {
    rejectUnknownOptions(`event source ${this.#config.name} reflector options`, reflector, REFLECTOR_TUNING_KEYS);
    return this.#with({ reflector });
  }

  /** The configuration as built so far. */
  configuration(): InformerEventSourceConfiguration<R, P> {
    return this.#config;
  }

  /**
   * Builds the event source for a controller. The controller's event filters (when the context
   * carries them) are ANDed with this source's own.
   *
   * Given a {@link KubeClient} instead of a context, builds a standalone source (JOSDK allows
   * informer event sources outside controllers): `'inherit'` namespaces mean every namespace,
   * and the caller starts and stops it. See {@link InformerEventSource} for an example.
   */
  build(context: EventSourceContext<P, KubeClient> | KubeEventSourceContext<P> | KubeClient): InformerEventSource<R, P> {
    if (context instanceof KubeClient) return new InformerEventSource<R, P>(this.#config, context, 'all');
    const controllerFilters = 'eventFilters' in context ? context.eventFilters : [];
    const config =
      controllerFilters.length === 0
        ? this.#config
        : {
            ...this.#config,
            filter: and<R>(...(controllerFilters as readonly Predicate<R>[]), ...(this.#config.filter ? [this.#config.filter] : [])),
          };
    const inherited = 'shardSelector' in context ? inheritedShardSelector(context.shardSelector) : undefined;
    return new InformerEventSource<R, P>(config, context.client, context.configuration.namespaces, inherited);
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
> implements EventSource<R, P> {
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

  readonly #triggers = new Listeners<Trigger>();
  /** Primaries of the list being delivered, each with its last event; see #gather. */
  #gathered: Map<string, [ResourceID, ResourceEvent<R>, number | undefined]> | undefined;
  readonly #health: BehaviorSubject<EventSourceHealth>;
  readonly #problems = new Subject<EventSourceProblem>();
  readonly #index: PrimaryToSecondaryIndex<R> | undefined;
  readonly #inherit: boolean;
  readonly #selection: NamespaceSelection | undefined;
  readonly #inheritShards: boolean;
  #subscriptions: Subscription[] = [];

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
    this.#selection =
      typeof choice === 'object' && 'selector' in choice
        ? new NamespaceSelection({
            owner: `event source ${config.name}`,
            labelSelector: choice.selector,
            kubeConfig: client.kubeConfig,
            registry: client.registry,
          })
        : undefined;
    this.#inheritShards = config.shardSelector === 'inherit';
    const shards =
      config.shardSelector === 'inherit' ? controllerShards : config.shardSelector === 'none' ? undefined : config.shardSelector;
    this.cache = new InformerCache<R>({
      name: `event source ${config.name}`,
      kubeConfig: client.kubeConfig,
      registry: client.registry,
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
    this.triggers$ = this.#triggers.observe((trigger) => trigger);
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
    return this.#triggers.add(listener);
  }

  /** The label selector on Namespace objects choosing this source's namespaces, if it has one. */
  get namespaceSelector(): string | undefined {
    return this.#selection?.labelSelector;
  }

  /** Whether the namespaces follow the controller's. */
  get inheritsNamespaces(): boolean {
    return this.#inherit;
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
        new Subscription(this.cache.onDelta((delta, origin) => this.#onDelta(delta, origin))),
        this.cache.errors$.subscribe((error) => this.#report(error)),
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
      const explained = error instanceof CacheSyncError ? error.withContext({ eventSource: this.name }) : error;
      await this.#selection?.stop();
      await this.cache.stop();
      if (this.#health.value.status !== 'stopped') this.#health.next({ source: this.name, status: 'unhealthy', error: explained });
      throw explained;
    }
    this.#health.next({ source: this.name, status: 'healthy' });
  }

  #explain(namespace: string, error: Error, phase: 'startup' | 'running'): Error {
    const explained = this.cache.explain(namespace, error, phase);
    return explained instanceof CacheSyncError ? explained.withContext({ eventSource: this.name }) : explained;
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
   * taken. O(secondaries of the primary). A reconcile reads through its Context's snapshot.
   */
  getSecondaryResources(primary: P): readonly R[] {
    return secondariesOf(primary, this.configuration.toSecondaryIds, this.#index, (key) => this.cache.peekKey(key));
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
    return new InformerSourceSnapshot<R, P>(this.cache.snapshot(), this.#index?.snapshot(), this.configuration.toSecondaryIds);
  }

  #onDelta(delta: StoreDelta<R>, origin: CacheDeltaOrigin): void {
    let primaries = this.#primariesOf(delta);
    // A namespace leaving the set is our configuration changing, not the world: clean up, but
    // reconcile nothing (no storm).
    if (isScopeRemoval(origin)) return;
    const stealth = this.configuration.stealth;
    const event = stealth === undefined ? delta : stealth(delta, (error) => this.#report(error));
    if (event === undefined) return;
    const filter = this.configuration.filter;
    if (filter !== undefined && !evaluate(filter, event, (error) => this.#report(error))) return;
    const handler = this.configuration.handler;
    if (handler !== undefined) primaries = mapEvent(handler, event, (error) => this.#report(error));
    if (primaries.length === 0) return;
    if (origin === 'list' || origin === 'attach') this.#gather(primaries, event, unchangedPriority(delta.type, origin));
    else this.#trigger(primaries, event, undefined);
  }

  /**
   * A list's (or an attach's) deltas arrive in one synchronous run: gather their primaries and
   * trigger each once when the run is over, not once per secondary (a primary with five
   * ConfigMaps is enqueued once at start, not five times).
   */
  #gather(primaries: readonly ResourceID[], event: ResourceEvent<R>, priority: number | undefined): void {
    let gathered = this.#gathered;
    if (gathered === undefined) {
      this.#gathered = gathered = new Map();
      queueMicrotask(() => {
        this.#gathered = undefined;
        for (const [id, cause, p] of gathered!.values()) this.#trigger([id], cause, p);
      });
    }
    for (const id of primaries) {
      // One real change among a primary's secondaries (a relist's update) lifts it to normal priority.
      const previous = gathered.get(id.key);
      gathered.set(id.key, [id, event, previous !== undefined && previous[2] === undefined ? undefined : priority]);
    }
  }

  #trigger(primaries: readonly ResourceID[], event: ResourceEvent<R>, priority: number | undefined): void {
    // Nobody connected (not started, or stopped): build nothing.
    if (!this.#triggers.listening) return;
    const object = event.object;
    const resourceVersion = object.metadata?.resourceVersion;
    // Two objects per trigger, built in one go (no spread of optional fields), each in one shape.
    const cause: TriggerCause =
      resourceVersion === undefined
        ? { type: 'resource', event: event.type, objectKey: ResourceID.keyOfResource(object) }
        : { type: 'resource', event: event.type, objectKey: ResourceID.keyOfResource(object), resourceVersion };
    this.#triggers.emit(
      priority === undefined
        ? { primaryIds: primaries, source: this.name, cause }
        : { primaryIds: primaries, source: this.name, cause, priority },
    );
  }

  /** Updates the index and returns `P_new ∪ P_old`, deduplicated. */
  #primariesOf(delta: StoreDelta<R>): readonly ResourceID[] {
    if (this.#index !== undefined) {
      const update =
        delta.type === 'delete'
          ? this.#index.onDelete(delta.object)
          : this.#index.onAddOrUpdate(delta.object, delta.type === 'update' ? delta.oldObject : undefined);
      // The hot path: references unchanged (the index answers with one array for both).
      if (update.oldPrimaries === update.newPrimaries || update.oldPrimaries.length === 0) return update.newPrimaries;
      if (update.newPrimaries.length === 0) return update.oldPrimaries;
      const union = [...update.newPrimaries];
      for (const id of update.oldPrimaries) if (!union.some((seen) => seen.key === id.key)) union.push(id);
      return union;
    }
    // No index: map both versions each time (the mapper is pure, per its contract).
    const seen = new Map<string, ResourceID>();
    const add = (ids: Iterable<ResourceID>): void => {
      for (const id of ids) if (!seen.has(id.key)) seen.set(id.key, id);
    };
    this.#mapSafely(delta.object, add);
    if (delta.type === 'update') this.#mapSafely(delta.oldObject, add);
    return [...seen.values()];
  }

  #mapSafely(object: R, add: (ids: Iterable<ResourceID>) => void): void {
    try {
      add(this.configuration.toPrimaryIds(object));
    } catch (error) {
      const key = object.metadata?.name ? ResourceID.keyOf(object.metadata.name, object.metadata.namespace) : undefined;
      this.#report(new MapperError(key, 'secondary-to-primary mapper threw', { cause: error }));
    }
  }

  #report(error: unknown): void {
    this.#problems.next({ source: this.name, error });
  }
}

/** One consistent view of an event source's cache and reverse index. */
class InformerSourceSnapshot<R extends KubernetesObject, P extends KubernetesObject> implements SecondaryResourceReader<R, P> {
  constructor(
    readonly cache: CacheSnapshot<R>,
    readonly index: ReverseIndexSnapshot | undefined,
    readonly toSecondaryIds: PrimaryToSecondaryMapper<P> | undefined,
  ) {}

  getSecondaryResources(primary: P): readonly R[] {
    return secondariesOf(primary, this.toSecondaryIds, this.index, (key) => this.cache.peek(key));
  }

  release(): void {
    this.cache.release();
    this.index?.release();
  }
}

/**
 * The secondaries of a primary: the keys from the primary-to-secondary mapper when there is one,
 * else from the reverse index, each resolved by `lookup`; keys missing from the cache are skipped.
 * One piece of code for the live read and the snapshot read.
 */
function secondariesOf<R extends KubernetesObject, P extends KubernetesObject>(
  primary: P,
  toSecondaryIds: PrimaryToSecondaryMapper<P> | undefined,
  index: { forEachSecondaryKey(primaryKey: string, fn: (key: string) => void): void } | undefined,
  lookup: (key: string) => R | undefined,
): R[] {
  const out: R[] = [];
  const add = (key: string): void => {
    const found = lookup(key);
    if (found !== undefined) out.push(found);
  };
  if (toSecondaryIds !== undefined) {
    for (const id of toSecondaryIds(primary)) add(id.key);
  } else if (index !== undefined) {
    index.forEachSecondaryKey(ResourceID.keyOfResource(primary), add);
  }
  return out;
}

/**
 * The part of a controller's shard selector its event sources share: namespace sharding only,
 * since a secondary's uid hashes independently of its primary's.
 */
export function inheritedShardSelector(selector: ShardSelector | undefined): ShardSelector | undefined {
  return selector?.field === 'object.metadata.namespace' ? selector : undefined;
}
