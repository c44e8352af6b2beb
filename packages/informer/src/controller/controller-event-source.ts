import type { Observable } from 'rxjs';
import { ResourceID, stealthTransition, type KubernetesObject, type Predicate, type StoreDelta, type Trigger } from '@kindex/core';
import { isScopeRemoval, type CacheDeltaOrigin } from '../cache/cache-delta.js';
import { EventStages } from '../source/event-stages.js';
import { ResourceTriggers } from '../source/resource-triggers.js';
import { unchangedPriority } from '../source/unchanged-priority.js';
import { PRIMARY_SOURCE_NAME } from './controller-event.js';
import type { InformerCache } from '../cache/informer-cache.js';
import type { PrimaryLedger } from './primary-ledger.js';
import type { PrimaryVisibility } from './primary-visibility.js';

/** What {@link PrimaryEvents} is built from: the controller's visibility, filters and problem report. */
export interface PrimaryEventsOptions<P extends KubernetesObject> {
  /** The primary cache whose deltas it reads (it connects itself, as a secondary source does). */
  readonly cache: InformerCache<P>;
  readonly ledger: PrimaryLedger<P>;
  /** The finalizer and stealth filter, shared with the reconciliation dispatcher. */
  readonly visibility: PrimaryVisibility<P>;
  /** Generation awareness, controller-wide and primary event filters, ANDed. */
  readonly filter: Predicate<P>;
  /** Where a throwing filter's error goes (the controller's `problem` events). */
  readonly onProblem: (error: unknown) => void;
}

/**
 * The primary cache's deltas turned into triggers of the controller's own primaries (JOSDK's
 * ControllerEventSource), through the same trigger end as the secondaries' sources
 * (`ResourceTriggers`) and through the same filter stages (`EventStages`: scope removal,
 * stealth, filters): deletions that still carry our finalizer leave a tombstone for one cleanup,
 * the stages decide the rest. The primary's ResourceID is built once
 * per delta, not built as a key and parsed back.
 */
export class PrimaryEvents<P extends KubernetesObject> {
  readonly triggers$: Observable<Trigger>;
  readonly #triggers = new ResourceTriggers(PRIMARY_SOURCE_NAME);
  readonly #cache: InformerCache<P>;
  readonly #ledger: PrimaryLedger<P>;
  /** Scope removal, stealth and filters: the code every InformerEventSource runs too. */
  readonly #stages: EventStages<P>;

  constructor(options: PrimaryEventsOptions<P>) {
    this.#cache = options.cache;
    this.#ledger = options.ledger;
    const { visibility } = options;
    this.#stages = new EventStages<P>({
      stealth: visibility.stealthFilter === undefined ? undefined : stealthTransition(visibility.stealthFilter),
      filter: options.filter,
      // A deletion waiting on our finalizer is never hidden: cleanup must run for it to finish.
      neverHidden: (primary) => visibility.awaitsOurCleanup(primary),
      // Out of sight, still on the server: forget its pending work, reconcile nothing.
      onHidden: (primary) => this.#triggers.primaryDeleted(ResourceID.fromResource(primary)),
      report: options.onProblem,
    });
    this.triggers$ = this.#triggers.triggers$;
  }

  /** Calls `listener` with every trigger: how the event processor connects (a direct call, no rxjs hop). */
  onTrigger(listener: (trigger: Trigger) => void): () => void {
    return this.#triggers.onTrigger(listener);
  }

  /**
   * Connects to the primary cache's deltas (before the cache starts, so its list is seen), as
   * `InformerEventSource.start` does to its own; returns the function that disconnects. The
   * listener is the bound method itself: no wrapper frame per event.
   */
  connect(): () => void {
    return this.#cache.onDelta(this.#onDelta.bind(this));
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
