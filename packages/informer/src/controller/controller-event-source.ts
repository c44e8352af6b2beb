import { ResourceID, type KubernetesObject, type Predicate, type StoreDelta } from '@kindex/core';
import { stealthTransition } from '@kindex/core/internal';
import { isScopeRemoval, type CacheDeltaOrigin } from '../cache/cache-delta.js';
import type { InformerCache } from '../cache/informer-cache.js';
import type { ReflectorHealth } from '../reflector/reflector-health.js';
import { EventStages } from '../source/event-stages.js';
import { ManagedInformerEventSource } from '../source/managed-informer-event-source.js';
import { unchangedPriority } from '../source/unchanged-priority.js';
import { PRIMARY_SOURCE_NAME } from './controller-event.js';
import type { PrimaryLedger } from './primary-ledger.js';
import type { PrimaryVisibility } from './primary-visibility.js';

/** What a {@link ControllerEventSource} is built from: the primary cache, the controller's ledger, visibility and filters. */
export interface ControllerEventSourceOptions<P extends KubernetesObject> {
  /** The primary cache whose deltas it reads (it connects itself as the cache's sink when started, as a secondary source does). */
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
 * The controller's own event source (JOSDK's ControllerEventSource): a
 * {@link ManagedInformerEventSource} over the primary cache, started, health-checked, synced and
 * stopped by the controller's lifecycle through the same code as every secondary source,
 * registered first. Its deltas go through the same filter stages (`EventStages`: scope removal,
 * stealth, filters) and the same trigger end (`ResourceTriggers`) as an `InformerEventSource`'s;
 * what is its own: deletions that still carry our finalizer leave a tombstone for one cleanup,
 * and the ledger learns what the watch saw (read-after-write). The primary's ResourceID is built
 * once per delta, not built as a key and parsed back. Its health does not flap on a watch that
 * times out normally: a namespace counts as failing only for an error it had not met before,
 * until it watches again.
 */
export class ControllerEventSource<P extends KubernetesObject> extends ManagedInformerEventSource<P, P> {
  readonly namespaceSelector: string | undefined;
  /** The controller's namespaces are this source's own: it inherits none. */
  readonly inheritsNamespaces = false;
  readonly inheritsShardSelector = false;
  readonly #ledger: PrimaryLedger<P>;
  /** Scope removal, stealth and filters: the code every InformerEventSource runs too. */
  readonly #stages: EventStages<P>;
  /** Per namespace: the last error its informer reported, and the ones failing now. */
  readonly #lastErrors = new Map<string, Error | undefined>();
  readonly #failing = new Map<string, Error>();

  constructor(options: ControllerEventSourceOptions<P>) {
    super(PRIMARY_SOURCE_NAME, options.cache);
    this.namespaceSelector = options.namespaceSelector;
    this.#ledger = options.ledger;
    const { visibility } = options;
    this.#stages = new EventStages<P>({
      stealth: visibility.stealthFilter === undefined ? undefined : stealthTransition(visibility.stealthFilter),
      filter: options.filter,
      // A deletion waiting on our finalizer is never hidden: cleanup must run for it to finish.
      neverHidden: (primary) => visibility.awaitsOurCleanup(primary),
      // Out of sight, still on the server: forget its pending work, reconcile nothing.
      onHidden: (primary) => this.triggers.primaryDeleted(ResourceID.fromResource(primary)),
      report: this.reportError,
    });
  }

  /** The primary source keeps no reverse index. */
  reverseIndexSize(): undefined {
    return undefined;
  }

  /**
   * A namespace whose informer met a new error and is not watching is failing (lost access shows
   * with the fix) until it watches again. An old error seen again between two watches (a normal
   * watch timeout) does not count, so health does not flap every few minutes.
   */
  protected override onNamespaceHealth(namespace: string, health: ReflectorHealth): void {
    const seen = this.#lastErrors.get(namespace);
    this.#lastErrors.set(namespace, health.lastError?.error);
    if (health.watching) this.#failing.delete(namespace);
    else if (health.lastError !== undefined && health.lastError.error !== seen) this.#failing.set(namespace, health.lastError.error);
    const current = this.health.value;
    if (current.status === 'starting' || current.status === 'stopped') return;
    const failing = this.#failing.entries().next().value;
    if (failing === undefined) {
      if (current.status !== 'healthy') this.health.next({ source: PRIMARY_SOURCE_NAME, status: 'healthy' });
      return;
    }
    const [ns, cause] = failing;
    const error = this.explain(ns, cause, 'running');
    if (current.status === 'unhealthy' && current.error instanceof Error && current.error.message === error.message) return;
    this.health.next({ source: PRIMARY_SOURCE_NAME, status: 'unhealthy', error });
  }

  /** @internal One delta of the primary cache (`CacheDeltaSink`); called by the cache only. */
  onCacheDelta(delta: StoreDelta<P>, origin: CacheDeltaOrigin): void {
    const id = ResourceID.fromResource(delta.object);
    const key = id.key;
    const ledger = this.#ledger;
    if (delta.type === 'delete') {
      if (ledger.deleted(key, delta, isScopeRemoval(origin))) {
        // Cleanup never ran to completion: give it one run on the last known state instead of
        // dropping the primary's work.
        this.triggers.resource([id], delta, undefined, key);
        return;
      }
      this.triggers.primaryDeleted(id);
      return;
    }
    ledger.seen(key, delta.object);
    const event = this.#stages.apply(delta, origin);
    if (event !== undefined) this.triggers.resource([id], event, unchangedPriority(delta.type, origin), key);
  }
}
