import type { Observable } from 'rxjs';
import { type ProcessingEvent, type Trigger } from '@kindex/core';
import { Listeners } from '@kindex/core/internal';
import type { ControllerEvent, ControllerProblemEvent, ControllerReconciledEvent } from './controller-event.js';

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
  /**
   * Problems alone: a subscriber here costs nothing per trigger or processing step, where an
   * `events$` subscriber is handed (and filters out) several wrapped events per trigger.
   */
  readonly problems$: Observable<ControllerProblemEvent>;
  /** Ended reconciles alone, one event each. */
  readonly reconciled$: Observable<ControllerReconciledEvent>;
  readonly #events = new Listeners<ControllerEvent>();
  readonly #processing = new Listeners<ProcessingEvent>();
  readonly #problems = new Listeners<string, unknown>();
  readonly #reconciled = new Listeners<ControllerReconciledEvent>();

  constructor() {
    this.events$ = this.#events.observe((event) => event);
    this.problems$ = this.#problems.observe((source, error): ControllerProblemEvent => ({ type: 'problem', source, error }));
    this.reconciled$ = this.#reconciled.observe((event) => event);
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
    if (!this.#events.listening && !this.#reconciled.listening) return;
    const event: ControllerReconciledEvent = { type: 'reconciled', key, control, wrote };
    this.#reconciled.emit(event);
    this.#events.emit(event);
  }

  /** Ends every stream and drops every listener. */
  complete(): void {
    this.#events.complete();
    this.#processing.complete();
    this.#problems.complete();
    this.#reconciled.complete();
  }
}
