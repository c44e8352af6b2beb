// What kube-controller-manager would do for the objects of the embedded server, run in the
// background after each deletion: the garbage collector (dependents of a deleted owner, found by
// ownerReferences uid; Foreground owners wait for their dependents; Orphan strips the references)
// and the namespace controller (a deleted namespace empties, then disappears).

import { finalizersOf, metaOf, ownerRefsOf } from '../machinery/object-meta.js';
import type { Json, ObjectStore, StoreEvent } from '../storage/object-store.js';
import type { ResourceRegistry } from '../storage/resource-registry.js';
import type { ControllerWrites } from '../machinery/controller-writes.js';

/** Options of {@link GarbageCollector}. */
export interface GarbageCollectorOptions {
  /** Delay between a deletion and the collection it causes. Defaults to 50. */
  gcDelayMs?: number;
}

/** Background cascade deletion and namespace cleanup for one embedded server. */
export class GarbageCollector {
  private timer: NodeJS.Timeout | undefined;
  private readonly delay: number;
  private readonly unsubscribe: () => void;
  private stopped = false;

  constructor(
    private readonly store: ObjectStore,
    private readonly registry: ResourceRegistry,
    private readonly handler: ControllerWrites,
    options: GarbageCollectorOptions = {},
  ) {
    this.delay = options.gcDelayMs ?? 50;
    this.unsubscribe = store.subscribe((e) => this.onEvent(e));
  }

  /** Stops collecting. */
  dispose(): void {
    this.stopped = true;
    this.unsubscribe();
    if (this.timer !== undefined) clearTimeout(this.timer);
  }

  // Work is tracked from events so that a sweep touches only what changed, not all objects.
  private readonly goneOwners = new Set<string>();
  private readonly deleting = new Set<string>();

  private onEvent(e: StoreEvent): void {
    const meta = metaOf(e.object.obj);
    const ref = `${e.typeId}|${e.object.key}`;
    if (e.type === 'DELETED') {
      this.deleting.delete(ref);
      if (typeof meta['uid'] === 'string') this.goneOwners.add(meta['uid']);
      // A dependent's deletion can unblock a Foreground owner or a terminating namespace.
      if (this.deleting.size > 0 || this.goneOwners.size > 0) this.schedule();
    } else if (meta['deletionTimestamp'] !== undefined) {
      this.deleting.add(ref);
      this.schedule();
    } else if (ownerRefsOf(e.object.obj).some((r) => typeof r['uid'] === 'string' && this.store.findByUid(r['uid']) === undefined)) {
      // Created or updated with an owner that no longer exists (or never did).
      for (const r of ownerRefsOf(e.object.obj)) if (typeof r['uid'] === 'string') this.goneOwners.add(r['uid']);
      this.schedule();
    }
  }

  private schedule(): void {
    if (this.stopped || this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      try {
        this.sweep();
      } catch (e) {
        // A failing sweep must not stop collection; the next write schedules another.
        process.emitWarning(`kindex embedded apiserver: garbage collection failed: ${(e as Error).message}`);
      }
    }, this.delay);
    this.timer.unref();
  }

  /** One pass over the pending work: orphaning, foreground owners, namespaces, dependents. */
  sweep(): void {
    for (const ref of [...this.deleting]) {
      const [typeId, key] = splitRef(ref);
      const o = this.store.get(typeId, key);
      if (o === undefined) {
        this.deleting.delete(ref);
        continue;
      }
      const meta = metaOf(o.obj);
      const finalizers = finalizersOf(o.obj);
      if (finalizers.includes('orphan')) this.orphan(typeId, key, meta['uid'] as string, 'orphan');
      else if (finalizers.includes('foregroundDeletion')) this.foreground(typeId, key, meta['uid'] as string);
      if (typeId === '/namespaces') this.finishNamespace(meta['name'] as string);
    }
    const gone = [...this.goneOwners];
    this.goneOwners.clear();
    for (const uid of gone) {
      if (this.store.findByUid(uid) !== undefined) continue;
      for (const ref of this.store.dependentsOf(uid)) {
        const [typeId, key] = splitRef(ref);
        const o = this.store.get(typeId, key);
        if (o !== undefined) this.collectIfOwnersGone(typeId, key, ownerRefsOf(o.obj));
      }
    }
  }

  private orphan(typeId: string, key: string, uid: string, finalizer: string): void {
    for (const ref of this.store.dependentsOf(uid)) {
      const [depType, depKey] = splitRef(ref);
      const t = this.registry.byTypeId(depType);
      const dep = t && this.store.get(depType, depKey);
      if (t === undefined || dep === undefined) continue;
      const draft = structuredClone(dep.obj) as Json;
      const m = metaOf(draft);
      const kept = ownerRefsOf(dep.obj).filter((r) => r['uid'] !== uid);
      if (kept.length === 0) delete m['ownerReferences'];
      else m['ownerReferences'] = kept;
      this.handler.rewrite(t, dep, draft);
    }
    this.removeFinalizer(typeId, key, finalizer);
  }

  private foreground(typeId: string, key: string, uid: string): void {
    const deps = this.store.dependentsOf(uid);
    for (const ref of deps) {
      const [depType, depKey] = splitRef(ref);
      const t = this.registry.byTypeId(depType);
      const dep = t && this.store.get(depType, depKey);
      if (t !== undefined && dep !== undefined && metaOf(dep.obj)['deletionTimestamp'] === undefined) {
        this.handler.deleteObject(t, dep, 'Foreground');
      }
    }
    if (this.store.dependentsOf(uid).length === 0) this.removeFinalizer(typeId, key, 'foregroundDeletion');
  }

  private removeFinalizer(typeId: string, key: string, finalizer: string): void {
    const t = this.registry.byTypeId(typeId);
    const o = t && this.store.get(typeId, key);
    if (t === undefined || o === undefined) return;
    const draft = structuredClone(o.obj) as Json;
    const m = metaOf(draft);
    const left = finalizersOf(o.obj).filter((f) => f !== finalizer);
    if (left.length === 0) delete m['finalizers'];
    else m['finalizers'] = left;
    this.handler.rewrite(t, o, draft);
  }

  // Like the real collector: a dependent goes when none of its owners exists any more; owners
  // that are gone while others remain are only removed from its references.
  private collectIfOwnersGone(typeId: string, key: string, refs: Json[]): void {
    const live = refs.filter((r) => typeof r['uid'] === 'string' && this.store.findByUid(r['uid']) !== undefined);
    if (live.length === refs.length) return;
    const t = this.registry.byTypeId(typeId);
    const o = t && this.store.get(typeId, key);
    if (t === undefined || o === undefined) return;
    if (live.length === 0) {
      if (metaOf(o.obj)['deletionTimestamp'] === undefined) this.handler.deleteObject(t, o, 'Background');
      return;
    }
    const draft = structuredClone(o.obj) as Json;
    metaOf(draft)['ownerReferences'] = live;
    this.handler.rewrite(t, o, draft);
  }

  // The namespace controller: delete everything in the namespace, then finalize it once empty.
  private finishNamespace(name: string): void {
    let remaining = 0;
    for (const t of this.registry.all()) {
      if (!t.namespaced) continue;
      for (const o of [...this.store.list(t.id, name)]) {
        if (metaOf(o.obj)['deletionTimestamp'] === undefined) this.handler.deleteObject(t, o, 'Background');
        if (this.store.get(t.id, o.key) !== undefined) remaining++;
      }
    }
    // Objects held by their own finalizers keep the namespace; their deletion sweeps again.
    if (remaining > 0) return;
    const nsType = this.registry.byTypeId('/namespaces')!;
    const ns = this.store.get('/namespaces', name);
    if (ns === undefined) return;
    const draft = structuredClone(ns.obj) as Json;
    draft['spec'] = { ...((draft['spec'] ?? {}) as Json), finalizers: [] };
    this.handler.rewrite(nsType, ns, draft);
  }
}

function splitRef(ref: string): [string, string] {
  const i = ref.indexOf('|');
  return [ref.slice(0, i), ref.slice(i + 1)];
}
