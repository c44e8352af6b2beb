import { IndexedStore, type KubernetesObject, type StoreDelta } from '@kindex/core';
import { isRecreated, Listeners } from '@kindex/core/internal';
import type { PreparedObject } from './prepare-object.js';
import type { ReflectorSink } from '../reflector-sink.js';

/**
 * The reflector's view of the server, its one store mode: an {@link IndexedStore} that is the diff
 * base and the output at once. A watch event costs one lookup of the old object
 * (`upsertIfChanged`) and a list is one `replace` batch; a relist or a replayed watch event
 * produces nothing for an object whose resourceVersion the store holds. Each change goes, as the
 * store's own {@link StoreDelta} (no conversion) and after the store shows it, to the sink by a
 * direct call, then to the listeners if any; the second argument says whether it came from a list
 * (`true`) or a watch event.
 */
export class ReflectorView<R extends KubernetesObject> {
  readonly deltas = new Listeners<StoreDelta<R>, boolean>();
  readonly #sink: ReflectorSink<R> | undefined;

  /**
   * @param store the objects: by default a store trusting that objects come frozen (the
   *   reflector freezes each one itself, so the store does not walk them again).
   * @param sink the consumer called first with each change (the shared informer), if any.
   */
  constructor(
    readonly store: IndexedStore<R> = new IndexedStore<R>({ assumeFrozen: true }),
    sink?: ReflectorSink<R>,
  ) {
    this.#sink = sink;
  }

  /** An ADDED or MODIFIED watch event. */
  upsert(next: PreparedObject<R>): void {
    const written = this.store.upsertIfChanged(next.object);
    if (written === undefined) return; // the resourceVersion the store holds: a replayed event
    const sink = this.#sink;
    const deltas = this.deltas;
    if (sink === undefined && !deltas.listening) return;
    const { object, old } = written;
    let delta: StoreDelta<R>;
    if (old === undefined) {
      delta = { type: 'create', object };
    } else if (isRecreated(old, object)) {
      this.#deliver({ type: 'delete', object: old, deleteStateUnknown: true });
      delta = { type: 'create', object };
    } else {
      delta = { type: 'update', object, oldObject: old };
    }
    // Delivered here, not through #deliver: one frame less on every watch event.
    if (sink !== undefined) sink.onReflectorDelta(delta, false);
    if (deltas.listening) deltas.emit(delta, false);
  }

  /** A DELETED watch event; one for an object never seen changes nothing. */
  delete(next: PreparedObject<R>): void {
    if (this.store.delete(next.key, next.resourceVersion) === undefined) return;
    if (this.#sink !== undefined || this.deltas.listening)
      this.#deliver({ type: 'delete', object: next.object, deleteStateUnknown: false });
  }

  /**
   * A list: one store batch (creates and updates in list order, deletes of what vanished last,
   * with `deleteStateUnknown`), its deltas delivered together in one synchronous run.
   */
  replace(objects: readonly R[], resourceVersion: string): void {
    const changes = this.store.replace(objects, resourceVersion);
    const sink = this.#sink;
    const deltas = this.deltas;
    for (const delta of changes) {
      if (sink !== undefined) sink.onReflectorDelta(delta, true);
      if (deltas.listening) deltas.emit(delta, true);
    }
  }

  /** A watch event's change: to the sink, then to the listeners. */
  #deliver(delta: StoreDelta<R>): void {
    if (this.#sink !== undefined) this.#sink.onReflectorDelta(delta, false);
    if (this.deltas.listening) this.deltas.emit(delta, false);
  }
}
