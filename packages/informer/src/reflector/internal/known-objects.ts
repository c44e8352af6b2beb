import type { KubernetesObject } from '@kindex/core';
import type { ReflectorDelta } from '../reflector-delta.js';
import type { ReflectorStore } from '../reflector-store.js';
import type { PreparedObject } from './prepare-object.js';

/**
 * The reflector's view of the server: the last object it emitted per key, held either in its
 * own map or (given a {@link ReflectorStore}) in the consumer's store, which the consumer keeps
 * in step by applying each delta as it is emitted. Deltas are computed against this view, so a
 * relist or a replayed watch event produces nothing for an object whose resourceVersion it
 * already holds. The own map stores references to the frozen objects the consumer caches: one
 * map entry per object, no copies.
 */
export class KnownObjects<R extends KubernetesObject> {
  private readonly own: Map<string, R> | undefined;
  private readonly view: ReflectorStore<R>;

  constructor(consumerStore?: ReflectorStore<R>) {
    if (consumerStore === undefined) {
      this.own = new Map();
      this.view = this.own;
    } else {
      this.view = consumerStore;
    }
  }

  get(key: string): R | undefined {
    return this.view.get(key);
  }

  /** Every object held. */
  list(): R[] {
    if (this.own !== undefined) return [...this.own.values()];
    const objects: R[] = [];
    for (const key of this.view.keys()) {
      const o = this.view.get(key);
      if (o !== undefined) objects.push(o);
    }
    return objects;
  }

  /** Applies an ADDED or MODIFIED watch event; `emit` receives 0, 1 or 2 deltas. */
  upsert(next: PreparedObject<R>, emit: ((delta: ReflectorDelta<R>) => void) | undefined): void {
    const old = this.view.get(next.key);
    if (old !== undefined && old.metadata?.resourceVersion === next.resourceVersion) return;
    this.own?.set(next.key, next.object);
    emitChange(next.key, old, next.object, emit);
  }

  /** Applies a DELETED watch event. A delete of an object never seen emits nothing. */
  delete(next: PreparedObject<R>, emit: ((delta: ReflectorDelta<R>) => void) | undefined): void {
    if (this.view.get(next.key) === undefined) return;
    this.own?.delete(next.key);
    emit?.({ type: 'deleted', key: next.key, object: next.object, deleteStateUnknown: false });
  }

  /**
   * Replaces the view with a fresh list: `added`/`updated` in list order for what is new or
   * changed, then `deleted` with `deleteStateUnknown` for what vanished. Unchanged objects keep
   * the instance the consumer already holds and emit nothing.
   */
  replace(listed: readonly PreparedObject<R>[], emit: ((delta: ReflectorDelta<R>) => void) | undefined): void {
    const listedKeys = new Set<string>();
    const changes: Array<[string, R | undefined, R]> = [];
    for (const item of listed) {
      listedKeys.add(item.key);
      const old = this.view.get(item.key);
      if (old === undefined || old.metadata?.resourceVersion !== item.resourceVersion) changes.push([item.key, old, item.object]);
    }
    // Everything is decided before the first emit: a consumer store changes under our feet as
    // soon as deltas flow, and keys() must not be walked while it does.
    const vanished: Array<[string, R]> = [];
    for (const key of this.view.keys()) {
      if (listedKeys.has(key)) continue;
      const old = this.view.get(key);
      if (old !== undefined) vanished.push([key, old]);
    }
    if (this.own !== undefined) {
      // Updated first, so a consumer reading the reflector from a delta handler sees the new view.
      for (const [key, , object] of changes) this.own.set(key, object);
      for (const [key] of vanished) this.own.delete(key);
    }
    for (const [key, old, object] of changes) emitChange(key, old, object, emit);
    for (const [key, old] of vanished) emit?.({ type: 'deleted', key, object: old, deleteStateUnknown: true });
  }
}

function emitChange<R extends KubernetesObject>(
  key: string,
  old: R | undefined,
  object: R,
  emit: ((delta: ReflectorDelta<R>) => void) | undefined,
): void {
  if (old === undefined) {
    emit?.({ type: 'added', key, object });
  } else if (old.metadata?.uid !== undefined && object.metadata?.uid !== undefined && old.metadata.uid !== object.metadata.uid) {
    // Deleted and re-created under the same name while we were not looking.
    emit?.({ type: 'deleted', key, object: old, deleteStateUnknown: true });
    emit?.({ type: 'added', key, object });
  } else {
    emit?.({ type: 'updated', key, object, oldObject: old });
  }
}
