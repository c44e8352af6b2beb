import { evaluate, type EventTransform, type KubernetesObject, type Predicate, type ResourceEvent, type StoreDelta } from '@kindex/core';
import { isScopeRemoval, type CacheDeltaOrigin } from '../cache/cache-delta.js';

/** What {@link EventStages} runs: the source's stealth transition and filter, and its exceptions. */
export interface EventStagesOptions<R extends KubernetesObject> {
  /** kopf's stealth transition, if the source has a stealth filter. */
  readonly stealth: EventTransform<R> | undefined;
  /** The event filter (the source's own ANDed with the controller's), if any. */
  readonly filter: Predicate<R> | undefined;
  /** Objects stealth never hides (the primary source: a deletion waiting on our finalizer). Defaults to none. */
  readonly neverHidden?: (object: R) => boolean;
  /**
   * Called, instead of filtering on, when stealth hides an object still on the server (the
   * primary source forgets the primary's pending work). Without it such an event goes on as a
   * deletion, through the filter (a secondary leaving sight is deleted for its primaries).
   */
  readonly onHidden?: (object: R) => void;
  /** Where a throwing stealth filter or event filter is reported (it counts as passing). */
  readonly report: (error: unknown) => void;
}

/**
 * The filter stages of a Kubernetes event source, one code for the controller's primary source
 * and every `InformerEventSource`, run on each delta of its cache in order: a scope removal (a
 * namespace or shard leaving the set: configuration, not the world) stops here; then kopf's
 * stealth transition; then the event filter. What passes is the event to trigger for.
 */
export class EventStages<R extends KubernetesObject> {
  readonly #o: EventStagesOptions<R>;

  constructor(options: EventStagesOptions<R>) {
    this.#o = options;
  }

  /** The event `delta` triggers, or undefined when a stage stops it. */
  apply(delta: StoreDelta<R>, origin: CacheDeltaOrigin): ResourceEvent<R> | undefined {
    if (isScopeRemoval(origin)) return undefined;
    const { stealth, filter, neverHidden, onHidden, report } = this.#o;
    let event: ResourceEvent<R> | undefined = delta;
    if (stealth !== undefined && (neverHidden === undefined || !neverHidden(delta.object))) {
      event = stealth(delta, report);
      if (event === undefined) return undefined;
      if (onHidden !== undefined && event.type === 'delete' && delta.type !== 'delete') {
        onHidden(delta.object);
        return undefined;
      }
    }
    if (filter !== undefined && !evaluate(filter, event, report)) return undefined;
    return event;
  }
}
