import { BehaviorSubject, Subscription } from 'rxjs';
import {
  EventProcessor,
  type ControllerConfiguration,
  type EventSource,
  type EventSourceHealth,
  type KubernetesObject,
  type Logger,
} from '@kindex/core';
import { rejectUnknownOptions } from '@kindex/core/internal';
import type { NamespaceSet } from '../cache/informer-cache-options.js';
import type { KubeClient } from '../client/kube-client.js';
import type { NamespaceSelection } from '../namespace-selector/namespace-selection.js';
import { CacheSyncError, CacheSyncTimeoutError, StartAbortedError, type PendingSync } from '../startup/startup-errors.js';
import { DEFAULT_CACHE_SYNC_TIMEOUT_MS, START_OPTION_KEYS, validateCacheSyncTimeout, type StartOptions } from '../startup/start-options.js';
import { NAMESPACE_SELECTOR_SOURCE_NAME, PRIMARY_SOURCE_NAME } from './controller-event.js';
import type { ControllerEvents } from './controller-events.js';
import type { ControllerObservability } from './controller-observability.js';
import type { ControllerEventSource } from './controller-event-source.js';
import { probePrimaryKind } from './primary-kind-probe.js';
import type { ReconciliationDispatcher } from './reconciliation-dispatcher.js';

/** The parts of a controller its lifecycle starts, watches and stops. */
export interface ControllerLifecycleHost<P extends KubernetesObject> {
  readonly name: string;
  readonly configuration: ControllerConfiguration;
  readonly client: KubeClient;
  readonly logger: Logger;
  readonly crdPolicy: { readonly wait: boolean; readonly pollIntervalMs: number };
  readonly namespaceSelection: NamespaceSelection | undefined;
  readonly queueMetrics: ControllerObservability['queueMetrics'];
  /** Whether the processor keeps what each trigger was, or only counts them (see `ControllerOptions.inspection`). */
  readonly causesKept: boolean;
  readonly dispatcher: ReconciliationDispatcher<P>;
  /** The primary source: registered, started, synced and stopped first, as every other source. */
  readonly primary: ControllerEventSource<P>;
  /** The controller's health (its primary source's once started). */
  readonly health: BehaviorSubject<EventSourceHealth>;
  readonly events: ControllerEvents;
  prepareEventSources(): Promise<readonly EventSource<unknown, P>[]>;
  changeNamespaces(namespaces: NamespaceSet): Promise<void>;
}

/**
 * A controller's start and stop: waits for its CRD when told to, prepares the event sources,
 * starts the primary source and every other one through the same code (problems, start, sync,
 * pending sync, stop; the first reconcile sees every cache synced), builds the event processor
 * and starts it once all have synced, turns failures into `CacheSyncError`,
 * `CacheSyncTimeoutError` or `StartAbortedError` (undoing what started), reports the primary
 * source's health as the controller's afterwards, and stops it all again.
 */
export class ControllerLifecycle<P extends KubernetesObject> {
  readonly #h: ControllerLifecycleHost<P>;
  #sources: EventSource<unknown, P>[] = [];
  #processor: EventProcessor | undefined;
  #subscriptions: Subscription[] = [];
  /** Ends the start in progress (reason: 'stopped', 'aborted', 'timeout' or 'failed'). */
  #startAbort: AbortController | undefined;
  #stopRequested = false;
  #dispatchPaused = false;

  constructor(host: ControllerLifecycleHost<P>) {
    this.#h = host;
  }

  /** Every source the lifecycle runs: the primary source first (as JOSDK registers it), then the prepared ones. */
  #all(): EventSource<unknown, P>[] {
    return [this.#h.primary, ...this.#sources];
  }

  /** The event sources the reconciler prepared (once started). */
  get sources(): readonly EventSource<unknown, P>[] {
    return this.#sources;
  }

  /** The event processor (once started). */
  get processor(): EventProcessor | undefined {
    return this.#processor;
  }

  get dispatchPaused(): boolean {
    return this.#dispatchPaused;
  }

  /** See `Controller.pauseDispatch`. */
  pauseDispatch(abortReason?: unknown): void {
    this.#dispatchPaused = true;
    this.#processor?.pause(abortReason);
  }

  /** See `Controller.resumeDispatch`. */
  resumeDispatch(): void {
    this.#dispatchPaused = false;
    this.#processor?.resume();
  }

  /** See `Controller.start`. */
  async start(options: StartOptions = {}): Promise<void> {
    rejectUnknownOptions(`controller ${this.#h.name} start options`, options, START_OPTION_KEYS);
    const timeoutMs = validateCacheSyncTimeout(options.cacheSyncTimeoutMs, `controller ${this.#h.name}`) ?? DEFAULT_CACHE_SYNC_TIMEOUT_MS;
    const target = `controller ${JSON.stringify(this.#h.name)}`;
    if (this.#stopRequested) throw new StartAbortedError(target, 'stopped');
    if (options.signal?.aborted) throw new StartAbortedError(target, 'aborted', { cause: options.signal.reason });
    if (this.#h.crdPolicy.wait) {
      const missing = await probePrimaryKind(this.#probed(), options.signal);
      if (missing !== undefined) {
        this.#h.health.next({ source: PRIMARY_SOURCE_NAME, status: 'starting', error: missing });
        this.#h.events.problem(PRIMARY_SOURCE_NAME, missing);
        void this.#startWhenServed(timeoutMs);
        return;
      }
    }
    await this.#startNow(timeoutMs, options.signal);
  }

  #probed(): Parameters<typeof probePrimaryKind<P>>[0] {
    const { cache } = this.#h.primary;
    return { name: this.#h.name, kind: cache.kind, primaryCache: cache, client: this.#h.client };
  }

  /** Polls until the primary kind is served, then starts; failures land in health and events$. */
  async #startWhenServed(timeoutMs: number): Promise<void> {
    const waiting = new AbortController();
    this.#startAbort = waiting;
    while (!waiting.signal.aborted) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, this.#h.crdPolicy.pollIntervalMs);
        function done(): void {
          clearTimeout(timer);
          waiting.signal.removeEventListener('abort', done);
          resolve();
        }
        waiting.signal.addEventListener('abort', done, { once: true });
      });
      if (waiting.signal.aborted) return;
      const missing = await probePrimaryKind(this.#probed(), waiting.signal);
      if (waiting.signal.aborted) return;
      if (missing !== undefined) continue;
      try {
        await this.#startNow(timeoutMs, undefined);
      } catch (error) {
        if (!this.#stopRequested) this.#h.events.problem(PRIMARY_SOURCE_NAME, error);
      }
      return;
    }
  }

  async #startNow(timeoutMs: number, signal: AbortSignal | undefined): Promise<void> {
    const target = `controller ${JSON.stringify(this.#h.name)}`;
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
        failure = error.withContext({ controller: this.#h.name, eventSource: error.eventSource ?? PRIMARY_SOURCE_NAME });
      else if (reason === 'timeout') failure = new CacheSyncTimeoutError(this.#h.name, timeoutMs, pendingAtTimeout);
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
    this.#h.health.next({ source: PRIMARY_SOURCE_NAME, status: 'healthy' });
    this.#processor!.start();
    this.#h.logger.info({ workers: this.#h.configuration.concurrency }, 'caches synced, reconciling');
  }

  async #startCaches(signal: AbortSignal, settled: Set<EventSource<unknown, P>>): Promise<void> {
    this.#sources = [...(await this.#h.prepareEventSources())];
    if (signal.aborted) throw new StartAbortedError(`controller ${JSON.stringify(this.#h.name)}`, 'aborted');
    // A bounded primary cache keeps the max-interval sweep's stamps in its records (4 bytes a primary).
    const reconcileStamps = this.#h.primary.cache.reconcileStamps();
    const processor = new EventProcessor({
      ...this.#h.configuration,
      name: this.#h.name,
      ...(reconcileStamps !== undefined ? { reconcileStamps } : {}),
      ...(this.#h.queueMetrics !== undefined ? { queueMetrics: this.#h.queueMetrics } : {}),
      keepCauses: this.#h.causesKept,
      // Bound, not wrapped: a bound function is no frame of its own on each reconcile's way.
      dispatch: this.#h.dispatcher.dispatch.bind(this.#h.dispatcher),
      onRetriesExhausted: (key, error, info) => this.#h.dispatcher.onRetriesExhausted(key, error, info.retryInfo),
    });
    this.#processor = processor;
    if (this.#dispatchPaused) processor.pause();
    this.#subscriptions.push(
      new Subscription(() => reconcileStamps?.release()),
      // One subscription per processing event (several per reconcile): it also forgets dropped primaries.
      new Subscription(
        processor.onEvent((event) => {
          this.#h.events.processing(event);
          if (event.type === 'dropped') this.#h.dispatcher.forget(event.key);
        }),
      ),
      new Subscription(processor.onQueuedTrigger((trigger) => this.#h.events.trigger(trigger))),
      ...(this.#h.namespaceSelection === undefined
        ? []
        : [this.#h.namespaceSelection.cache.errors$.subscribe((error) => this.#h.events.problem(NAMESPACE_SELECTOR_SOURCE_NAME, error))]),
      this.#h.primary.health$.subscribe((health) => this.#onPrimaryHealth(health)),
    );
    for (const s of this.#all()) {
      const problems = s.problems$?.subscribe((p) => this.#h.events.problem(p.source, p.error));
      if (problems !== undefined) this.#subscriptions.push(problems);
      processor.addSource(s);
    }
    this.#h.logger.info(
      { sources: this.#sources.map((s) => s.name), namespaces: this.#h.configuration.namespaces },
      'starting controller, waiting for caches to sync',
    );
    const aborted = new Promise<never>((_, reject) => {
      const fail = (): void => reject(new StartAbortedError(`controller ${JSON.stringify(this.#h.name)}`, 'aborted'));
      if (signal.aborted) fail();
      else signal.addEventListener('abort', fail, { once: true });
    });
    aborted.catch(() => undefined);
    const selection = this.#h.namespaceSelection;
    if (selection !== undefined) {
      let selected: readonly string[];
      try {
        selected = await Promise.race([selection.start({ signal }), aborted]);
      } catch (error) {
        throw error instanceof CacheSyncError ? error.withContext({ eventSource: NAMESPACE_SELECTOR_SOURCE_NAME }) : error;
      }
      // Not started yet: these only set what the caches will watch.
      await this.#h.primary.changeNamespaces(selected);
      await Promise.all(this.inheritingSources().map((s) => s.changeNamespaces(selected)));
      this.#h.logger.info({ labelSelector: selection.labelSelector, namespaces: selected }, 'namespaces selected');
    }
    const startSource = async (s: EventSource<unknown, P>): Promise<void> => {
      // A source that ignores the signal is raced: the abort ends the wait for it too.
      await Promise.race([s.start({ signal }), aborted]);
      settled.add(s);
    };
    await Promise.all(this.#all().map(startSource));
    selection?.follow(
      async (namespaces) => {
        this.#h.logger.info({ labelSelector: selection.labelSelector, namespaces }, 'selected namespaces changed');
        await this.#h.changeNamespaces(namespaces);
      },
      (error) => this.#h.events.problem(NAMESPACE_SELECTOR_SOURCE_NAME, error),
    );
  }

  /** The event sources that follow the controller's namespaces. */
  inheritingSources(): (EventSource<unknown, P> & Required<Pick<EventSource<unknown, P>, 'changeNamespaces'>>)[] {
    return this.#sources.filter(
      (s): s is EventSource<unknown, P> & Required<Pick<EventSource<unknown, P>, 'changeNamespaces'>> =>
        s.inheritsNamespaces === true && s.changeNamespaces !== undefined,
    );
  }

  /**
   * The primary source's health, once the controller runs, is the controller's (named as the
   * primary source, with the controller in a startup error's context); before, the start decides.
   */
  #onPrimaryHealth(health: EventSourceHealth): void {
    const current = this.#h.health.value;
    if (current.status === 'starting' || current.status === 'stopped') return;
    if (health.status === 'healthy') {
      if (current.status !== 'healthy') this.#h.health.next({ source: PRIMARY_SOURCE_NAME, status: 'healthy' });
      return;
    }
    if (health.status !== 'unhealthy') return;
    const error = health.error instanceof CacheSyncError ? health.error.withContext({ controller: this.#h.name }) : health.error;
    if (
      current.status === 'unhealthy' &&
      current.error instanceof Error &&
      error instanceof Error &&
      current.error.message === error.message
    )
      return;
    this.#h.health.next({ source: PRIMARY_SOURCE_NAME, status: 'unhealthy', error });
  }

  #pendingSync(settled: ReadonlySet<EventSource<unknown, P>>): PendingSync[] {
    const pending: PendingSync[] = [];
    const selection = this.#h.namespaceSelection?.cache.pendingSync();
    if (selection !== undefined && selection.namespaces.length > 0) {
      pending.push({ eventSource: NAMESPACE_SELECTOR_SOURCE_NAME, kind: 'namespaces/v1', ...selection });
    }
    for (const s of this.#all()) {
      if (settled.has(s)) continue;
      const p = s.pendingSync?.() ?? { kind: String(s.resourceType?.name ?? 'unknown'), namespaces: [], lastError: undefined };
      if (p.namespaces.length > 0 || s.pendingSync === undefined) pending.push({ eventSource: s.name, ...p });
    }
    return pending;
  }

  /** Undoes a failed start: stops sources and caches; health turns unhealthy with the failure. */
  async #abandonStart(failure: unknown): Promise<void> {
    await this.#processor?.stop();
    await this.#h.namespaceSelection?.stop();
    await Promise.all(this.#all().map((s) => s.stop()));
    for (const s of this.#subscriptions) s.unsubscribe();
    this.#subscriptions = [];
    if (!this.#stopRequested) this.#h.health.next({ source: PRIMARY_SOURCE_NAME, status: 'unhealthy', error: failure });
  }

  /** Ends a start in progress, drains in-flight reconciles, stops the sources and caches. */
  async stop(options: { drainTimeoutMs?: number }): Promise<void> {
    this.#stopRequested = true;
    this.#startAbort?.abort('stopped');
    await this.#processor?.stop(options);
    await this.#h.namespaceSelection?.stop();
    await Promise.all(this.#all().map((s) => s.stop()));
    for (const s of this.#subscriptions) s.unsubscribe();
    this.#subscriptions = [];
  }
}
