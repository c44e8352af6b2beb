import { Observable } from 'rxjs';

/**
 * The listeners of one hop of the event path (reflector → shared informer → cache → event source
 * → event processor), called directly, in the order they were added: an event crosses each hop as
 * one function call, not an rxjs Subject (about 40 ns a hop and a wrapper object per event,
 * measured). The hop's public rxjs stream is derived with {@link Listeners.observe}: it costs a
 * listener only while someone subscribes, so rxjs users lose nothing and others pay nothing.
 *
 * Listeners added by kindex itself never throw (they report user code's failures themselves);
 * an rxjs subscriber that throws is reported by rxjs, asynchronously, as with a Subject.
 *
 * @typeParam A the first argument of each call (the delta, the trigger).
 * @typeParam B the second argument (where the delta came from), `void` when there is none.
 *
 * @example
 * ```ts
 * import { type StoreDelta } from '@kindex/core';
 * import { Listeners } from '@kindex/core/internal';
 *
 * const deltas = new Listeners<StoreDelta, boolean>();
 * const stop = deltas.add((delta, listing) => console.log(delta.type, listing ? '(list)' : '(watch)'));
 * const deltas$ = deltas.observe((delta) => delta); // for rxjs users; free while nobody subscribes
 * if (deltas.listening) deltas.emit({ type: 'create', object: { metadata: { name: 'web' } } }, false);
 * stop();
 * deltas.complete();
 * ```
 */
export class Listeners<A, B = void> {
  #listeners: ReadonlyArray<(a: A, b: B) => void> = [];
  #completions = new Set<() => void>();
  #completed = false;

  /** Adds a listener; returns the function that removes it. Copy on write: emitting never sees a half-changed list. */
  add(listener: (a: A, b: B) => void): () => void {
    this.#listeners = [...this.#listeners, listener];
    return () => {
      this.#listeners = this.#listeners.filter((l) => l !== listener);
    };
  }

  /** Whether any listener (or subscriber of {@link observe}) is there: skip building what nobody reads. */
  get listening(): boolean {
    return this.#listeners.length > 0;
  }

  /** Calls every listener with `(a, b)`, in the order they were added. */
  emit(a: A, b: B): void {
    const listeners = this.#listeners;
    for (let i = 0; i < listeners.length; i++) listeners[i]!(a, b);
  }

  /** A hot Observable of `project(a, b)` per emission, completed by {@link complete}. */
  observe<T>(project: (a: A, b: B) => T): Observable<T> {
    return new Observable<T>((subscriber) => {
      if (this.#completed) {
        subscriber.complete();
        return undefined;
      }
      const complete = (): void => subscriber.complete();
      this.#completions.add(complete);
      const remove = this.add((a, b) => subscriber.next(project(a, b)));
      return () => {
        remove();
        this.#completions.delete(complete);
      };
    });
  }

  /** Drops every listener and completes every Observable made by {@link observe}. Idempotent. */
  complete(): void {
    if (this.#completed) return;
    this.#completed = true;
    this.#listeners = [];
    const completions = [...this.#completions];
    this.#completions.clear();
    for (const complete of completions) complete();
  }
}
