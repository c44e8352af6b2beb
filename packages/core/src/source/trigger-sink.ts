import type { Trigger } from './trigger.js';

/**
 * Where an event source hands its triggers: the one consumer of each trigger it makes, called
 * directly (the event processor implements it). A source that keeps one sink calls
 * `sink.accept(trigger)`, so a reader going to the definition of that call lands here and then on
 * the processor's `accept`, where a listener list would leave them at an anonymous callback.
 *
 * Contract: `accept` runs inside the source's own call, synchronously; it must not throw (the
 * event processor reports a malformed trigger itself and goes on) and must not keep the trigger
 * beyond what it queues.
 *
 * @example
 * ```ts
 * import { ResourceID, type TriggerSink, type Trigger } from '@kindex/core';
 *
 * // A test's sink: keeps what a source triggers.
 * class Collected implements TriggerSink {
 *   readonly triggers: Trigger[] = [];
 *   accept(trigger: Trigger): void {
 *     this.triggers.push(trigger);
 *   }
 * }
 * const sink = new Collected();
 * sink.accept({ primaryIds: [ResourceID.of('web', 'shop')], source: 'test', cause: { type: 'external', detail: 'by hand' } });
 * ```
 * @see {@link EventSource.connect}, how the event processor gives itself to a source.
 */
export interface TriggerSink {
  /** Takes one trigger: queues each of its primaries (or drops their work, for `primary-deleted`). */
  accept(trigger: Trigger): void;
}
