import type { KubernetesObject } from '@kindex/core';
import type { ReflectorDelta } from '../reflector-delta.js';
import type { PreparedObject } from './prepare-object.js';

/**
 * The reflector's view of the server: the last object it emitted per key. Deltas are computed
 * against it, so a consumer that applies every delta in order holds exactly this view, and a
 * relist or a replayed watch event produces nothing for an object whose resourceVersion it
 * already holds. It stores references to the same frozen objects the consumer caches: one map
 * entry per object, no copies.
 */
export class KnownObjects<R extends KubernetesObject> {
  private objects = new Map<string, R>();

  get size(): number {
    return this.objects.size;
  }

  get(key: string): R | undefined {
    return this.objects.get(key);
  }

  values(): IterableIterator<R> {
    return this.objects.values();
  }

  /** Applies an ADDED or MODIFIED watch event; `emit` receives 0, 1 or 2 deltas. */
  upsert(next: PreparedObject<R>, emit: (delta: ReflectorDelta<R>) => void): void {
    const old = this.objects.get(next.key);
    if (old !== undefined && old.metadata?.resourceVersion === next.resourceVersion) return;
    this.objects.set(next.key, next.object);
    emitChange(next.key, old, next.object, emit);
  }

  /** Applies a DELETED watch event. A delete of an object never seen emits nothing. */
  delete(next: PreparedObject<R>, emit: (delta: ReflectorDelta<R>) => void): void {
    const old = this.objects.get(next.key);
    if (old === undefined) return;
    this.objects.delete(next.key);
    emit({ type: 'deleted', key: next.key, object: next.object, deleteStateUnknown: false });
  }

  /**
   * Replaces the view with a fresh list: `added`/`updated` in list order for what is new or
   * changed, then `deleted` with `deleteStateUnknown` for what vanished. Unchanged objects keep
   * the instance the consumer already holds and emit nothing.
   */
  replace(listed: readonly PreparedObject<R>[], emit: (delta: ReflectorDelta<R>) => void): void {
    const previous = this.objects;
    const next = new Map<string, R>();
    const changes: Array<[string, R | undefined, R]> = [];
    for (const item of listed) {
      const old = previous.get(item.key);
      if (old !== undefined && old.metadata?.resourceVersion === item.resourceVersion) {
        next.set(item.key, old);
      } else {
        next.set(item.key, item.object);
        changes.push([item.key, old, item.object]);
      }
    }
    // Swap before emitting, so a consumer reading the reflector from a delta handler sees the new view.
    this.objects = next;
    for (const [key, old, object] of changes) emitChange(key, old, object, emit);
    for (const [key, old] of previous) {
      if (!next.has(key)) emit({ type: 'deleted', key, object: old, deleteStateUnknown: true });
    }
  }
}

function emitChange<R extends KubernetesObject>(
  key: string,
  old: R | undefined,
  object: R,
  emit: (delta: ReflectorDelta<R>) => void,
): void {
  if (old === undefined) {
    emit({ type: 'added', key, object });
  } else if (old.metadata?.uid !== undefined && object.metadata?.uid !== undefined && old.metadata.uid !== object.metadata.uid) {
    // Deleted and re-created under the same name while we were not looking.
    emit({ type: 'deleted', key, object: old, deleteStateUnknown: true });
    emit({ type: 'added', key, object });
  } else {
    emit({ type: 'updated', key, object, oldObject: old });
  }
}
