import type { Observable } from 'rxjs';
import { Listeners, type ProcessingEvent, type Trigger } from '@kindex/core';
import type { ControllerEvent } from './controller-event.js';

/**
 * A controller's event fan-out, by direct calls: the operator's metrics and logs follow the
 * processing events and problems they need through their own listeners, so the
 * `ControllerEvent` wrapper of a trigger or processing step is built only while someone listens
 * to `events$` (before, every trigger and step was wrapped and pushed through an rxjs Subject to
 * four subscribers, most of which dropped it).
 */
export class ControllerEvents {
  /** Triggers, processing steps, writes and problems; free while nobody subscribes. */
  readonly events$: Observable<ControllerEvent>;
  readonly #events = new Listeners<ControllerEvent>();
  readonly #processing = new Listeners<ProcessingEvent>();
  readonly #problems = new Listeners<string, unknown>();

  constructor() {
    this.events$ = this.#events.observe((event) => event);
  }

  /** Calls `listener` with every processing step, unwrapped. Returns the function that removes it. */
  onProcessing(listener: (event: ProcessingEvent) => void): () => void {
    return this.#processing.add(listener);
  }

  /** Calls `listener` with every problem's source and error. Returns the function that removes it. */
  onProblem(listener: (source: string, error: unknown) => void): () => void {
    return this.#problems.add(listener);
  }

  /** A trigger the event processor queued. */
  trigger(trigger: Trigger): void {
    if (this.#events.listening) this.#events.emit({ type: 'trigger', trigger });
  }

  /** A step of the event processor. */
  processing(event: ProcessingEvent): void {
    this.#processing.emit(event);
    if (this.#events.listening) this.#events.emit({ type: 'processing', event });
  }

  /** A problem the controller moves past (a source's, a filter's, a cache's). */
  problem(source: string, error: unknown): void {
    this.#problems.emit(source, error);
    if (this.#events.listening) this.#events.emit({ type: 'problem', source, error });
  }

  /** A reconcile, how it ended and what it wrote. */
  reconciled(key: string, control: string, wrote: readonly ('status' | 'resource' | 'finalizer')[]): void {
    if (this.#events.listening) this.#events.emit({ type: 'reconciled', key, control, wrote });
  }

  /** Ends every stream and drops every listener. */
  complete(): void {
    this.#events.complete();
    this.#processing.complete();
    this.#problems.complete();
  }
}
