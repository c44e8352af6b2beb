import type { KubernetesObject, ResourceEvent, ResourceID } from '@kindex/core';
import type { ResourceTriggers } from './resource-triggers.js';

/**
 * The primaries of a list being delivered. A list's (or an attach's) deltas arrive in one
 * synchronous run: their primaries are gathered and each is triggered once when the run is over,
 * not once per secondary (a primary with five ConfigMaps is enqueued once at start, not five
 * times), with the last event that named it.
 */
export class ListedPrimaries<R extends KubernetesObject> {
  readonly #triggers: ResourceTriggers;
  /** Each primary of the run with its last event and priority; undefined between runs. */
  #gathered: Map<string, [ResourceID, ResourceEvent<R>, number | undefined]> | undefined;

  constructor(triggers: ResourceTriggers) {
    this.#triggers = triggers;
  }

  /** Gathers `primaries` of a listed object's `event`; the first call of a run schedules the triggers. */
  add(primaries: readonly ResourceID[], event: ResourceEvent<R>, priority: number | undefined): void {
    let gathered = this.#gathered;
    if (gathered === undefined) {
      this.#gathered = gathered = new Map();
      queueMicrotask(() => {
        this.#gathered = undefined;
        for (const [id, cause, p] of gathered!.values()) this.#triggers.resource([id], cause, p);
      });
    }
    for (const id of primaries) {
      const previous = gathered.get(id.key);
      if (previous === undefined) {
        gathered.set(id.key, [id, event, priority]);
      } else {
        // Updated in place (a list of 100,000 secondaries would otherwise allocate a tuple each).
        // One real change among a primary's secondaries (a relist's update) lifts it to normal priority.
        previous[1] = event;
        if (previous[2] !== undefined) previous[2] = priority;
      }
    }
  }
}
