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
import { BehaviorSubject, Subject, type Observable, type Subscription } from 'rxjs';
import {
  and,
  controllerConfiguration,
  DefaultContext,
  evaluate,
  EventProcessor,
  ResourceID,
  type ControllerConfiguration,
  type ControllerConfigurationOptions,
  type EventSource,
  type EventSourceHealth,
  type KubernetesObject,
  type Predicate,
  type ProcessingEvent,
  type Reconciler,
  type RetryInfo,
  type Trigger,
} from '@kindex/core';
import { InformerCache, type NamespaceSet } from '../cache/informer-cache.js';
import type { KubeClient } from '../client/kube-client.js';
import type { ResourceKind } from '../kind/resource-kind.js';
import { InformerEventSource, type KubeEventSourceContext } from '../source/informer-event-source.js';
import type { ReflectorOptions } from '../reflector/reflector.js';
import { generationAwarePredicate } from './generation-aware-predicate.js';
import { PrimaryWriter } from './primary-writer.js';
import { TemporaryResourceCache } from './temporary-resource-cache.js';
import { REFLECTOR_TUNING_KEYS, rejectUnknownOptions } from '../config/option-validation.js';

/** How to register a reconciler: the primary kind plus controller configuration. */
export type ControllerOptions<P extends KubernetesObject> = Partial<Omit<ControllerConfigurationOptions, 'primaryType'>> & {
  /** The primary kind. */
  readonly kind: ResourceKind<P>;
  /**
   * Controller-wide event filters: applied to the events of the primary and of every event
   * source built from the controller's context, ANDed with each source's own filters.
   */
  readonly eventFilters?: readonly Predicate<KubernetesObject>[];
  /** Filters on primary events only, ANDed with `eventFilters` and generation awareness. */
  readonly primaryEventFilters?: readonly Predicate<P>[];
  /** Whether the primary kind has a status subresource (status patches go to `/status`). Defaults to true. */
  readonly statusSubresource?: boolean;
  /** Connection tuning of the primary informers. */
  readonly reflector?: Pick<ReflectorOptions<P>, 'pageSize' | 'watchTimeoutSeconds' | 'inactivityTimeoutMs' | 'backoff'>;
  /**
   * Server-side field selector of the primaries (for example `metadata.name=main`): only the
   * matching primaries are listed, watched, cached and reconciled. Reading a primary the selector
   * excludes from the primary cache throws `NotCachedError`, as for event sources.
   */
  readonly fieldSelector?: string;
};

/**
 * Every key of {@link ControllerOptions}: unknown keys passed from JavaScript are rejected, not
 * ignored. `satisfies` makes adding an option without listing it here a compile error.
 */
const CONTROLLER_OPTION_KEYS = {
  kind: true,
  eventFilters: true,
  primaryEventFilters: true,
  statusSubresource: true,
  reflector: true,
  fieldSelector: true,
  name: true,
  namespaces: true,
  labelSelector: true,
  finalizerName: true,
  generationAware: true,
  concurrency: true,
  retry: true,
  rateLimiter: true,
  maxReconciliationIntervalMs: true,
  reconcileTimeoutMs: true,
} as const satisfies Record<keyof ControllerOptions<KubernetesObject>, true>;

/** What happened in a controller, for timelines, logs and tests. */
export type ControllerEvent =
  | { readonly type: 'trigger'; readonly trigger: Trigger }
  | { readonly type: 'processing'; readonly event: ProcessingEvent }
  | { readonly type: 'reconciled'; readonly key: string; readonly control: string; readonly wrote: readonly ('status' | 'resource' | 'finalizer')[] }
  | { readonly type: 'problem'; readonly source: string; readonly error: unknown };

/** Name of the controller's own source of primary events. */
export const PRIMARY_SOURCE_NAME = 'primary';

/**
 * A reconciler running against the API server. Create it through `Operator.register`.
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
  readonly #eventFilters: readonly Predicate<KubernetesObject>[];
  readonly #finalizer: string | undefined;
  #sources: EventSource<unknown, P>[] = [];
  #processor: EventProcessor | undefined;
  #subscriptions: Subscription[] = [];

  constructor(reconciler: Reconciler<P, KubeClient>, options: ControllerOptions<P>, client: KubeClient) {
    if (options === null || typeof options !== 'object' || options.kind === undefined) {
      throw new TypeError('Controller: options must be an object with the primary kind, for example { kind: Kinds.ConfigMap }');
    }
    rejectUnknownOptions(`controller ${options.name ?? `${options.kind.plural}.${options.kind.group || 'core'}`}`, options, CONTROLLER_OPTION_KEYS);
    const { kind, eventFilters, primaryEventFilters, statusSubresource, reflector, fieldSelector, ...rest } = options;
    if (reflector !== undefined) rejectUnknownOptions(`controller ${options.name ?? `${kind.plural}.${kind.group || 'core'}`} reflector`, reflector, REFLECTOR_TUNING_KEYS);
    this.kind = kind;
    this.configuration = controllerConfiguration({
      name: rest.name ?? `${kind.plural}.${kind.group || 'core'}`,
      primaryType: kind.name,
      ...rest,
    });
    this.name = this.configuration.name;
    this.#reconciler = reconciler;
    this.#client = client;
    this.#writer = new PrimaryWriter<P>(client, kind, () => statusSubresource ?? true);
    this.#finalizer = reconciler.cleanup ? (this.configuration.finalizerName ?? `${kind.plural}.${kind.group || 'core'}/finalizer`) : undefined;
    this.#eventFilters = eventFilters ?? [];
    const filters = [
      ...(this.configuration.generationAware ? [generationAwarePredicate<P>()] : []),
      ...(this.#eventFilters as readonly Predicate<P>[]),
      ...(primaryEventFilters ?? []),
    ];
    this.#filter = and(...filters);
    this.primaryCache = new InformerCache<P>({
      name: `controller ${this.name}`,
      kubeConfig: client.kubeConfig,
      registry: client.registry,
      kind,
      namespaces: this.configuration.namespaces,
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

  /** The event processor (available after start), for inspection. */
  get processor(): EventProcessor | undefined {
    return this.#processor;
  }

  /**
   * Prepares the event sources, starts and syncs every cache, then starts reconciling: the first
   * reconcile of any primary sees complete secondary caches and reverse indexes.
   */
  async start(): Promise<void> {
    const context: KubeEventSourceContext<P> = {
      primaryCache: this.primaryCache,
      client: this.#client,
      configuration: this.configuration,
      eventFilters: this.#eventFilters,
    };
    this.#sources = [...((await this.#reconciler.prepareEventSources?.(context)) ?? [])];
    const names = new Set<string>([PRIMARY_SOURCE_NAME]);
    for (const s of this.#sources) {
      if (names.has(s.name)) throw new Error(`controller ${this.name}: two event sources are named ${JSON.stringify(s.name)}`);
      names.add(s.name);
    }
    const processor = new EventProcessor({
      ...this.configuration,
      dispatch: (key, request) => this.#dispatch(key, request.retryInfo, request.signal),
      onRetriesExhausted: (key, error, info) => this.#onRetriesExhausted(key, error, info.retryInfo),
    });
    this.#processor = processor;
    this.#subscriptions.push(
      processor.events$.subscribe((event) => this.#events.next({ type: 'processing', event })),
      processor.triggers$.subscribe((trigger) => this.#events.next({ type: 'trigger', trigger })),
      this.primaryCache.deltas$.subscribe(({ delta, origin }) => this.#onPrimaryDelta(delta, origin)),
      this.primaryCache.errors$.subscribe((error) => this.#events.next({ type: 'problem', source: PRIMARY_SOURCE_NAME, error })),
    );
    for (const s of this.#sources) {
      if (s instanceof InformerEventSource) {
        this.#subscriptions.push(s.problems$.subscribe((p) => this.#events.next({ type: 'problem', source: p.source, error: p.error })));
      }
      processor.addSource(s);
    }
    processor.addSource(this.#primaryTriggers);
    await Promise.all([this.primaryCache.start(), ...this.#sources.map((s) => s.start())]);
    this.#health.next({ source: PRIMARY_SOURCE_NAME, status: 'healthy' });
    processor.start();
  }

  /** Stops listening, drains in-flight reconciles, stops the sources and caches. */
  async stop(options: { drainTimeoutMs?: number } = {}): Promise<void> {
    await this.#processor?.stop(options);
    await Promise.all([...this.#sources.map((s) => s.stop()), this.primaryCache.stop()]);
    for (const s of this.#subscriptions) s.unsubscribe();
    this.#subscriptions = [];
    this.#health.next({ source: PRIMARY_SOURCE_NAME, status: 'stopped' });
    this.#events.complete();
  }

  /**
   * Changes the namespaces of the controller at run time, and of every event source that
   * inherits them. New namespaces sync before this resolves; removed ones leave the caches
   * without reconciles.
   */
  async changeNamespaces(namespaces: NamespaceSet): Promise<void> {
    await Promise.all([
      this.primaryCache.setNamespaces(namespaces),
      ...this.#sources.filter((s): s is InformerEventSource<KubernetesObject, P> => s instanceof InformerEventSource && s.inheritsNamespaces).map((s) => s.changeNamespaces(namespaces)),
    ]);
  }

  /** The primary as the next reconcile would see it: cached, or newer from our own write. */
  getPrimary(id: ResourceID | string): P | undefined {
    const key = typeof id === 'string' ? id : id.key;
    return this.#written.resolve(key, this.primaryCache.snapshot().peek(key));
  }

  #onPrimaryDelta(delta: import('@kindex/core').StoreDelta<P>, origin: string): void {
    const key = ResourceID.keyOfResource(delta.object);
    if (delta.type === 'delete') {
      this.#written.evict(key);
      const finalizer = this.#finalizer;
      const cleanedUp = this.#cleanedUp.has(key) && this.#cleanedUp.get(key) === delta.object.metadata?.uid;
      this.#cleanedUp.delete(key);
      if (finalizer !== undefined && delta.object.metadata?.finalizers?.includes(finalizer) && origin !== 'namespace-removed' && !cleanedUp) {
        // Cleanup never ran to completion: give it one run on the last known state instead of
        // dropping the primary's work.
        this.#tombstones.set(key, { primary: delta.object, stateUnknown: delta.deleteStateUnknown });
        this.#primaryTriggers.next({ primaryIds: [ResourceID.parse(key)], source: PRIMARY_SOURCE_NAME, cause: { type: 'resource', event: 'delete', objectKey: key } });
        return;
      }
      this.#primaryTriggers.next({ primaryIds: [ResourceID.parse(key)], source: PRIMARY_SOURCE_NAME, cause: { type: 'primary-deleted' } });
      return;
    }
    this.#tombstones.delete(key);
    if (this.#finalizer !== undefined && !delta.object.metadata?.finalizers?.includes(this.#finalizer)) this.#cleanedUp.delete(key);
    this.#written.onInformerEvent(key, delta.object);
    if (origin === 'namespace-removed') return;
    if (!evaluate(this.#filter, delta, (error) => this.#events.next({ type: 'problem', source: PRIMARY_SOURCE_NAME, error }))) return;
    const rv = delta.object.metadata?.resourceVersion;
    this.#primaryTriggers.next({
      primaryIds: [ResourceID.parse(key)],
      source: PRIMARY_SOURCE_NAME,
      cause: { type: 'resource', event: delta.type, objectKey: key, ...(rv !== undefined ? { resourceVersion: rv } : {}) },
    });
  }

  #context(primary: P, retryInfo: RetryInfo | undefined, primaryFinalStateUnknown = false): DefaultContext<P, KubeClient> {
    return new DefaultContext<P, KubeClient>({
      primary,
      eventSources: this.#sources,
      primaryCache: this.primaryCache.snapshot(),
      client: this.#client,
      retryInfo,
      primaryFinalStateUnknown,
    });
  }

  #remember(written: P | undefined): P | undefined {
    if (written !== undefined) this.#written.put(ResourceID.keyOfResource(written), written);
    return written;
  }

  async #dispatch(key: string, retryInfo: RetryInfo | undefined, _signal: AbortSignal): Promise<{ rescheduleAfterMs?: number } | void> {
    let primary = this.getPrimary(key);
    const wrote: ('status' | 'resource' | 'finalizer')[] = [];
    if (primary === undefined) {
      const tombstone = this.#tombstones.get(key);
      if (tombstone === undefined) return;
      // The primary is gone: nothing to write back, whatever cleanup answers.
      await this.#reconciler.cleanup!(tombstone.primary, this.#context(tombstone.primary, retryInfo, tombstone.stateUnknown));
      this.#tombstones.delete(key);
      this.#events.next({ type: 'reconciled', key, control: 'cleanupAfterDeletion', wrote });
      return;
    }
    const finalizer = this.#finalizer;
    if (primary.metadata?.deletionTimestamp !== undefined) {
      if (finalizer === undefined || !primary.metadata.finalizers?.includes(finalizer)) return;
      const control = await this.#reconciler.cleanup!(primary, this.#context(primary, retryInfo));
      if (control.removeFinalizer) {
        this.#onFinalizerRemoved(key, primary, await this.#writer.removeFinalizer(primary, finalizer));
        wrote.push('finalizer');
      }
      this.#events.next({ type: 'reconciled', key, control: control.removeFinalizer ? 'defaultDelete' : 'noFinalizerRemoval', wrote });
      return control.scheduleDelayMs === undefined ? undefined : { rescheduleAfterMs: control.scheduleDelayMs };
    }
    if (finalizer !== undefined && !primary.metadata?.finalizers?.includes(finalizer)) {
      primary = this.#remember(await this.#writer.addFinalizer(primary, finalizer)) ?? primary;
      wrote.push('finalizer');
    }
    const control = await this.#reconciler.reconcile(primary, this.#context(primary, retryInfo));
    if (control.resource !== undefined && (control.kind === 'patchResource' || control.kind === 'patchResourceAndStatus')) {
      const written = this.#remember(await this.#writer.patchResource(primary, control.resource));
      if (written !== undefined) wrote.push('resource');
      primary = written ?? primary;
    }
    if (control.resource !== undefined && (control.kind === 'patchStatus' || control.kind === 'patchResourceAndStatus')) {
      if (this.#remember(await this.#writer.patchStatus(primary, control.resource)) !== undefined) wrote.push('status');
    }
    this.#events.next({ type: 'reconciled', key, control: control.kind, wrote });
    return control.scheduleDelayMs === undefined ? undefined : { rescheduleAfterMs: control.scheduleDelayMs };
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
    if (written !== undefined && (written.metadata?.finalizers?.length ?? 0) > 0 && this.primaryCache.peekKey(key) !== undefined) this.#remember(written);
    else this.#written.evict(key);
  }

  async #onRetriesExhausted(key: string, error: unknown, retryInfo: RetryInfo): Promise<void> {
    if (this.#reconciler.updateErrorStatus === undefined) return;
    const primary = this.getPrimary(key);
    if (primary === undefined) return;
    const control = await this.#reconciler.updateErrorStatus(primary, this.#context(primary, retryInfo), error);
    if (control.resource !== undefined) {
      if (this.#remember(await this.#writer.patchStatus(primary, control.resource)) !== undefined) {
        this.#events.next({ type: 'reconciled', key, control: 'updateErrorStatus', wrote: ['status'] });
      }
    }
  }
}
