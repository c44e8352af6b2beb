import { ResourceID, type IndexedStore, type KubernetesObject, type StoreDelta } from '@kindex/core';
import type { ReflectorDelta } from '../reflector-delta.js';
import type { ReflectorFill } from '../reflector-fill.js';
import type { PreparedObject } from './prepare-object.js';

/**
 * The reflector's view when it fills an {@link IndexedStore} itself ({@link ReflectorFill}): the
 * store is the diff base and the output at once, so a watch event costs one lookup of the old
 * object (`upsertIfChanged`) and a list is one `replace` batch. Changes go to the fill's callbacks
 * as the store's own deltas (no conversion); the public `deltas$` shape is built only when someone
 * listens (`emit` given).
 */
export class StoreBackedView<R extends KubernetesObject> {
  private readonly store: IndexedStore<R>;

  constructor(private readonly fill: ReflectorFill<R>) {
    this.store = fill.store;
  }

  get(key: string): R | undefined {
    return this.store.get(key);
  }

  list(): R[] {
    return this.store.list();
  }

  /** An ADDED or MODIFIED watch event. */
  upsert(next: PreparedObject<R>, emit: ((delta: ReflectorDelta<R>) => void) | undefined): void {
    const written = this.store.upsertIfChanged(next.object);
    if (written === undefined) return; // the resourceVersion the store holds: a replayed event
    const { object, old } = written;
    if (old === undefined) {
      this.deliver({ type: 'create', object }, next.key, emit);
    } else if (old.metadata?.uid !== undefined && object.metadata?.uid !== undefined && old.metadata.uid !== object.metadata.uid) {
      // Deleted and re-created under the same name while we were not looking.
      this.deliver({ type: 'delete', object: old, deleteStateUnknown: true }, next.key, emit);
      this.deliver({ type: 'create', object }, next.key, emit);
    } else {
      this.deliver({ type: 'update', object, oldObject: old }, next.key, emit);
    }
  }

  /** A DELETED watch event; one for an object never seen changes nothing. */
  delete(next: PreparedObject<R>, emit: ((delta: ReflectorDelta<R>) => void) | undefined): void {
    if (this.store.delete(next.key, next.resourceVersion) === undefined) return;
    this.deliver({ type: 'delete', object: next.object, deleteStateUnknown: false }, next.key, emit);
  }

  /** A list: one store batch, its deltas handed over together. */
  replace(listed: readonly PreparedObject<R>[], resourceVersion: string, emit: ((delta: ReflectorDelta<R>) => void) | undefined): void {
    const objects = new Array<R>(listed.length);
    for (let i = 0; i < listed.length; i++) objects[i] = listed[i]!.object;
    const deltas = this.store.replace(objects, resourceVersion);
    this.fill.onList(deltas);
    if (emit !== undefined) for (const delta of deltas) emit(toReflectorDelta(delta, ResourceID.keyOfResource(delta.object)));
  }

  private deliver(delta: StoreDelta<R>, key: string, emit: ((delta: ReflectorDelta<R>) => void) | undefined): void {
    this.fill.onDelta(delta);
    if (emit !== undefined) emit(toReflectorDelta(delta, key));
  }
}

function toReflectorDelta<R extends KubernetesObject>(delta: StoreDelta<R>, key: string): ReflectorDelta<R> {
  switch (delta.type) {
    case 'create':
      return { type: 'added', key, object: delta.object };
    case 'update':
      return { type: 'updated', key, object: delta.object, oldObject: delta.oldObject };
    case 'delete':
      return { type: 'deleted', key, object: delta.object, deleteStateUnknown: delta.deleteStateUnknown };
  }
}
