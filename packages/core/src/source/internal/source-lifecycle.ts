import { BehaviorSubject, Subject, type Observable } from 'rxjs';
import type { EventSourceHealth } from '../event-source.js';
import type { Trigger } from '../trigger.js';

/**
 * The subjects behind an event source's `triggers$` and `health$`, shared by the built-ins so
 * each reports health the same way.
 */
export class SourceChannels {
  readonly #triggers = new Subject<Trigger>();
  readonly #health: BehaviorSubject<EventSourceHealth>;
  readonly triggers$: Observable<Trigger>;
  readonly health$: Observable<EventSourceHealth>;
  readonly source: string;

  constructor(source: string) {
    this.source = source;
    this.#health = new BehaviorSubject<EventSourceHealth>({ source, status: 'starting' });
    this.triggers$ = this.#triggers.asObservable();
    this.health$ = this.#health.asObservable();
  }

  get health(): EventSourceHealth {
    return this.#health.value;
  }

  emit(trigger: Trigger): void {
    this.#triggers.next(trigger);
  }

  setHealth(status: EventSourceHealth['status'], error?: unknown): void {
    const cur = this.#health.value;
    if (cur.status === status && error === undefined && cur.error === undefined) return;
    this.#health.next(error === undefined ? { source: this.source, status } : { source: this.source, status, error });
  }
}
