/**
 * What a reflector says about itself: its {@link ReflectorHealth}, replayed to each subscriber of
 * `health$`, and every problem met, on `errors$`. The list, the watch and the retry loop all
 * report through one {@link ReflectorStatus}, so `lastError` and `errors$` never disagree.
 *
 * @module
 */
import { BehaviorSubject, Subject, type Observable } from 'rxjs';
import type { ReflectorHealth } from '../reflector-health.js';

/** The health before the first request: nothing listed, nothing watched, nothing gone wrong. */
const INITIAL_HEALTH: ReflectorHealth = Object.freeze({
  synced: false,
  watching: false,
  lastSyncResourceVersion: undefined,
  lastError: undefined,
  restarts: 0,
  lists: 0,
});

/** A reflector's health and errors, quiet once its stop signal is aborted. */
export class ReflectorStatus {
  readonly health$: Observable<ReflectorHealth>;
  readonly errors$: Observable<Error>;
  readonly #health = new BehaviorSubject<ReflectorHealth>(INITIAL_HEALTH);
  readonly #errors = new Subject<Error>();
  readonly #cluster: string | undefined;
  readonly #stopped: AbortSignal;

  /**
   * @param cluster named in front of each error's message in `lastError`, for an operator that
   *   watches several clusters.
   * @param stopped the reflector's stop signal: once aborted, errors are not reported (a stop
   *   tears down the open request, and that is not a failure).
   */
  constructor(cluster: string | undefined, stopped: AbortSignal) {
    this.#cluster = cluster;
    this.#stopped = stopped;
    this.health$ = this.#health.asObservable();
    this.errors$ = this.#errors.asObservable();
  }

  /** The current health. */
  get health(): ReflectorHealth {
    return this.#health.value;
  }

  /** Publishes the health with `change` applied, if that changes any field. */
  update(change: Partial<ReflectorHealth>): void {
    const current = this.#health.value;
    let changed = false;
    for (const k of Object.keys(change) as Array<keyof ReflectorHealth>) {
      if (current[k] !== change[k]) changed = true;
    }
    if (changed && !this.#health.closed) this.#health.next(Object.freeze({ ...current, ...change }));
  }

  /** One problem met: becomes `lastError` and goes out on `errors$`. */
  report(error: Error): void {
    if (this.#stopped.aborted) return;
    const message = this.#cluster === undefined ? error.message : `cluster ${this.#cluster}: ${error.message}`;
    this.update({ lastError: Object.freeze({ message, at: Date.now(), error }) });
    this.#errors.next(error);
  }

  /** Completes `errors$`, then `health$`; later updates and reports go nowhere. Idempotent. */
  complete(): void {
    this.#errors.complete();
    this.#health.complete();
  }
}
