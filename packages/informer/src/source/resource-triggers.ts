import type { Observable } from 'rxjs';
import { ResourceID, type KubernetesObject, type ResourceEvent, type Trigger, type TriggerCause, type TriggerSink } from '@kindex/core';
import { Listeners } from '@kindex/core/internal';

/**
 * The trigger end of a Kubernetes event source, one for secondaries (`InformerEventSource`) and
 * the controller's own primaries (JOSDK's ControllerEventSource): the one way a resource event
 * becomes a trigger, handed by a direct call to the source's {@link TriggerSink} (the event
 * processor, connected by `connect`), then to the `onTrigger` listeners and the derived
 * `triggers$` if anyone listens. Each trigger is two objects built in one go, each in one shape
 * (no spread of optional fields, no closure), and nothing is built while nobody takes it.
 */
export class ResourceTriggers {
  /** The triggers; derived from the {@link ResourceTriggers.onTrigger} listeners, free while nobody subscribes. */
  readonly triggers$: Observable<Trigger>;
  readonly #listeners = new Listeners<Trigger>();
  readonly #source: string;
  /** The one consumer called directly (the event processor), if connected. */
  #sink: TriggerSink | undefined;

  /** @param source the event source's name, carried by each trigger. */
  constructor(source: string) {
    this.#source = source;
    this.triggers$ = this.#listeners.observe((trigger) => trigger);
  }

  /** Makes `sink` the consumer of every trigger, replacing any other; returns the function that disconnects it. */
  connect(sink: TriggerSink): () => void {
    this.#sink = sink;
    return () => {
      if (this.#sink === sink) this.#sink = undefined;
    };
  }

  /** Calls `listener` with every trigger, after the sink; returns the function that removes it. */
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
    const sink = this.#sink;
    // Nobody connected (not started, or stopped): build nothing.
    if (sink === undefined && !this.#listeners.listening) return;
    const object = event.object;
    const key = objectKey ?? ResourceID.keyOfResource(object);
    const resourceVersion = object.metadata?.resourceVersion;
    const cause: TriggerCause =
      resourceVersion === undefined
        ? { type: 'resource', event: event.type, objectKey: key }
        : { type: 'resource', event: event.type, objectKey: key, resourceVersion };
    const trigger: Trigger =
      priority === undefined ? { primaryIds, source: this.#source, cause } : { primaryIds, source: this.#source, cause, priority };
    if (sink !== undefined) sink.accept(trigger);
    if (this.#listeners.listening) this.#listeners.emit(trigger);
  }

  /** Tells the event processor that a primary is gone: its pending work is dropped. */
  primaryDeleted(id: ResourceID): void {
    const sink = this.#sink;
    if (sink === undefined && !this.#listeners.listening) return;
    const trigger: Trigger = { primaryIds: [id], source: this.#source, cause: PRIMARY_DELETED };
    if (sink !== undefined) sink.accept(trigger);
    if (this.#listeners.listening) this.#listeners.emit(trigger);
  }
}

const PRIMARY_DELETED: TriggerCause = Object.freeze({ type: 'primary-deleted' });
