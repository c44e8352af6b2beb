import { IndexedStore, isRecreated, Listeners, type KubernetesObject, type StoreDelta } from '@kindex/core';
import type { PreparedObject } from './prepare-object.js';

/**
 * The reflector's view of the server, its one store mode: an {@link IndexedStore} that is the diff
 * base and the output at once. A watch event costs one lookup of the old object
 * (`upsertIfChanged`) and a list is one `replace` batch; a relist or a replayed watch event
 * produces nothing for an object whose resourceVersion the store holds. Each change goes to the
 * listeners as the store's own {@link StoreDelta} (no conversion), after the store shows it; the
 * second argument says whether it came from a list (`true`) or a watch event.
 */
export class ReflectorView<R extends KubernetesObject> {
  readonly deltas = new Listeners<StoreDelta<R>, boolean>();

  /**
   * @param store the objects: by default a store trusting that objects come frozen (the
   *   reflector freezes each one itself, so the store does not walk them again).
   */
  constructor(readonly store: IndexedStore<R> = new IndexedStore<R>({ assumeFrozen: true })) {}

  /** An ADDED or MODIFIED watch event. */
  upsert(next: PreparedObject<R>): void {
    const written = this.store.upsertIfChanged(next.object);
    if (written === undefined) return; // the resourceVersion the store holds: a replayed event
    const { object, old } = written;
    const deltas = this.deltas;
    if (!deltas.listening) return;
    if (old === undefined) {
      deltas.emit({ type: 'create', object }, false);
    } else if (isRecreated(old, object)) {
      deltas.emit({ type: 'delete', object: old, deleteStateUnknown: true }, false);
      deltas.emit({ type: 'create', object }, false);
    } else {
      deltas.emit({ type: 'update', object, oldObject: old }, false);
    }
  }

  /** A DELETED watch event; one for an object never seen changes nothing. */
  delete(next: PreparedObject<R>): void {
    if (this.store.delete(next.key, next.resourceVersion) === undefined) return;
    if (this.deltas.listening) this.deltas.emit({ type: 'delete', object: next.object, deleteStateUnknown: false }, false);
  }

  /**
   * A list: one store batch (creates and updates in list order, deletes of what vanished last,
   * with `deleteStateUnknown`), its deltas delivered together in one synchronous run.
   */
  replace(objects: readonly R[], resourceVersion: string): void {
    const changes = this.store.replace(objects, resourceVersion);
    for (const delta of changes) this.deltas.emit(delta, true);
  }
}
