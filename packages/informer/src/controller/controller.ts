/**
 * The controller stage: one reconciler, its primary cache, its event sources and the event
 * processor, wired to the API server (JOSDK's Controller and ReconciliationDispatcher).
 *
 * Per reconcile: the primary is read from the primary cache, overlaid with the controller's own
 * latest write (read-after-write); the finalizer is added before the first `reconcile` when the
 * reconciler has `cleanup`; a primary marked for deletion gets `cleanup` instead, and the
 * finalizer is removed when it says so; the returned control is written as JSON patch diffs of
 * status and resource; failures retry, and exhausted retries call `updateErrorStatus`.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { BehaviorSubject, Subject, Subscription, type Observable } from 'rxjs';
import {
  and,
  controllerConfiguration,
  DefaultContext,
  DeleteControl,
  evaluate,
  EventProcessor,
  noopLogger,
  stealthTransition,
  ResourceID,
  type ControllerConfiguration,
  type DispatchRequest,
  type DispatchResult,
  type EventSource,
  type EventSourceHealth,
  type EventTransform,
  type KubernetesObject,
  type Logger,
  type Predicate,
  type Reconciler,
  type ErrorStatusUpdateControl,
  type ResourceEvent,
  type RetryInfo,
  type Trigger,
  rejectUnknownOptions,
  ShardSelector,
} from '@kindex/core';
import { InformerCache, isScopeRemoval, type CacheDeltaOrigin, type NamespaceSet } from '../cache/informer-cache.js';
import type { KubeClient } from '../client/kube-client.js';
import type { Workflow } from '../dependent/workflow.js';
import type { ResourceKind } from '../kind/resource-kind.js';
import { inheritedShardSelector, type KubeEventSourceContext } from '../source/informer-event-source.js';
import { isKubeEventSource, type KubeEventSource } from '../source/kube-event-source.js';
import { causesForLog } from '../logging/reconcile-log.js';
import { LazyChildLogger } from '../logging/lazy-child-logger.js';
import type { ControllerObservability, PrimaryDescription, ReconcileRecord, ReconcileSkipReason } from './controller-observability.js';
import { generationAwarePredicate } from './generation-aware-predicate.js';
import { PrimaryWriter } from './primary-writer.js';
import { TemporaryResourceCache } from '../dependent/temporary-resource-cache.js';
import { declaredWrites, type DeclaredWrite } from './written-resource.js';
import { openGet, readBody } from '../reflector/internal/kube-request.js';
import { ApiRequestError } from '../reflector/reflector-error.js';
import { collectionPath } from '../reflector/resource-type.js';
import { CacheSyncError, CacheSyncTimeoutError, StartAbortedError, type PendingSync } from '../startup/startup-errors.js';
import { DEFAULT_CACHE_SYNC_TIMEOUT_MS, START_OPTION_KEYS, validateCacheSyncTimeout, type StartOptions } from '../startup/start-options.js';
import { NamespaceSelection } from '../namespace-selector/namespace-selection.js';
import { unchangedPriority } from '../source/unchanged-priority.js';
import { CONTROLLER_OPTION_KEYS, STOP_OPTION_KEYS, validateCrdPolicy, type ControllerOptions } from './controller-options.js';
import { NAMESPACE_SELECTOR_SOURCE_NAME, PRIMARY_SOURCE_NAME, type ControllerEvent } from './controller-event.js';

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
  readonly health$: Observable<EventSourceHealth>;

  readonly #reconciler: Reconciler<P, KubeClient>;
  readonly #client: KubeClient;
  readonly #written = new TemporaryResourceCache<P>();
  /**
   * Primaries that vanished while still carrying our finalizer (force-deleted, or deleted while
   * we were not looking): their last known state, for one `cleanup` with the final state unknown.
   */
  readonly #tombstones = new Map<string, { primary: P; stateUnknown: boolean }>();
  /**
   * Primaries whose finalizer we removed after a completed `cleanup` (key to uid). The DELETED
   * event that follows carries the object as stored before the delete, finalizer included, and
   * must not read as "cleanup never finished": whichever of that event and the removal write's
   * response comes first, cleanup has run once and must not run again.
   */
  readonly #cleanedUp = new Map<string, string | undefined>();
  readonly #writer: PrimaryWriter<P>;
  readonly #events = new Subject<ControllerEvent>();
  readonly #health: BehaviorSubject<EventSourceHealth>;
  readonly #primaryTriggers = new Subject<Trigger>();
  readonly #filter: Predicate<P>;
  readonly #stealthFilter: Predicate<P> | undefined;
  readonly #stealth: EventTransform<P> | undefined;
  readonly #eventFilters: readonly Predicate<KubernetesObject>[];
  #shards: ShardSelector | undefined;
  #dispatchGuard: ((primary: P) => boolean) | undefined;
  #primaryFence: ((primary: P) => void) | undefined;
  /** Primaries being reconciled now, by key: what a shard release waits for. */
  readonly #inFlight = new Map<string, P>();
  /** Running reconciles whose shard was lost, with the error: what they return is not written. */
  readonly #shardLost = new Map<string, unknown>();
  readonly #finalizer: string | undefined;
  readonly #workflow: Workflow<P> | undefined;
  readonly #writes: readonly DeclaredWrite[];
  readonly #namespaceSelection: NamespaceSelection | undefined;
  #sources: EventSource<unknown, P>[] = [];
  #prepared: Promise<EventSource<unknown, P>[]> | undefined;
  readonly #crdPolicy: { readonly wait: boolean; readonly pollIntervalMs: number };
  readonly #statusSubresource: boolean;
  /** Ends the start in progress (reason: 'stopped', 'aborted', 'timeout' or 'failed'). */
  #startAbort: AbortController | undefined;
  #stopRequested = false;
  /** Per primary namespace: the last error its informer reported, and the ones failing now. */
  readonly #lastPrimaryErrors = new Map<string, Error | undefined>();
  readonly #failingNamespaces = new Map<string, Error>();
  #processor: EventProcessor | undefined;
  #subscriptions: Subscription[] = [];
  readonly #logger: Logger;
  readonly #queueMetrics: ControllerObservability['queueMetrics'];
  readonly #eventBroadcaster: ControllerObservability['events'];
  /** The last reconcile of each primary (dropped with the primary), for `describePrimary`. */
  readonly #lastReconciles = new Map<string, ReconcileRecord>();
  #dispatchPaused = false;

  constructor(
    reconciler: Reconciler<P, KubeClient>,
    options: ControllerOptions<P>,
    client: KubeClient,
    observability: ControllerObservability = {},
  ) {
    if (options === null || typeof options !== 'object' || options.kind === undefined) {
      throw new TypeError('Controller: options must be an object with the primary kind, for example { kind: Kinds.ConfigMap }');
    }
    rejectUnknownOptions(
      `controller ${options.name ?? `${options.kind.plural}.${options.kind.group || 'core'}`} options`,
      options,
      CONTROLLER_OPTION_KEYS,
    );
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
      ...rest
    } = options;
    if (namespaceSelector !== undefined && rest.namespaces !== undefined) {
      throw new TypeError(
        `controller ${rest.name ?? `${kind.plural}.${kind.group || 'core'}`}: namespaces and namespaceSelector exclude each other; ` +
          `keep namespaceSelector to follow labelled namespaces, or namespaces for a fixed list`,
      );
    }
    this.#crdPolicy = validateCrdPolicy(whenCrdMissing, crdPollIntervalMs, kind);
    this.#statusSubresource = statusSubresource ?? true;
    this.kind = kind;
    this.configuration = controllerConfiguration({
      name: rest.name ?? `${kind.plural}.${kind.group || 'core'}`,
      primaryType: kind.name,
      ...rest,
    });
    this.name = this.configuration.name;
    this.#logger = (observability.logger ?? noopLogger).child({ controller: this.name, kind: kind.kind });
    this.#queueMetrics = observability.queueMetrics;
    this.#eventBroadcaster = observability.events;
    this.#reconciler = reconciler;
    this.#client = client;
    this.#writer = new PrimaryWriter<P>(client, kind, () => statusSubresource ?? true, optimisticLocking ?? false, primaryWrites);
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
    this.#filter = and(...filters);
    this.#stealthFilter = stealthFilter;
    this.#stealth = stealthFilter === undefined ? undefined : stealthTransition(stealthFilter);
    this.#namespaceSelection =
      namespaceSelector === undefined
        ? undefined
        : new NamespaceSelection({
            owner: `controller ${this.name}`,
            labelSelector: namespaceSelector,
            kubeConfig: client.kubeConfig,
            registry: client.registry,
          });
    this.#shards =
      typeof shardSelector === 'string' ? (shardSelector === '' ? undefined : ShardSelector.parse(shardSelector)) : shardSelector;
    this.primaryCache = new InformerCache<P>({
      name: `controller ${this.name}`,
      shardSelector: this.#shards,
      kubeConfig: client.kubeConfig,
      registry: client.registry,
      kind,
      // With a selector, nothing is watched until the selection has listed the namespaces.
      namespaces: this.#namespaceSelection === undefined ? this.configuration.namespaces : [],
      ...(this.configuration.labelSelector ? { labelSelector: this.configuration.labelSelector } : {}),
      ...(fieldSelector ? { fieldSelector } : {}),
      ...(reflector ? { reflector } : {}),
    });
    this.events$ = this.#events.asObservable();
    this.#health = new BehaviorSubject<EventSourceHealth>({ source: PRIMARY_SOURCE_NAME, status: 'starting' });
    this.health$ = this.#health.asObservable();
  }

  /** The event sources the reconciler prepared (available after start). */
  get eventSources(): readonly EventSource<unknown, P>[] {
    return this.#sources;
  }

  /** The label selector on Namespace objects choosing the namespaces, if the controller has one. */
  get namespaceSelector(): string | undefined {
    return this.#namespaceSelection?.labelSelector;
  }

  /** The event processor (available after start), for inspection. */
  get processor(): EventProcessor | undefined {
    return this.#processor;
  }

  /** What the controller writes to its primaries (status subresource, finalizer), for the RBAC listing. */
  get primaryWrites(): { readonly statusSubresource: boolean; readonly finalizer: string | undefined } {
    return { statusSubresource: this.#statusSubresource, finalizer: this.#finalizer };
  }

  /** The managed workflow's dependents (kindex applies and deletes them), for the RBAC listing. */
  get dependents(): readonly { readonly kind: ResourceKind<KubernetesObject>; readonly ownedByPrimary: boolean }[] {
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
    rejectUnknownOptions(`controller ${this.name} start options`, options, START_OPTION_KEYS);
    const timeoutMs = validateCacheSyncTimeout(options.cacheSyncTimeoutMs, `controller ${this.name}`) ?? DEFAULT_CACHE_SYNC_TIMEOUT_MS;
    const target = `controller ${JSON.stringify(this.name)}`;
    if (this.#stopRequested) throw new StartAbortedError(target, 'stopped');
    if (options.signal?.aborted) throw new StartAbortedError(target, 'aborted', { cause: options.signal.reason });
    if (this.#crdPolicy.wait) {
      const missing = await this.#probeKind(options.signal);
      if (missing !== undefined) {
        this.#health.next({ source: PRIMARY_SOURCE_NAME, status: 'starting', error: missing });
        this.#events.next({ type: 'problem', source: PRIMARY_SOURCE_NAME, error: missing });
        void this.#startWhenServed(timeoutMs);
        return;
      }
    }
    await this.#startNow(timeoutMs, options.signal);
  }

  /** Undefined when the primary kind is served, else the 404 as a CacheSyncError. */
  async #probeKind(signal: AbortSignal | undefined): Promise<CacheSyncError | undefined> {
    const namespaces = this.primaryCache.namespaces;
    const namespace = this.kind.namespaced && namespaces !== 'all' ? namespaces[0] : undefined;
    try {
      const open = await openGet(
        this.#client.kubeConfig,
        collectionPath(this.kind, namespace),
        { limit: '1' },
        30_000,
        signal ?? new AbortController().signal,
      );
      try {
        await readBody(open);
      } finally {
        open.close();
      }
      return undefined;
    } catch (error) {
      // Only "not served" waits; anything else goes to the normal start, which fails fast or retries.
      if (error instanceof ApiRequestError && error.status === 404) {
        const explained = this.primaryCache.explain(namespace ?? '', error, 'startup');
        return explained instanceof CacheSyncError
          ? explained.withContext({ controller: this.name, eventSource: PRIMARY_SOURCE_NAME })
          : undefined;
      }
      return undefined;
    }
  }

  /** Polls until the primary kind is served, then starts; failures land in health and events$. */
  async #startWhenServed(timeoutMs: number): Promise<void> {
    const waiting = new AbortController();
    this.#startAbort = waiting;
    while (!waiting.signal.aborted) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, this.#crdPolicy.pollIntervalMs);
        function done(): void {
          clearTimeout(timer);
          waiting.signal.removeEventListener('abort', done);
          resolve();
        }
        waiting.signal.addEventListener('abort', done, { once: true });
      });
      if (waiting.signal.aborted) return;
      const missing = await this.#probeKind(waiting.signal);
      if (waiting.signal.aborted) return;
      if (missing !== undefined) continue;
      try {
        await this.#startNow(timeoutMs, undefined);
      } catch (error) {
        if (!this.#stopRequested) this.#events.next({ type: 'problem', source: PRIMARY_SOURCE_NAME, error });
      }
      return;
    }
  }

  async #startNow(timeoutMs: number, signal: AbortSignal | undefined): Promise<void> {
    const target = `controller ${JSON.stringify(this.name)}`;
    const ends = new AbortController();
    this.#startAbort = ends;
    let pendingAtTimeout: PendingSync[] = [];
    const settled = new Set<EventSource<unknown, P>>();
    const timer = setTimeout(() => {
      // Read what is pending before aborting: aborted caches stop and forget it.
      pendingAtTimeout = this.#pendingSync(settled);
      ends.abort('timeout');
    }, timeoutMs);
    const onAbort = (): void => ends.abort('aborted');
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await this.#startCaches(ends.signal, settled);
    } catch (error) {
      const reason: unknown = ends.signal.reason;
      if (!ends.signal.aborted) ends.abort('failed');
      let failure: unknown = error;
      if (error instanceof CacheSyncError)
        failure = error.withContext({ controller: this.name, eventSource: error.eventSource ?? PRIMARY_SOURCE_NAME });
      else if (reason === 'timeout') failure = new CacheSyncTimeoutError(this.name, timeoutMs, pendingAtTimeout);
      else if (reason === 'stopped' || this.#stopRequested) failure = new StartAbortedError(target, 'stopped');
      else if (reason === 'aborted') failure = new StartAbortedError(target, 'aborted', { cause: signal?.reason });
      await this.#abandonStart(failure);
      throw failure;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
    if (this.#stopRequested) {
      // stop() came while the last cache was syncing: never report healthy, never reconcile.
      const failure = new StartAbortedError(target, 'stopped');
      await this.#abandonStart(failure);
      throw failure;
    }
    this.#health.next({ source: PRIMARY_SOURCE_NAME, status: 'healthy' });
    this.#processor!.start();
    this.#logger.info({ workers: this.configuration.concurrency }, 'caches synced, reconciling');
  }

  async #startCaches(signal: AbortSignal, settled: Set<EventSource<unknown, P>>): Promise<void> {
    this.#sources = [...(await this.prepareEventSources())];
    if (signal.aborted) throw new StartAbortedError(`controller ${JSON.stringify(this.name)}`, 'aborted');
    const processor = new EventProcessor({
      ...this.configuration,
      name: this.name,
      ...(this.#queueMetrics !== undefined ? { queueMetrics: this.#queueMetrics } : {}),
      dispatch: (key, request) => this.#observedDispatch(key, request),
      onRetriesExhausted: (key, error, info) => this.#onRetriesExhausted(key, error, info.retryInfo),
    });
    this.#processor = processor;
    if (this.#dispatchPaused) processor.pause();
    this.#subscriptions.push(
      processor.events$.subscribe((event) => this.#events.next({ type: 'processing', event })),
      processor.triggers$.subscribe((trigger) => this.#events.next({ type: 'trigger', trigger })),
      new Subscription(this.primaryCache.onDelta((delta, origin) => this.#onPrimaryDelta(delta, origin))),
      this.primaryCache.errors$.subscribe((error) => this.#events.next({ type: 'problem', source: PRIMARY_SOURCE_NAME, error })),
      ...(this.#namespaceSelection === undefined
        ? []
        : [
            this.#namespaceSelection.cache.errors$.subscribe((error) =>
              this.#events.next({ type: 'problem', source: NAMESPACE_SELECTOR_SOURCE_NAME, error }),
            ),
          ]),
      this.primaryCache.health$.subscribe(({ namespace, health }) => this.#onPrimaryHealth(namespace, health)),
    );
    for (const s of this.#sources) {
      if (isKubeEventSource(s)) {
        this.#subscriptions.push(s.problems$.subscribe((p) => this.#events.next({ type: 'problem', source: p.source, error: p.error })));
      }
      processor.addSource(s);
    }
    this.#subscriptions.push(processor.events$.subscribe((e) => e.type === 'dropped' && this.#lastReconciles.delete(e.key)));
    processor.addSource(this.#primaryTriggers);
    this.#logger.info(
      { sources: this.#sources.map((s) => s.name), namespaces: this.configuration.namespaces },
      'starting controller, waiting for caches to sync',
    );
    const aborted = new Promise<never>((_, reject) => {
      const fail = (): void => reject(new StartAbortedError(`controller ${JSON.stringify(this.name)}`, 'aborted'));
      if (signal.aborted) fail();
      else signal.addEventListener('abort', fail, { once: true });
    });
    aborted.catch(() => undefined);
    const selection = this.#namespaceSelection;
    if (selection !== undefined) {
      let selected: readonly string[];
      try {
        selected = await Promise.race([selection.start({ signal }), aborted]);
      } catch (error) {
        throw error instanceof CacheSyncError ? error.withContext({ eventSource: NAMESPACE_SELECTOR_SOURCE_NAME }) : error;
      }
      // Not started yet: these only set what the caches will watch.
      await this.primaryCache.setNamespaces(selected);
      await Promise.all(this.#inheritingSources().map((s) => s.changeNamespaces(selected)));
      this.#logger.info({ labelSelector: selection.labelSelector, namespaces: selected }, 'namespaces selected');
    }
    const startSource = async (s: EventSource<unknown, P>): Promise<void> => {
      // Sources of other kinds take no signal: the race below ends the wait for them.
      await Promise.race([isKubeEventSource(s) ? s.start({ signal }) : s.start(), aborted]);
      settled.add(s);
    };
    await Promise.all([this.primaryCache.start({ signal }), ...this.#sources.map(startSource)]);
    selection?.follow(
      async (namespaces) => {
        this.#logger.info({ labelSelector: selection.labelSelector, namespaces }, 'selected namespaces changed');
        await this.changeNamespaces(namespaces);
      },
      (error) => this.#events.next({ type: 'problem', source: NAMESPACE_SELECTOR_SOURCE_NAME, error }),
    );
  }

  /** The informer event sources that follow the controller's namespaces. */
  #inheritingSources(): KubeEventSource<KubernetesObject, P>[] {
    return this.#sources.filter((s) => isKubeEventSource(s)).filter((s) => s.inheritsNamespaces);
  }

  /**
   * Primary informer health after startup: a namespace whose informer met a new error and is not
   * watching is failing (lost access shows with the fix) until it watches again. An old error
   * seen again between two watches (a normal watch timeout) does not count, so health does not
   * flap every few minutes.
   */
  #onPrimaryHealth(namespace: string, health: import('../reflector/reflector-health.js').ReflectorHealth): void {
    const seen = this.#lastPrimaryErrors.get(namespace);
    this.#lastPrimaryErrors.set(namespace, health.lastError?.error);
    if (health.watching) this.#failingNamespaces.delete(namespace);
    else if (health.lastError !== undefined && health.lastError.error !== seen)
      this.#failingNamespaces.set(namespace, health.lastError.error);
    const current = this.#health.value.status;
    if (current === 'starting' || current === 'stopped') return;
    const failing = this.#failingNamespaces.entries().next().value;
    if (failing === undefined) {
      if (current !== 'healthy') this.#health.next({ source: PRIMARY_SOURCE_NAME, status: 'healthy' });
      return;
    }
    const [ns, cause] = failing;
    const explained = this.primaryCache.explain(ns, cause, 'running');
    const error =
      explained instanceof CacheSyncError ? explained.withContext({ controller: this.name, eventSource: PRIMARY_SOURCE_NAME }) : explained;
    const previous = this.#health.value.error;
    if (current === 'unhealthy' && previous instanceof Error && previous.message === error.message) return;
    this.#health.next({ source: PRIMARY_SOURCE_NAME, status: 'unhealthy', error });
  }

  #pendingSync(settled: ReadonlySet<EventSource<unknown, P>>): PendingSync[] {
    const pending: PendingSync[] = [];
    const kindOf = (k: { plural: string; group: string; version: string }): string =>
      `${k.plural}${k.group ? `.${k.group}` : ''}/${k.version}`;
    const selection = this.#namespaceSelection?.cache.pendingSync();
    if (selection !== undefined && selection.namespaces.length > 0) {
      pending.push({ eventSource: NAMESPACE_SELECTOR_SOURCE_NAME, kind: 'namespaces/v1', ...selection });
    }
    const primary = this.primaryCache.pendingSync();
    if (primary.namespaces.length > 0) pending.push({ eventSource: PRIMARY_SOURCE_NAME, kind: kindOf(this.kind), ...primary });
    for (const s of this.#sources) {
      if (settled.has(s)) continue;
      if (isKubeEventSource(s)) {
        const p = s.cache.pendingSync();
        if (p.namespaces.length > 0) pending.push({ eventSource: s.name, kind: kindOf(s.cache.kind), ...p });
      } else {
        pending.push({ eventSource: s.name, kind: String(s.resourceType?.name ?? 'unknown'), namespaces: [], lastError: undefined });
      }
    }
    return pending;
  }

  /** Undoes a failed start: stops sources and caches; health turns unhealthy with the failure. */
  async #abandonStart(failure: unknown): Promise<void> {
    await this.#processor?.stop();
    await this.#namespaceSelection?.stop();
    await Promise.all([...this.#sources.map((s) => s.stop()), this.primaryCache.stop()]);
    for (const s of this.#subscriptions) s.unsubscribe();
    this.#subscriptions = [];
    if (!this.#stopRequested) this.#health.next({ source: PRIMARY_SOURCE_NAME, status: 'unhealthy', error: failure });
  }

  /** Whether reconciles are held back (see {@link Controller.pauseDispatch}). */
  get dispatchPaused(): boolean {
    return this.#dispatchPaused;
  }

  /**
   * Holds reconciles back while caches and queues stay current: a follower under leader election
   * (warm standby), or a leader that lost its lease (fencing: `abortReason` aborts in-flight
   * reconciles' signals). May be called before `start()`. Idempotent.
   */
  pauseDispatch(abortReason?: unknown): void {
    this.#dispatchPaused = true;
    this.#processor?.pause(abortReason);
  }

  /** Reconciles again after {@link Controller.pauseDispatch}, starting with what queued meanwhile. */
  resumeDispatch(): void {
    this.#dispatchPaused = false;
    this.#processor?.resume();
  }

  /** Stops listening, drains in-flight reconciles, stops the sources and caches. A start in progress rejects. */
  async stop(options: { drainTimeoutMs?: number } = {}): Promise<void> {
    rejectUnknownOptions(`controller ${this.name} stop options`, options, STOP_OPTION_KEYS);
    this.#stopRequested = true;
    this.#startAbort?.abort('stopped');
    await this.#processor?.stop(options);
    await this.#namespaceSelection?.stop();
    await Promise.all([...this.#sources.map((s) => s.stop()), this.primaryCache.stop()]);
    for (const s of this.#subscriptions) s.unsubscribe();
    this.#subscriptions = [];
    this.#health.next({ source: PRIMARY_SOURCE_NAME, status: 'stopped' });
    this.#events.complete();
    this.#logger.info('controller stopped');
  }

  /**
   * What the controller knows about one primary now: whether it is cached, the causes waiting
   * for its next reconcile, and its last reconcile (why it ran, how it ended).
   */
  describePrimary(id: ResourceID | string): PrimaryDescription {
    const key = typeof id === 'string' ? id : id.key;
    return {
      key,
      cached: this.getPrimary(key) !== undefined,
      pending: this.#processor?.pendingCauses(key),
      lastReconcile: this.#lastReconciles.get(key),
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
      if (before === 'all' || kept.length < before.length) await this.primaryCache.setNamespaces(kept);
    }
    await Promise.all(this.#inheritingSources().map((s) => s.changeNamespaces(namespaces)));
    await this.primaryCache.setNamespaces(namespaces);
  }

  /**
   * @internal Set by `Operator` under sharding: reconciles run only for primaries it accepts,
   * checked synchronously right before each one.
   */
  setDispatchGuard(guard: ((primary: P) => boolean) | undefined): void {
    this.#dispatchGuard = guard;
  }

  /**
   * @internal Set by `Operator` under sharding: throws to refuse the writes made on behalf of
   * `primary` (its shard is lost). Checked synchronously as each request is about to be sent,
   * through the client each reconcile gets (see {@link KubeClient.withFence}).
   */
  setPrimaryFence(fence: ((primary: P) => void) | undefined): void {
    this.#primaryFence = fence;
  }

  /**
   * The client (handed to the reconcile: its own writes, dependents') and primary writer of the
   * work on one primary. Under sharding both are fenced by the primary's shard, checked as each
   * request is sent: a timer announcing the loss (lost$) can come too late, e.g. when the
   * process resumes from a pause (issue 18 item 1). A reconcile aborted because its shard was
   * lost writes nothing more, even should the shard come back; a shard handed over for a
   * rebalance drains with its writes, since its lease is released only after.
   */
  #writesFor(key: string, primary: P): { readonly client: KubeClient; readonly writer: PrimaryWriter<P> } {
    const fence = this.#primaryFence;
    if (fence === undefined) return { client: this.#client, writer: this.#writer };
    const client = this.#client.withFence(() => {
      if (this.#shardLost.has(key)) throw this.#shardLost.get(key);
      fence(primary);
    });
    return { client, writer: this.#writer.withClient(client) };
  }

  /**
   * @internal Aborts the signals of the running reconciles of primaries matching `belongs` (a
   * lost shard); returns their keys.
   */
  abortReconciles(belongs: (primary: P) => boolean, reason: unknown): string[] {
    const aborted: string[] = [];
    for (const [key, primary] of this.#inFlight) {
      if (!belongs(primary) || this.#shardLost.has(key)) continue;
      this.#shardLost.set(key, reason);
      this.#processor?.abortInFlight(key, reason);
      aborted.push(key);
    }
    return aborted;
  }

  /**
   * @internal Resolves once no reconcile of a primary matching `belongs` is running (polled: a
   * shard release waits for it before handing the shard over).
   */
  async whenIdle(belongs: (primary: P) => boolean, pollMs = 20): Promise<void> {
    while ([...this.#inFlight.values()].some(belongs)) await new Promise((resolve) => setTimeout(resolve, pollMs));
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
      this.primaryCache.setShardSelector(selector),
      ...this.#sources
        .filter((s) => isKubeEventSource(s))
        .filter((s) => s.inheritsShardSelector)
        .map((s) => s.changeShardSelector(inheritedShardSelector(selector))),
    ]);
  }

  /** The primary as the next reconcile would see it: cached, or newer from our own write. */
  getPrimary(id: ResourceID | string): P | undefined {
    const key = typeof id === 'string' ? id : id.key;
    return this.#written.resolve(key, this.primaryCache.peekKey(key));
  }

  #onPrimaryDelta(delta: import('@kindex/core').StoreDelta<P>, origin: CacheDeltaOrigin): void {
    const key = ResourceID.keyOfResource(delta.object);
    if (delta.type === 'delete') {
      this.#written.evict(key);
      const finalizer = this.#finalizer;
      const cleanedUp = this.#cleanedUp.has(key) && this.#cleanedUp.get(key) === delta.object.metadata?.uid;
      this.#cleanedUp.delete(key);
      if (finalizer !== undefined && delta.object.metadata?.finalizers?.includes(finalizer) && !isScopeRemoval(origin) && !cleanedUp) {
        // Cleanup never ran to completion: give it one run on the last known state instead of
        // dropping the primary's work.
        this.#tombstones.set(key, { primary: delta.object, stateUnknown: delta.deleteStateUnknown });
        this.#primaryTriggers.next({
          primaryIds: [ResourceID.parse(key)],
          source: PRIMARY_SOURCE_NAME,
          cause: { type: 'resource', event: 'delete', objectKey: key },
        });
        return;
      }
      this.#primaryTriggers.next({ primaryIds: [ResourceID.parse(key)], source: PRIMARY_SOURCE_NAME, cause: { type: 'primary-deleted' } });
      return;
    }
    this.#tombstones.delete(key);
    if (this.#finalizer !== undefined && !delta.object.metadata?.finalizers?.includes(this.#finalizer)) this.#cleanedUp.delete(key);
    this.#written.onInformerEvent(key, delta.object);
    if (isScopeRemoval(origin)) return;
    const onError = (error: unknown): void => this.#events.next({ type: 'problem', source: PRIMARY_SOURCE_NAME, error });
    let event: ResourceEvent<P> | undefined = delta;
    // A deletion waiting on our finalizer is never hidden: cleanup must run for it to finish.
    if (this.#stealth !== undefined && !this.#awaitsOurCleanup(delta.object)) {
      event = this.#stealth(delta, onError);
      if (event === undefined) return;
      if (event.type === 'delete') {
        // Out of sight, still on the server: forget its pending work, reconcile nothing.
        this.#primaryTriggers.next({
          primaryIds: [ResourceID.parse(key)],
          source: PRIMARY_SOURCE_NAME,
          cause: { type: 'primary-deleted' },
        });
        return;
      }
    }
    if (!evaluate(this.#filter, event, onError)) return;
    const rv = event.object.metadata?.resourceVersion;
    const priority = unchangedPriority(delta.type, origin);
    this.#primaryTriggers.next({
      primaryIds: [ResourceID.parse(key)],
      source: PRIMARY_SOURCE_NAME,
      cause: { type: 'resource', event: event.type, objectKey: key, ...(rv !== undefined ? { resourceVersion: rv } : {}) },
      ...(priority !== undefined ? { priority } : {}),
    });
  }

  /** Whether the primary is marked for deletion and carries our finalizer. */
  #awaitsOurCleanup(primary: P): boolean {
    return (
      this.#finalizer !== undefined &&
      primary.metadata?.deletionTimestamp !== undefined &&
      primary.metadata.finalizers?.includes(this.#finalizer) === true
    );
  }

  /** Whether the stealth filter (if any) lets the controller see the primary. */
  #visible(primary: P): boolean {
    if (this.#stealthFilter === undefined) return true;
    return evaluate(this.#stealthFilter, { type: 'generic', object: primary }, (error) =>
      this.#events.next({ type: 'problem', source: PRIMARY_SOURCE_NAME, error }),
    );
  }

  #context(
    opened: DefaultContext<P, KubeClient>[],
    client: KubeClient,
    primary: P,
    retryInfo: RetryInfo | undefined,
    signal: (() => AbortSignal) | undefined,
    primaryFinalStateUnknown = false,
    logger?: Logger,
  ): DefaultContext<P, KubeClient> {
    const context = new DefaultContext<P, KubeClient>({
      primary,
      eventSources: this.#sources,
      primaryCache: this.primaryCache.snapshot(),
      client,
      retryInfo,
      primaryFinalStateUnknown,
      logger: logger ?? this.#logger.child(namespaceAndName(ResourceID.keyOfResource(primary))),
      ...(this.#eventBroadcaster ? { eventRecorder: this.#eventBroadcaster.recorderFor(this.name, this.kind, primary) } : {}),
      ...(signal ? { signal } : {}),
    });
    // Released when the dispatch that opened it ends (see #dispatch), so the caches stop keeping
    // old versions for it.
    opened.push(context);
    return context;
  }

  /**
   * One reconcile with its id, its log line (naming its causes) and its record for
   * `describePrimary`. The reconciler's own lines share the id through `context.getLogger()`.
   */
  async #observedDispatch(key: string, request: DispatchRequest): Promise<DispatchResult | void> {
    const reconcileID = randomUUID();
    const log = new LazyChildLogger(this.#logger, { ...namespaceAndName(key), reconcileID });
    const started = Date.now();
    const startedAt = new Date(started).toISOString();
    const causes = request.causes;
    // A trigger for a primary the cache does not hold (created and deleted quickly, or a
    // secondary naming a primary that does not exist) runs no reconciler: say so. Records are
    // kept only of primaries that exist, so triggers naming missing ones leave nothing behind.
    const present = this.getPrimary(key) !== undefined || this.#tombstones.has(key);
    if (present) this.#lastReconciles.set(key, { reconcileID, startedAt, causes });
    else this.#lastReconciles.delete(key);
    try {
      const result = await this.#dispatch(key, request, log);
      const durationMs = Date.now() - started;
      if (present) this.#lastReconciles.set(key, { reconcileID, startedAt, causes, result: 'success', durationMs });
      // The line of every reconcile: its fields are built only when debug lines are written.
      if (log.isLevelEnabled('debug')) {
        const rescheduled = result?.rescheduleAfterMs !== undefined ? { rescheduleAfterMs: result.rescheduleAfterMs } : {};
        log.debug(
          { ...reconcileLogFields(request), durationMs, ...rescheduled },
          !present
            ? 'primary not in cache, nothing to reconcile'
            : result?.skipped
              ? `nothing to reconcile (${result.skipped})`
              : 'reconciled',
        );
      }
      return result;
    } catch (error) {
      const durationMs = Date.now() - started;
      const message = error instanceof Error ? error.message : String(error);
      if (present) this.#lastReconciles.set(key, { reconcileID, startedAt, causes, result: 'error', durationMs, error: message });
      log.error({ ...reconcileLogFields(request), durationMs, err: error }, 'reconcile failed');
      throw error;
    }
  }

  /**
   * A managed workflow's cleanup, then the reconciler's: the finalizer comes off only when every
   * dependent the workflow deletes is gone and the reconciler (if it cleans up) agrees.
   */
  async #cleanup(primary: P, context: DefaultContext<P, KubeClient>): Promise<DeleteControl> {
    if (this.#workflow !== undefined) {
      const result = await this.#workflow.cleanup(primary, context);
      result.throwIfFailed();
      // Not gone yet: the dependents' own delete events bring the primary back here.
      if (!result.allReady) return DeleteControl.noFinalizerRemoval();
    }
    return this.#reconciler.cleanup ? this.#reconciler.cleanup(primary, context) : DeleteControl.defaultDelete();
  }

  #remember(written: P | undefined): P | undefined {
    if (written !== undefined) this.#written.put(ResourceID.keyOfResource(written), written);
    return written;
  }

  async #dispatch(key: string, request: DispatchRequest, log: Logger): Promise<DispatchResult | void> {
    // Fencing: a replica that may not write (lost its lease) must not reconcile either.
    this.#client.checkFence();
    const primary = this.getPrimary(key);
    const subject = primary ?? this.#tombstones.get(key)?.primary;
    // Per-primary fencing (sharding): a primary of a shard this replica does not own right now
    // is its owner's to reconcile; checked at the last moment, synchronously.
    if (subject === undefined) return skip('not-cached');
    if (this.#dispatchGuard !== undefined && !this.#dispatchGuard(subject)) return skip('not-owned');
    this.#inFlight.set(key, subject);
    const opened: DefaultContext<P, KubeClient>[] = [];
    try {
      // The signal is made only if the reconciler asks for it.
      return await this.#dispatchOwned(opened, this.#writesFor(key, subject), key, primary, request.retryInfo, () => request.signal, log);
    } finally {
      this.#inFlight.delete(key);
      this.#shardLost.delete(key);
      for (const context of opened) context.release();
    }
  }

  async #dispatchOwned(
    opened: DefaultContext<P, KubeClient>[],
    { client, writer }: { readonly client: KubeClient; readonly writer: PrimaryWriter<P> },
    key: string,
    found: P | undefined,
    retryInfo: RetryInfo | undefined,
    signal: () => AbortSignal,
    log: Logger,
  ): Promise<DispatchResult | void> {
    let primary = found;
    const wrote: ('status' | 'resource' | 'finalizer')[] = [];
    if (primary === undefined) {
      const tombstone = this.#tombstones.get(key);
      if (tombstone === undefined) return skip('not-cached');
      // The primary is gone: nothing to write back, whatever cleanup answers.
      await this.#cleanup(
        tombstone.primary,
        this.#context(opened, client, tombstone.primary, retryInfo, signal, tombstone.stateUnknown, log),
      );
      this.#tombstones.delete(key);
      this.#events.next({ type: 'reconciled', key, control: 'cleanupAfterDeletion', wrote });
      return;
    }
    const finalizer = this.#finalizer;
    // Stealth: triggers from secondaries, timers or retries never reach an invisible primary.
    if (!this.#awaitsOurCleanup(primary) && !this.#visible(primary)) return skip('hidden');
    if (primary.metadata?.deletionTimestamp !== undefined) {
      if (finalizer === undefined || !primary.metadata.finalizers?.includes(finalizer)) return skip('deleting');
      // Cleaned up already (its finalizer is off; the cache has not caught up): exactly once.
      if (this.#cleanedUp.get(key) === primary.metadata.uid && primary.metadata.uid !== undefined) return skip('deleting');
      const control = await this.#cleanup(primary, this.#context(opened, client, primary, retryInfo, signal, false, log));
      if (control.removeFinalizer) {
        client.checkFence();
        this.#onFinalizerRemoved(key, primary, await writer.removeFinalizer(primary, finalizer));
        wrote.push('finalizer');
      }
      this.#events.next({ type: 'reconciled', key, control: control.removeFinalizer ? 'defaultDelete' : 'noFinalizerRemoval', wrote });
      return control.scheduleDelayMs === undefined ? undefined : { rescheduleAfterMs: control.scheduleDelayMs };
    }
    if (finalizer !== undefined && !primary.metadata?.finalizers?.includes(finalizer)) {
      client.checkFence();
      primary = this.#remember(await writer.addFinalizer(primary, finalizer)) ?? primary;
      wrote.push('finalizer');
    }
    const context = this.#context(opened, client, primary, retryInfo, signal, false, log);
    if (this.#workflow !== undefined) (await this.#workflow.reconcile(primary, context)).throwIfFailed();
    const control = await this.#reconciler.reconcile(primary, context);
    if (control.resource !== undefined) client.checkFence();
    if (control.resource !== undefined && (control.kind === 'patchResource' || control.kind === 'patchResourceAndStatus')) {
      const written = this.#remember(await writer.patchResource(primary, control.resource));
      if (written !== undefined) wrote.push('resource');
      primary = written ?? primary;
    }
    if (control.resource !== undefined && (control.kind === 'patchStatus' || control.kind === 'patchResourceAndStatus')) {
      if (this.#remember(await writer.patchStatus(primary, control.resource)) !== undefined) wrote.push('status');
    }
    this.#events.next({ type: 'reconciled', key, control: control.kind, wrote });
    if (control.scheduleDelayMs === undefined) return undefined;
    const priority = control.schedulePriority;
    return { rescheduleAfterMs: control.scheduleDelayMs, ...(priority !== undefined ? { reschedulePriority: priority } : {}) };
  }

  /**
   * Cleanup ran to completion and our finalizer is off. If the DELETED event already came (it
   * left a tombstone and a trigger), the tombstone goes, so the trigger finds nothing to do;
   * otherwise the event, when it comes, finds the primary in `#cleanedUp`. The written object
   * only stands in the read-after-write cache while the primary still exists (other finalizers).
   */
  #onFinalizerRemoved(key: string, primary: P, written: P | undefined): void {
    const uid = primary.metadata?.uid;
    const tombstone = this.#tombstones.get(key);
    if (tombstone !== undefined && tombstone.primary.metadata?.uid === uid) {
      this.#tombstones.delete(key);
      this.#written.evict(key);
      return;
    }
    this.#cleanedUp.set(key, uid);
    // Only a written object without our finalizer stands for the primary: a server that deleted
    // the object may answer with its last stored state, our finalizer still in it, and a reconcile
    // reading that would clean up again.
    const others = written?.metadata?.finalizers;
    if (
      written !== undefined &&
      others !== undefined &&
      others.length > 0 &&
      !others.includes(this.#finalizer ?? '') &&
      this.primaryCache.peekKey(key) !== undefined
    )
      this.#remember(written);
    else this.#written.evict(key);
  }

  async #onRetriesExhausted(key: string, error: unknown, retryInfo: RetryInfo): Promise<void> {
    if (this.#reconciler.updateErrorStatus === undefined) return;
    const primary = this.getPrimary(key);
    if (primary === undefined) return;
    const opened: DefaultContext<P, KubeClient>[] = [];
    const { client, writer } = this.#writesFor(key, primary);
    let control: ErrorStatusUpdateControl<P>;
    try {
      control = await this.#reconciler.updateErrorStatus(primary, this.#context(opened, client, primary, retryInfo, undefined), error);
    } finally {
      for (const context of opened) context.release();
    }
    if (control.resource !== undefined) {
      if (this.#remember(await writer.patchStatus(primary, control.resource)) !== undefined) {
        this.#events.next({ type: 'reconciled', key, control: 'updateErrorStatus', wrote: ['status'] });
      }
    }
  }
}

/** A dispatch that called no reconciler, and why: metrics count it apart from reconciles. */
function skip(reason: ReconcileSkipReason): DispatchResult {
  return { skipped: reason };
}

/** The fields of a reconcile's log line that say why it ran. */
function reconcileLogFields(request: DispatchRequest): object {
  return {
    triggers: request.causes.triggers,
    causes: causesForLog(request.causes),
    ...(request.causes.omitted > 0 ? { causesOmitted: request.causes.omitted } : {}),
    ...(request.retryInfo !== undefined ? { attempt: request.retryInfo.attemptCount + 1 } : {}),
  };
}

/** The `namespace` and `name` log fields of a primary key (`namespace/name` or `name`). */
function namespaceAndName(key: string): { namespace?: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
