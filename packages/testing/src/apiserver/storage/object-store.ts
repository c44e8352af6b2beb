// Objects of every kind under one global resourceVersion counter (like one etcd revision), plus a
// bounded history of events for watches that resume from a resourceVersion. Objects are frozen
// and serialized once per write, so reads, lists and watch fan-out never copy or re-serialize.

import { deepFreeze } from '@kindex/core/internal';
import type { ResourceType } from './resource-registry.js';
import { expired } from './status-error.js';

/** A JSON object. */
export type Json = Record<string, unknown>;

/** One stored object version. */
export interface StoredObject {
  /** Deep-frozen object, with kind and apiVersion (of the storage version). */
  readonly obj: Readonly<Json>;
  /** JSON of the object without kind and apiVersion (built-in list items are sent so). */
  readonly body: string;
  readonly rv: number;
  readonly key: string;
}

/** A change, as history keeps it and watches receive it. */
export interface StoreEvent {
  readonly rv: number;
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly typeId: string;
  readonly namespace: string;
  /** The new state; for DELETED the last state, stamped with the deletion's resourceVersion. */
  readonly object: StoredObject;
  /** The state before, for MODIFIED and DELETED. */
  readonly previous: StoredObject | undefined;
}

/** The JSON text of a stored object with `kind` and `apiVersion` first, as the real server writes. */
export function objectJson(stored: StoredObject, kind: string, apiVersion: string): string {
  const head = `{"kind":${JSON.stringify(kind)},"apiVersion":${JSON.stringify(apiVersion)}`;
  return stored.body === '{}' ? `${head}}` : `${head},${stored.body.slice(1)}`;
}

class TypeTable {
  readonly objects = new Map<string, StoredObject>();
  // Sorted keys, built on the first list and then kept in step with inserts and deletes, so paginated
  // lists of 100k objects sort once rather than once per page.
  private sorted: string[] | undefined;

  sortedKeys(): string[] {
    if (this.sorted === undefined) this.sorted = [...this.objects.keys()].sort();
    return this.sorted;
  }

  // Keeping the sorted keys up to date costs a binary search and a memmove per insert or
  // delete, much less than re-sorting 100k keys for the next list.
  added(key: string): void {
    if (this.sorted !== undefined) this.sorted.splice(lowerBound(this.sorted, key), 0, key);
  }

  removed(key: string): void {
    if (this.sorted === undefined) return;
    const i = lowerBound(this.sorted, key);
    if (this.sorted[i] === key) this.sorted.splice(i, 1);
  }
}

/** Options of {@link ObjectStore}. */
export interface ObjectStoreOptions {
  /** How many events history keeps for watches from an older resourceVersion. Defaults to 1000. */
  historyWindow?: number;
}

/** All objects, the resourceVersion counter and the event history. Synchronous: one writer. */
export class ObjectStore {
  private readonly tables = new Map<string, TypeTable>();
  private readonly history: (StoreEvent | undefined)[];
  private historyStart = 0;
  private historyLength = 0;
  private rv = 1;
  // Watches from a resourceVersion at or above this one can be served from history.
  private compacted = 1;
  private readonly listeners = new Set<(e: StoreEvent) => void>();
  private readonly owners = new Map<string, Set<string>>();
  private readonly uids = new Map<string, string>();

  constructor(options: ObjectStoreOptions = {}) {
    const window = options.historyWindow ?? 1000;
    if (!Number.isInteger(window) || window < 1) throw new RangeError(`historyWindow must be a positive integer, got ${window}`);
    this.history = new Array<StoreEvent | undefined>(window);
  }

  /** The latest resourceVersion (every write increments it). */
  get resourceVersion(): number {
    return this.rv;
  }

  /** The oldest resourceVersion a watch may start from. */
  get oldestResumable(): number {
    return this.compacted;
  }

  /** Calls `listener` synchronously after every write. */
  subscribe(listener: (e: StoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get(typeId: string, key: string): StoredObject | undefined {
    return this.tables.get(typeId)?.objects.get(key);
  }

  count(typeId: string): number {
    return this.tables.get(typeId)?.objects.size ?? 0;
  }

  /** Objects of a type in key order, optionally of one namespace, starting after `afterKey`. */
  *list(typeId: string, namespace?: string, afterKey?: string): Generator<StoredObject> {
    const table = this.tables.get(typeId);
    if (table === undefined) return;
    const keys = table.sortedKeys();
    const prefix = namespace === undefined ? '' : `${namespace}/`;
    let from = lowerBound(keys, afterKey !== undefined && afterKey >= prefix ? afterKey + '\0' : prefix);
    for (; from < keys.length; from++) {
      const key = keys[from]!;
      if (!key.startsWith(prefix)) return;
      const o = table.objects.get(key);
      if (o !== undefined) yield o;
    }
  }

  /**
   * Objects of a type as they were at resourceVersion `rv`, in key order after `afterKey`: a
   * consistent snapshot for continued lists, rebuilt from history (etcd serves these from MVCC).
   * @throws {ApiStatusError} 410 Expired when history no longer reaches back to `rv`.
   */
  *listAt(typeId: string, rv: number, namespace?: string, afterKey?: string): Generator<StoredObject> {
    // The first change after `rv` to a key tells its state at `rv`: the previous object, or none if it was added.
    const atRv = new Map<string, StoredObject | undefined>();
    for (const e of this.eventsSince(rv)) {
      if (e.typeId !== typeId || atRv.has(e.object.key)) continue;
      atRv.set(e.object.key, e.type === 'ADDED' ? undefined : e.previous);
    }
    const prefix = namespace === undefined ? '' : `${namespace}/`;
    const past = [...atRv.values()]
      .filter((o): o is StoredObject => o !== undefined && o.key.startsWith(prefix) && (afterKey === undefined || o.key > afterKey))
      .sort((a, b) => (a.key < b.key ? -1 : 1));
    let i = 0;
    for (const o of this.list(typeId, namespace, afterKey)) {
      while (i < past.length && past[i]!.key < o.key) yield past[i++]!;
      if (!atRv.has(o.key)) yield o;
    }
    while (i < past.length) yield past[i++]!;
  }

  /** How many objects of a type (and namespace) come after `afterKey`. */
  countAfter(typeId: string, namespace: string | undefined, afterKey: string): number {
    const table = this.tables.get(typeId);
    if (table === undefined) return 0;
    const keys = table.sortedKeys();
    const end = namespace === undefined ? keys.length : lowerBound(keys, `${namespace}0`); // '0' follows '/'
    return Math.max(0, end - lowerBound(keys, afterKey + '\0'));
  }

  /** The `typeId|key` of the object with this uid, if it exists. */
  findByUid(uid: string): string | undefined {
    return this.uids.get(uid);
  }

  /** Keys (`typeId|key`) of objects whose ownerReferences name this uid. */
  dependentsOf(uid: string): string[] {
    return [...(this.owners.get(uid) ?? [])];
  }

  /** Writes a new object; `draft` is owned by the store from now on. */
  create(type: ResourceType, key: string, draft: Json): StoredObject {
    const table = this.table(type.id);
    const stored = this.seal(key, draft, ++this.rv);
    table.objects.set(key, stored);
    table.added(key);
    this.indexOwners(type.id, key, undefined, stored);
    this.record({ rv: stored.rv, type: 'ADDED', typeId: type.id, namespace: namespaceOf(stored), object: stored, previous: undefined });
    return stored;
  }

  /** Replaces an existing object. */
  update(type: ResourceType, key: string, draft: Json): StoredObject {
    const table = this.table(type.id);
    const previous = table.objects.get(key);
    const stored = this.seal(key, draft, ++this.rv);
    table.objects.set(key, stored);
    if (previous === undefined) table.added(key);
    this.indexOwners(type.id, key, previous, stored);
    this.record({
      rv: stored.rv,
      type: previous === undefined ? 'ADDED' : 'MODIFIED',
      typeId: type.id,
      namespace: namespaceOf(stored),
      object: stored,
      previous,
    });
    return stored;
  }

  /**
   * Replaces an object as a read from storage would now decode it (a CRD gained a default): same
   * resourceVersion, no event, as kube-apiserver defaults on read without writing.
   */
  redecode(type: ResourceType, key: string, draft: Json): void {
    const table = this.tables.get(type.id);
    const previous = table?.objects.get(key);
    if (table === undefined || previous === undefined) return;
    table.objects.set(key, this.seal(key, draft, previous.rv));
  }

  /** Removes an object; the DELETED event carries its last state at the new resourceVersion. */
  delete(type: ResourceType, key: string): StoredObject | undefined {
    const table = this.tables.get(type.id);
    const previous = table?.objects.get(key);
    if (table === undefined || previous === undefined) return undefined;
    table.objects.delete(key);
    table.removed(key);
    this.indexOwners(type.id, key, previous, undefined);
    const draft = structuredClone(previous.obj) as Json;
    const stamped = this.seal(key, draft, ++this.rv);
    this.record({ rv: stamped.rv, type: 'DELETED', typeId: type.id, namespace: namespaceOf(stamped), object: stamped, previous });
    return stamped;
  }

  /** Forgets all history: watches from any older resourceVersion now get 410 Expired. */
  expireHistory(): void {
    this.history.fill(undefined);
    this.historyStart = 0;
    this.historyLength = 0;
    this.compacted = this.rv;
  }

  /**
   * The events after `rv` (in order), for a watch resuming there.
   * @throws {ApiStatusError} 410 Expired when history no longer reaches back to `rv`.
   */
  eventsSince(rv: number): StoreEvent[] {
    if (rv < this.compacted) {
      throw expired(`too old resource version: ${rv} (${this.compacted})`);
    }
    const out: StoreEvent[] = [];
    for (let i = 0; i < this.historyLength; i++) {
      const e = this.history[(this.historyStart + i) % this.history.length]!;
      if (e.rv > rv) out.push(e);
    }
    return out;
  }

  private table(typeId: string): TypeTable {
    let t = this.tables.get(typeId);
    if (t === undefined) {
      t = new TypeTable();
      this.tables.set(typeId, t);
    }
    return t;
  }

  private seal(key: string, draft: Json, rv: number): StoredObject {
    const meta = (draft['metadata'] ?? {}) as Json;
    meta['resourceVersion'] = String(rv);
    draft['metadata'] = meta;
    const { kind: _k, apiVersion: _a, ...rest } = draft;
    const body = JSON.stringify(rest);
    return Object.freeze({ obj: deepFreeze(draft), body, rv, key });
  }

  private record(e: StoreEvent): void {
    const cap = this.history.length;
    if (this.historyLength === cap) {
      // The oldest event falls out: resuming from its resourceVersion or earlier is no longer possible.
      this.compacted = this.history[this.historyStart]!.rv;
      this.historyStart = (this.historyStart + 1) % cap;
      this.historyLength--;
    }
    this.history[(this.historyStart + this.historyLength) % cap] = e;
    this.historyLength++;
    for (const l of this.listeners) {
      // The write has happened; one failing listener must not keep the event from the others.
      try {
        l(e);
      } catch (err) {
        process.emitWarning(`kindex embedded apiserver: event listener failed: ${(err as Error).message}`);
      }
    }
  }

  private indexOwners(typeId: string, key: string, before: StoredObject | undefined, after: StoredObject | undefined): void {
    const ref = `${typeId}|${key}`;
    const oldUid = before === undefined ? undefined : (before.obj['metadata'] as Json)['uid'];
    const newUid = after === undefined ? undefined : (after.obj['metadata'] as Json)['uid'];
    if (typeof oldUid === 'string' && oldUid !== newUid) this.uids.delete(oldUid);
    if (typeof newUid === 'string') this.uids.set(newUid, ref);
    for (const uid of ownerUids(before)) this.owners.get(uid)?.delete(ref);
    for (const uid of ownerUids(after)) {
      let set = this.owners.get(uid);
      if (set === undefined) {
        set = new Set();
        this.owners.set(uid, set);
      }
      set.add(ref);
    }
    for (const uid of ownerUids(before)) if (this.owners.get(uid)?.size === 0) this.owners.delete(uid);
  }
}

function ownerUids(o: StoredObject | undefined): string[] {
  const refs = (o?.obj['metadata'] as Json | undefined)?.['ownerReferences'];
  if (!Array.isArray(refs)) return [];
  return refs.map((r: Json) => r['uid']).filter((u): u is string => typeof u === 'string');
}

function namespaceOf(o: StoredObject): string {
  return ((o.obj['metadata'] as Json)['namespace'] as string | undefined) ?? '';
}

function lowerBound(keys: readonly string[], target: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (keys[mid]! < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
