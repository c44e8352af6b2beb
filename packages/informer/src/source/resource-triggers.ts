import type { Observable } from 'rxjs';
import { Listeners, ResourceID, type KubernetesObject, type ResourceEvent, type Trigger, type TriggerCause } from '@kindex/core';

/**
 * The trigger end of a Kubernetes event source, one for secondaries (`InformerEventSource`) and
 * the controller's own primaries (JOSDK's ControllerEventSource): the listeners the event
 * processor connects to by a direct call, the derived `triggers$`, and the one way a resource
 * event becomes a trigger. Each trigger is two objects built in one go, each in one shape (no
 * spread of optional fields, no closure), and nothing is built while nobody listens.
 */
export class ResourceTriggers {
  /** The triggers; derived from the {@link ResourceTriggers.onTrigger} listeners, free while nobody subscribes. */
  readonly triggers$: Observable<Trigger>;
  readonly #listeners = new Listeners<Trigger>();
  readonly #source: string;

  /** @param source the event source's name, carried by each trigger. */
  constructor(source: string) {
    this.#source = source;
    this.triggers$ = this.#listeners.observe((trigger) => trigger);
  }

  /** Calls `listener` with every trigger; returns the function that removes it. */
  onTrigger(listener: (trigger: Trigger) => void): () => void {
    return this.#listeners.add(listener);
  }

  /**
   * Triggers `primaryIds` for a resource event. `objectKey` is the event's object's key when the
   * caller has it already (the primary source), so it is not built twice.
   */
  resource(
    primaryIds: readonly ResourceID[],
    event: ResourceEvent<KubernetesObject>,
    priority: number | undefined,
    objectKey?: string,
  ): void {
    // Nobody connected (not started, or stopped): build nothing.
    if (!this.#listeners.listening) return;
    const object = event.object;
    const key = objectKey ?? ResourceID.keyOfResource(object);
    const resourceVersion = object.metadata?.resourceVersion;
    const cause: TriggerCause =
      resourceVersion === undefined
        ? { type: 'resource', event: event.type, objectKey: key }
        : { type: 'resource', event: event.type, objectKey: key, resourceVersion };
    this.#listeners.emit(
      priority === undefined ? { primaryIds, source: this.#source, cause } : { primaryIds, source: this.#source, cause, priority },
    );
  }

  /** Tells the event processor that a primary is gone: its pending work is dropped. */
  primaryDeleted(id: ResourceID): void {
    if (this.#listeners.listening) this.#listeners.emit({ primaryIds: [id], source: this.#source, cause: PRIMARY_DELETED });
  }
}

const PRIMARY_DELETED: TriggerCause = Object.freeze({ type: 'primary-deleted' });
