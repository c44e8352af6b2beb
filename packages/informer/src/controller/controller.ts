/**
 * The controller stage: one reconciler, its primary cache, its event sources and the event
 * processor, wired to the API server (JOSDK's Controller). `Controller` is the facade; each job
 * has its file:
 * - `controller-options.ts`: the options, their keys and checks;
 * - `controller-lifecycle.ts`: start (CRD wait, cache sync, failures undone) and stop;
 * - `controller-event-source.ts`: the primary source (JOSDK's ControllerEventSource), a
 *   `KubeEventSource` over the primary cache that the lifecycle runs as every other source; its
 *   deltas become triggers through the same stages and trigger end as the secondaries' sources;
 * - `controller-events.ts`: the fan-out of what happens: metrics and logs listen by direct calls,
 *   `events$` wrappers are built only while someone subscribes;
 * - `reconciliation-dispatcher.ts`: one reconcile (JOSDK's ReconciliationDispatcher): finalizer,
 *   cleanup, workflow, writes, `updateErrorStatus`;
 * - `primary-ledger.ts`: read-after-write, tombstones and finished cleanups, shared by the two;
 * - `primary-writer.ts`: the patches and server-side applies to the primary.
 *
 * Per reconcile: the primary is read from the primary cache, overlaid with the controller's own
 * latest write (read-after-write); the finalizer is added before the first `reconcile` when the
 * reconciler has `cleanup`; a primary marked for deletion gets `cleanup` instead, and the
 * finalizer is removed when it says so; the returned control is written as JSON patch diffs of
 * status and resource; failures retry, and exhausted retries call `updateErrorStatus`.
 *
 * Nothing here imports `operator/` (the composition root) nor the services it wires (server,
 * metrics, leader election, sharding): they reach a controller through its public methods.
 *
 * @module
 */
import { BehaviorSubject, type Observable } from 'rxjs';
import {
  and,
  controllerConfiguration,
  EventProcessor,
  ResourceID,
  type ControllerConfiguration,
  type EventSource,
  type EventSourceHealth,
  type KubernetesObject,
  type Logger,
  type Predicate,
  type ProcessingEvent,
  type Reconciler,
  ShardSelector,
} from '@kindex/core';
import { noopLogger } from '@kindex/core/internal';
import { InformerCache } from '../cache/informer-cache.js';
import { type NamespaceSet } from '../cache/informer-cache-options.js';
import { InformerRegistry } from '../cache/informer-registry.js';
import type { KubeClient } from '../client/kube-client.js';
import type { Workflow } from '../dependent/workflow.js';
import type { ResourceKind } from '../kind/resource-kind.js';
import type { KubeEventSourceContext } from '../source/informer-event-source-configuration.js';
import { inheritedShardSelector } from '../source/inherited-shard-selector.js';
import { inspectionOffHint, type ControllerObservability, type PrimaryDescription } from './controller-observability.js';
import { generationAwarePredicate } from './generation-aware-predicate.js';
import { PrimaryWriter } from './primary-writer.js';
import { ControllerEventSource } from './controller-event-source.js';
import { PrimaryVisibility } from './primary-visibility.js';
import { PrimaryLedger } from './primary-ledger.js';
import { ReconciliationDispatcher } from './reconciliation-dispatcher.js';
import { registerControllerInternals } from './controller-internals.js';
import { ControllerLifecycle } from './controller-lifecycle.js';
import { declaredWrites, type DeclaredWrite } from './written-resource.js';
import type { StartOptions } from '../startup/start-options.js';
import { NamespaceSelection } from '../namespace-selector/namespace-selection.js';
import { CONTROLLER_OPTIONS, resolveInspection, STOP_OPTIONS, validateCrdPolicy, type ControllerOptions } from './controller-options.js';
import {
  PRIMARY_SOURCE_NAME,
  type ControllerEvent,
  type ControllerProblemEvent,
  type ControllerReconciledEvent,
} from './controller-event.js';
import { ControllerEvents } from './controller-events.js';

/**
 * A reconciler running against the API server. Create it through `Operator.register`.
 *
 * @example
 * ```ts
 * import { Kinds, Operator, type Controller } from '@kindex/informer';
 * import { UpdateControl, type KubernetesObject } from '@kindex/core';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * const operator = new Operator({ kubeConfig });
 * const controller: Controller = operator.register({ reconcile: () => UpdateControl.noUpdate<KubernetesObject>() }, { kind: Kinds.ConfigMap, namespaces: ['shop'] });
 * controller.events$.subscribe((e) => e.type === 'reconciled' && console.log(`${e.key}: ${e.control}`));
 * await operator.start();
 * ```
 */
export class Controller<P extends KubernetesObject = KubernetesObject> {
  readonly name: string;
  readonly kind: ResourceKind<P>;
  readonly configuration: ControllerConfiguration;
  /** The primary cache (indexers may be added before start). */
  readonly primaryCache: InformerCache<P>;
  /** Triggers, processing steps, writes and problems, as they happen. */
  readonly events$: Observable<ControllerEvent>;
  /**
   * The problems of `events$` alone (a source's, a filter's, a cache's), as they happen. Prefer it
   * to filtering `events$` when problems are all you follow: it hands you nothing per trigger.
   */
  readonly problems$: Observable<ControllerProblemEvent>;
  /** The ended reconciles of `events$` alone: key, control and what kindex wrote. */
  readonly reconciled$: Observable<ControllerReconciledEvent>;
  readonly health$: Observable<EventSourceHealth>;
  /** Whether `describePrimary` keeps causes and last reconciles (the `inspection` option). */
  readonly inspection: boolean;

  readonly #reconciler: Reconciler<P, KubeClient>;
  readonly #client: KubeClient;
  readonly #ledger: PrimaryLedger<P>;
  readonly #primary: ControllerEventSource<P>;
  readonly #dispatcher: ReconciliationDispatcher<P>;
  readonly #events = new ControllerEvents();
  readonly #health: BehaviorSubject<EventSourceHealth>;
  readonly #eventFilters: readonly Predicate<KubernetesObject>[];
  #shards: ShardSelector | undefined;
  readonly #finalizer: string | undefined;
  readonly #workflow: Workflow<P> | undefined;
  readonly #writes: readonly DeclaredWrite[];
  readonly #namespaceSelection: NamespaceSelection | undefined;
  #prepared: Promise<EventSource<unknown, P>[]> | undefined;
  readonly #statusSubresource: boolean;
  readonly #logger: Logger;
  readonly #lifecycle: ControllerLifecycle<P>;

  constructor(
    reconciler: Reconciler<P, KubeClient>,
    options: ControllerOptions<P>,
    client: KubeClient,
    observability: ControllerObservability = {},
  ) {
    if (options === null || typeof options !== 'object' || options.kind === undefined) {
      throw new TypeError('Controller: options must be an object with the primary kind, for example { kind: Kinds.ConfigMap }');
    }
    CONTROLLER_OPTIONS.check(options, `controller ${options.name ?? `${options.kind.plural}.${options.kind.group || 'core'}`} options`);
    const {
      kind,
      eventFilters,
      primaryEventFilters,
      stealthFilter,
      statusSubresource,
      reflector,
      fieldSelector,
      shardSelector,
      whenCrdMissing,
      crdPollIntervalMs,
      optimisticLocking,
      primaryWrites,
      workflow,
      namespaceSelector,
      writes,
      inspection,
      cacheBound,
      ...rest
    } = options;
    if (namespaceSelector !== undefined && rest.namespaces !== undefined) {
      throw new TypeError(
        `controller ${rest.name ?? `${kind.plural}.${kind.group || 'core'}`}: namespaces and namespaceSelector exclude each other; ` +
          `keep namespaceSelector to follow labelled namespaces, or namespaces for a fixed list`,
      );
    }
    const crdPolicy = validateCrdPolicy(whenCrdMissing, crdPollIntervalMs, kind);
    this.#statusSubresource = statusSubresource ?? true;
    this.kind = kind;
    this.configuration = controllerConfiguration({
      name: rest.name ?? `${kind.plural}.${kind.group || 'core'}`,
      primaryType: kind.name,
      ...rest,
    });
    this.name = this.configuration.name;
    this.#logger = (observability.logger ?? noopLogger).child({ controller: this.name, kind: kind.kind });
    this.inspection = resolveInspection(inspection ?? observability.inspection, `controller ${this.name}`);
    // Debug lines name their causes: kept for them too, while the logger writes them.
    const causesKept = this.inspection || this.#logger.isLevelEnabled?.('debug') !== false;
    this.#reconciler = reconciler;
    this.#client = client;
    this.#workflow = workflow;
    this.#writes = declaredWrites(`controller ${this.name}`, writes);
    this.#finalizer =
      reconciler.cleanup || workflow?.needsCleanup
        ? (this.configuration.finalizerName ?? `${kind.plural}.${kind.group || 'core'}/finalizer`)
        : undefined;
    this.#eventFilters = eventFilters ?? [];
    const filters = [
      ...(this.configuration.generationAware ? [generationAwarePredicate<P>()] : []),
      ...(this.#eventFilters as readonly Predicate<P>[]),
      ...(primaryEventFilters ?? []),
    ];
    const informers = InformerRegistry.of(client);
    this.#namespaceSelection =
      namespaceSelector === undefined
        ? undefined
        : new NamespaceSelection({
            owner: `controller ${this.name}`,
            labelSelector: namespaceSelector,
            kubeConfig: client.kubeConfig,
            registry: informers,
          });
    this.#shards =
      typeof shardSelector === 'string' ? (shardSelector === '' ? undefined : ShardSelector.parse(shardSelector)) : shardSelector;
    this.primaryCache = new InformerCache<P>({
      name: `controller ${this.name}`,
      shardSelector: this.#shards,
      kubeConfig: client.kubeConfig,
      registry: informers,
      kind,
      // With a selector, nothing is watched until the selection has listed the namespaces.
      namespaces: this.#namespaceSelection === undefined ? this.configuration.namespaces : [],
      ...(this.configuration.labelSelector ? { labelSelector: this.configuration.labelSelector } : {}),
      ...(fieldSelector ? { fieldSelector } : {}),
      ...(reflector ? { reflector } : {}),
      ...(cacheBound !== undefined ? { bound: cacheBound } : {}),
    });
    this.#ledger = new PrimaryLedger(this.primaryCache, this.#finalizer);
    const onProblem = (error: unknown): void => this.#events.problem(PRIMARY_SOURCE_NAME, error);
    const visibility = new PrimaryVisibility<P>(this.#finalizer, stealthFilter, onProblem);
    this.#primary = new ControllerEventSource<P>({
      cache: this.primaryCache,
      ledger: this.#ledger,
      visibility,
      filter: and(...filters),
      namespaceSelector: this.#namespaceSelection?.labelSelector,
    });
    this.#dispatcher = new ReconciliationDispatcher<P>({
      name: this.name,
      kind,
      reconciler,
      client,
      writer: new PrimaryWriter<P>(client, kind, () => statusSubresource ?? true, optimisticLocking ?? false, primaryWrites),
      workflow,
      finalizer: this.#finalizer,
      ledger: this.#ledger,
      visibility,
      primaryCache: this.primaryCache,
      sources: () => this.#lifecycle.sources,
      logger: this.#logger,
      eventBroadcaster: observability.events,
      events: this.#events,
      abortInFlight: (key, reason) => this.#lifecycle.processor?.abortInFlight(key, reason),
      inspection: this.inspection,
      causesKept,
    });
    registerControllerInternals<P>(this, this.#dispatcher);
    this.events$ = this.#events.events$;
    this.problems$ = this.#events.problems$;
    this.reconciled$ = this.#events.reconciled$;
    this.#health = new BehaviorSubject<EventSourceHealth>({ source: PRIMARY_SOURCE_NAME, status: 'starting' });
    this.health$ = this.#health.asObservable();
    this.#lifecycle = new ControllerLifecycle<P>({
      name: this.name,
      configuration: this.configuration,
      client,
      logger: this.#logger,
      crdPolicy,
      namespaceSelection: this.#namespaceSelection,
      queueMetrics: observability.queueMetrics,
      causesKept,
      dispatcher: this.#dispatcher,
      primary: this.#primary,
      health: this.#health,
      events: this.#events,
      prepareEventSources: () => this.prepareEventSources(),
      changeNamespaces: (namespaces) => this.changeNamespaces(namespaces),
    });
  }

  /**
   * Calls `listener` with each processing step (enqueued, started, finished, retries exhausted,
   * ...), unwrapped, by a direct call: how metrics and logs follow the controller beside the
   * path, without every step building an `events$` wrapper. The listener must not throw.
   * @returns the function that removes it.
   * @example
   * ```ts
   * import type { Controller } from '@kindex/informer';
   * declare const controller: Controller;
   *
   * const stop = controller.onProcessingEvent((e) => e.type === 'finished' && console.log(e.key, e.durationMs));
   * stop();
   * ```
   */
  onProcessingEvent(listener: (event: ProcessingEvent) => void): () => void {
    return this.#events.onProcessing(listener);
  }

  /**
   * Calls `listener` with each problem the controller moves past (a source's, a filter's, a
   * cache's) and the name of the source it came from, by a direct call.
   * @returns the function that removes it.
   * @example
   * ```ts
   * import type { Controller } from '@kindex/informer';
   * declare const controller: Controller;
   *
   * controller.onProblem((source, error) => console.warn(`${source}:`, error));
   * ```
   */
  onProblem(listener: (source: string, error: unknown) => void): () => void {
    return this.#events.onProblem(listener);
  }

  /** The event sources the reconciler prepared (available after start). */
  get eventSources(): readonly EventSource<unknown, P>[] {
    return this.#lifecycle.sources;
  }

  /** The label selector on Namespace objects choosing the namespaces, if the controller has one. */
  get namespaceSelector(): string | undefined {
    return this.#namespaceSelection?.labelSelector;
  }

  /** The event processor (available after start), for inspection. */
  get processor(): EventProcessor | undefined {
    return this.#lifecycle.processor;
  }

  /** What the controller writes to its primaries (status subresource, finalizer), for the RBAC listing. */
  get primaryWrites(): { readonly statusSubresource: boolean; readonly finalizer: string | undefined } {
    return { statusSubresource: this.#statusSubresource, finalizer: this.#finalizer };
  }

  /** The managed workflow's dependents (kindex applies and deletes them), for the RBAC listing. */
  get dependents(): readonly Pick<Workflow['dependents'][number], 'name' | 'kind' | 'ownedByPrimary' | 'cluster'>[] {
    return this.#workflow?.dependents ?? [];
  }

  /** The kinds declared with the `writes` option, defaults filled in, for the RBAC listing. */
  get declaredWrites(): readonly DeclaredWrite[] {
    return this.#writes;
  }

  /**
   * The event sources the reconciler prepares, prepared once: `start()` and the RBAC listing
   * share them, so preparing never runs twice.
   */
  prepareEventSources(): Promise<readonly EventSource<unknown, P>[]> {
    this.#prepared ??= (async () => {
      const context: KubeEventSourceContext<P> = {
        primaryCache: this.primaryCache,
        client: this.#client,
        configuration: this.configuration,
        eventFilters: this.#eventFilters,
        shardSelector: this.#shards,
      };
      const sources = [
        ...((await this.#reconciler.prepareEventSources?.(context)) ?? []),
        ...(this.#workflow?.dependents.map((d) => d.eventSource(context)) ?? []),
      ];
      const names = new Set<string>([PRIMARY_SOURCE_NAME]);
      for (const s of sources) {
        if (names.has(s.name)) throw new Error(`controller ${this.name}: two event sources are named ${JSON.stringify(s.name)}`);
        names.add(s.name);
      }
      return sources;
    })();
    return this.#prepared;
  }

  /**
   * Prepares the event sources, starts and syncs every cache, then starts reconciling: the first
   * reconcile of any primary sees complete secondary caches and reverse indexes.
   *
   * @throws {CacheSyncError} at once when a cache's list is refused for good (400/401/403/404),
   *   naming the controller, the event source, the kind, the namespace, the verb and the fix.
   * @throws {CacheSyncTimeoutError} when caches have not synced within `cacheSyncTimeoutMs`.
   * @throws {StartAbortedError} when `stop()` is called or `signal` aborts before the start ends.
   * After any of these the controller's caches are stopped again.
   */
  async start(options: StartOptions = {}): Promise<void> {
    await this.#lifecycle.start(options);
  }

  /** Whether reconciles are held back (see {@link Controller.pauseDispatch}). */
  get dispatchPaused(): boolean {
    return this.#lifecycle.dispatchPaused;
  }

  /**
   * Holds reconciles back while caches and queues stay current: a follower under leader election
   * (warm standby), or a leader that lost its lease (fencing: `abortReason` aborts in-flight
   * reconciles' signals). May be called before `start()`. Idempotent.
   */
  pauseDispatch(abortReason?: unknown): void {
    this.#lifecycle.pauseDispatch(abortReason);
  }

  /** Reconciles again after {@link Controller.pauseDispatch}, starting with what queued meanwhile. */
  resumeDispatch(): void {
    this.#lifecycle.resumeDispatch();
  }

  /** Stops listening, drains in-flight reconciles, stops the sources and caches. A start in progress rejects. */
  async stop(options: { drainTimeoutMs?: number } = {}): Promise<void> {
    STOP_OPTIONS.check(options, `controller ${this.name} stop options`);
    await this.#lifecycle.stop(options);
    this.#health.next({ source: PRIMARY_SOURCE_NAME, status: 'stopped' });
    this.#events.complete();
    this.#logger.info('controller stopped');
  }

  /**
   * What the controller knows about one primary now: whether it is cached, the causes waiting
   * for its next reconcile, and its last reconcile (why it ran, how it ended). Causes and last
   * reconciles are kept only while `inspection` is on; off, the answer says so (`hint`).
   */
  describePrimary(id: ResourceID | string): PrimaryDescription {
    const key = typeof id === 'string' ? id : id.key;
    const cached = this.getPrimary(key) !== undefined;
    if (!this.inspection) {
      return { key, cached, inspection: false, hint: inspectionOffHint(this.name), pending: undefined, lastReconcile: undefined };
    }
    const dueAt = this.#lifecycle.processor?.maxIntervalDueAt(key);
    return {
      key,
      cached,
      inspection: true,
      pending: this.#lifecycle.processor?.pendingCauses(key),
      lastReconcile: this.#dispatcher.lastReconcile(key),
      ...(dueAt !== undefined ? { maxIntervalReconcileAt: new Date(dueAt).toISOString() } : {}),
    };
  }

  /**
   * Changes the namespaces of the controller at run time, and of every event source that
   * inherits them. New namespaces sync before this resolves; removed ones leave the caches
   * without reconciles.
   *
   * Order matters for what a reconcile may see: removed namespaces leave the primary cache
   * first (no primary there is reconciled against half-emptied secondaries), then the sources
   * change, and only then do added namespaces join the primary cache, so their primaries are
   * reconciled once, against secondaries that have synced (source events about primaries not
   * yet cached reconcile nothing).
   */
  async changeNamespaces(namespaces: NamespaceSet): Promise<void> {
    const before = this.primaryCache.namespaces;
    if (namespaces !== 'all') {
      const kept = before === 'all' ? namespaces : before.filter((ns) => namespaces.includes(ns));
      if (before === 'all' || kept.length < before.length) await this.#primary.changeNamespaces(kept);
    }
    await Promise.all(this.#lifecycle.inheritingSources().map((s) => s.changeNamespaces(namespaces)));
    await this.#primary.changeNamespaces(namespaces);
  }

  /** The shard selector of the primaries now, if any. */
  get shardSelector(): ShardSelector | undefined {
    return this.#shards;
  }

  /**
   * Changes the shard ranges of the primaries at run time, and of every event source that
   * inherits them (see the `shardSelector` option). The new ranges sync before this
   * resolves; primaries that left leave the caches without reconciles, new ones are reconciled.
   */
  async changeShardSelector(selector: ShardSelector | undefined): Promise<void> {
    this.#shards = selector;
    await Promise.all([
      this.#primary.changeShardSelector(selector),
      ...this.#lifecycle.sources.flatMap((s) =>
        s.inheritsShardSelector === true && s.changeShardSelector !== undefined
          ? [s.changeShardSelector(inheritedShardSelector(selector))]
          : [],
      ),
    ]);
  }

  /** The primary as the next reconcile would see it: cached, or newer from our own write. */
  getPrimary(id: ResourceID | string): P | undefined {
    const key = typeof id === 'string' ? id : id.key;
    return this.#ledger.get(key);
  }
}
