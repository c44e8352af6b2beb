import { BehaviorSubject, type Observable } from 'rxjs';
import { Listeners } from '../../event/listeners.js';
import type { EventSourceHealth } from '../event-source.js';
import type { Trigger } from '../trigger.js';

/**
 * The channels behind an event source's `onTrigger`/`triggers$` and `health$`, shared by the
 * built-ins so each hands triggers over and reports health the same way.
 */
export class SourceChannels {
  readonly #triggers = new Listeners<Trigger>();
  readonly #health: BehaviorSubject<EventSourceHealth>;
  readonly triggers$: Observable<Trigger>;
  readonly health$: Observable<EventSourceHealth>;
  readonly source: string;

  constructor(source: string) {
    this.source = source;
    this.#health = new BehaviorSubject<EventSourceHealth>({ source, status: 'starting' });
    this.triggers$ = this.#triggers.observe((trigger) => trigger);
    this.health$ = this.#health.asObservable();
  }

  get health(): EventSourceHealth {
    return this.#health.value;
  }

  emit(trigger: Trigger): void {
    this.#triggers.emit(trigger);
  }

  onTrigger(listener: (trigger: Trigger) => void): () => void {
    return this.#triggers.add(listener);
  }

  setHealth(status: EventSourceHealth['status'], error?: unknown): void {
    const cur = this.#health.value;
    if (cur.status === status && error === undefined && cur.error === undefined) return;
    this.#health.next(error === undefined ? { source: this.source, status } : { source: this.source, status, error });
  }
}
