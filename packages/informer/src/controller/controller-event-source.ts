import { BehaviorSubject, Subject, Subscription, type Observable } from 'rxjs';
import {
  ResourceID,
  stealthTransition,
  type EventSourceHealth,
  type EventSourcePendingSync,
  type EventSourceProblem,
  type EventSourceStatistics,
  type KubernetesObject,
  type Predicate,
  type ShardSelector,
  type StoreDelta,
  type Trigger,
} from '@kindex/core';
import { isScopeRemoval, type CacheDeltaOrigin } from '../cache/cache-delta.js';
import type { InformerCache } from '../cache/informer-cache.js';
import type { NamespaceSet } from '../cache/informer-cache-options.js';
import type { ResourceKind } from '../kind/resource-kind.js';
import type { ReflectorHealth } from '../reflector/reflector-health.js';
import { EventStages } from '../source/event-stages.js';
import type { KubeEventSource } from '../source/kube-event-source.js';
import { pendingSyncOf, statisticsOf } from '../source/kube-source-figures.js';
import { ResourceTriggers } from '../source/resource-triggers.js';
import { unchangedPriority } from '../source/unchanged-priority.js';
import { CacheSyncError } from '../startup/startup-errors.js';
import { PRIMARY_SOURCE_NAME } from './controller-event.js';
import type { PrimaryLedger } from './primary-ledger.js';
import type { PrimaryVisibility } from './primary-visibility.js';

/** What a {@link ControllerEventSource} is built from: the primary cache, the controller's ledger, visibility and filters. */
export interface ControllerEventSourceOptions<P extends KubernetesObject> {
  /** The primary cache whose deltas it reads (it connects itself when started, as a secondary source does). */
  readonly cache: InformerCache<P>;
  readonly ledger: PrimaryLedger<P>;
  /** The finalizer and stealth filter, shared with the reconciliation dispatcher. */
  readonly visibility: PrimaryVisibility<P>;
  /** Generation awareness, controller-wide and primary event filters, ANDed. */
  readonly filter: Predicate<P>;
  /** The label selector on Namespace objects choosing the controller's namespaces, if any. */
  readonly namespaceSelector: string | undefined;
}

/**
 * The controller's own event source (JOSDK's ControllerEventSource): a `KubeEventSource` over the
 * primary cache, started, health-checked, synced and stopped by the controller's lifecycle through
 * the same code as every secondary source, registered first. Its deltas go through the same filter
 * stages (`EventStages`: scope removal, stealth, filters) and the same trigger end
 * (`ResourceTriggers`) as an `InformerEventSource`'s; what is its own: deletions that still carry
 * our finalizer leave a tombstone for one cleanup, and the ledger learns what the watch saw
 * (read-after-write). The primary's ResourceID is built once per delta, not built as a key and
 * parsed back. Its health does not flap on a watch that times out normally: a namespace counts as
 * failing only for an error it had not met before, until it watches again.
 */
export class ControllerEventSource<P extends KubernetesObject> implements KubeEventSource<P, P> {
  readonly name = PRIMARY_SOURCE_NAME;
  readonly resourceType: ResourceKind<P>;
  readonly cache: InformerCache<P>;
  readonly namespaceSelector: string | undefined;
  /** The controller's namespaces are this source's own: it inherits none. */
  readonly inheritsNamespaces = false;
  readonly inheritsShardSelector = false;
  readonly triggers$: Observable<Trigger>;
  readonly health$: Observable<EventSourceHealth>;
  readonly problems$: Observable<EventSourceProblem>;
  readonly #triggers = new ResourceTriggers(PRIMARY_SOURCE_NAME);
  readonly #health = new BehaviorSubject<EventSourceHealth>({ source: PRIMARY_SOURCE_NAME, status: 'starting' });
  readonly #problems = new Subject<EventSourceProblem>();
  readonly #ledger: PrimaryLedger<P>;
  /** Scope removal, stealth and filters: the code every InformerEventSource runs too. */
  readonly #stages: EventStages<P>;
  #subscriptions: Subscription[] = [];
  /** Per namespace: the last error its informer reported, and the ones failing now. */
  readonly #lastErrors = new Map<string, Error | undefined>();
  readonly #failing = new Map<string, Error>();

  constructor(options: ControllerEventSourceOptions<P>) {
    this.cache = options.cache;
    this.resourceType = options.cache.kind;
    this.namespaceSelector = options.namespaceSelector;
    this.#ledger = options.ledger;
    const { visibility } = options;
    const report = (error: unknown): void => this.#problems.next({ source: PRIMARY_SOURCE_NAME, error });
    this.#stages = new EventStages<P>({
      stealth: visibility.stealthFilter === undefined ? undefined : stealthTransition(visibility.stealthFilter),
      filter: options.filter,
      // A deletion waiting on our finalizer is never hidden: cleanup must run for it to finish.
      neverHidden: (primary) => visibility.awaitsOurCleanup(primary),
      // Out of sight, still on the server: forget its pending work, reconcile nothing.
      onHidden: (primary) => this.#triggers.primaryDeleted(ResourceID.fromResource(primary)),
      report,
    });
    this.triggers$ = this.#triggers.triggers$;
    this.health$ = this.#health.asObservable();
    this.problems$ = this.#problems.asObservable();
  }

  /** Calls `listener` with every trigger: how the event processor connects (a direct call, no rxjs hop). */
  onTrigger(listener: (trigger: Trigger) => void): () => void {
    return this.#triggers.onTrigger(listener);
  }

  /** The namespaces the primary cache watches now. */
  get namespaces(): NamespaceSet {
    return this.cache.namespaces;
  }

  hasSynced(): boolean {
    return this.cache.hasSynced();
  }

  pendingSync(): EventSourcePendingSync {
    return pendingSyncOf(this.cache);
  }

  statistics(): EventSourceStatistics {
    return statisticsOf(this);
  }

  /** The primary source keeps no reverse index. */
  reverseIndexSize(): undefined {
    return undefined;
  }

  /**
   * Connects to the primary cache (its deltas, by the bound method itself: no wrapper frame per
   * event; its errors; its per-namespace health) before starting it, so its list is seen, and
   * resolves once it has synced.
   * @throws {CacheSyncError} naming the primary source when the list is refused for good.
   */
  async start(options: { readonly signal?: AbortSignal } = {}): Promise<void> {
    if (this.#subscriptions.length === 0) {
      this.#subscriptions = [
        new Subscription(this.cache.onDelta(this.#onDelta.bind(this))),
        this.cache.errors$.subscribe((error) => this.#problems.next({ source: PRIMARY_SOURCE_NAME, error })),
        this.cache.health$.subscribe(({ namespace, health }) => this.#onNamespaceHealth(namespace, health)),
      ];
    }
    try {
      await this.cache.start(options);
    } catch (error) {
      const explained =
        error instanceof CacheSyncError ? error.withContext({ eventSource: error.eventSource ?? PRIMARY_SOURCE_NAME }) : error;
      await this.cache.stop();
      if (this.#health.value.status !== 'stopped')
        this.#health.next({ source: PRIMARY_SOURCE_NAME, status: 'unhealthy', error: explained });
      throw explained;
    }
    this.#health.next({ source: PRIMARY_SOURCE_NAME, status: 'healthy' });
  }

  /** Stops the primary cache and disconnects from it; health becomes `stopped`. */
  async stop(): Promise<void> {
    await this.cache.stop();
    for (const s of this.#subscriptions) s.unsubscribe();
    this.#subscriptions = [];
    this.#health.next({ source: PRIMARY_SOURCE_NAME, status: 'stopped' });
  }

  changeNamespaces(namespaces: NamespaceSet): Promise<void> {
    return this.cache.setNamespaces(namespaces);
  }

  changeShardSelector(selector: ShardSelector | undefined): Promise<void> {
    return this.cache.setShardSelector(selector);
  }

  /**
   * A namespace whose informer met a new error and is not watching is failing (lost access shows
   * with the fix) until it watches again. An old error seen again between two watches (a normal
   * watch timeout) does not count, so health does not flap every few minutes.
   */
  #onNamespaceHealth(namespace: string, health: ReflectorHealth): void {
    const seen = this.#lastErrors.get(namespace);
    this.#lastErrors.set(namespace, health.lastError?.error);
    if (health.watching) this.#failing.delete(namespace);
    else if (health.lastError !== undefined && health.lastError.error !== seen) this.#failing.set(namespace, health.lastError.error);
    const current = this.#health.value;
    if (current.status === 'starting' || current.status === 'stopped') return;
    const failing = this.#failing.entries().next().value;
    if (failing === undefined) {
      if (current.status !== 'healthy') this.#health.next({ source: PRIMARY_SOURCE_NAME, status: 'healthy' });
      return;
    }
    const [ns, cause] = failing;
    const explained = this.cache.explain(ns, cause, 'running');
    const error = explained instanceof CacheSyncError ? explained.withContext({ eventSource: PRIMARY_SOURCE_NAME }) : explained;
    if (current.status === 'unhealthy' && current.error instanceof Error && current.error.message === error.message) return;
    this.#health.next({ source: PRIMARY_SOURCE_NAME, status: 'unhealthy', error });
  }

  /** One delta of the primary cache. */
  #onDelta(delta: StoreDelta<P>, origin: CacheDeltaOrigin): void {
    const id = ResourceID.fromResource(delta.object);
    const key = id.key;
    const ledger = this.#ledger;
    if (delta.type === 'delete') {
      if (ledger.deleted(key, delta, isScopeRemoval(origin))) {
        // Cleanup never ran to completion: give it one run on the last known state instead of
        // dropping the primary's work.
        this.#triggers.resource([id], delta, undefined, key);
        return;
      }
      this.#triggers.primaryDeleted(id);
      return;
    }
    ledger.seen(key, delta.object);
    const event = this.#stages.apply(delta, origin);
    if (event !== undefined) this.#triggers.resource([id], event, unchangedPriority(delta.type, origin), key);
  }
}
