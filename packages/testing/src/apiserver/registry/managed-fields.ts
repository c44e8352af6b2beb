// Field ownership (`metadata.managedFields`) and server-side apply, as kube-apiserver's field
// manager does them:
// - every write records an `Update` entry for its manager (`?fieldManager=`, else the User-Agent up
//   to its first `/`) owning the fields it added or changed; those fields leave other managers;
// - an apply (`Apply` entry) owns exactly the fields of its configuration: a field another manager
//   owns with a different value is a conflict (409, unless forced, which takes the field over);
//   fields the applier owned before and left out are removed unless someone else owns them;
// - entries are one per manager, operation and subresource, sorted like the real server's
//   (operation, time, manager), and dropped when they own nothing.

import { jsonEqual, isJsonObject } from '@kindex/core/internal';
import { FieldSet, pathString } from './field-set.js';
import { itemKey, type FieldSchema } from './field-schema.js';
import { metaOf, nowTimestamp } from '../machinery/object-meta.js';
import type { Json } from '../storage/object-store.js';
import { ApiStatusError } from '../storage/status-error.js';

/** One decoded entry of `metadata.managedFields`. */
export interface ManagedEntry {
  readonly manager: string;
  readonly operation: 'Apply' | 'Update';
  readonly apiVersion: string;
  readonly subresource: string | undefined;
  /** When the manager last changed the object; none for a manager that only took shared ownership. */
  time: string | undefined;
  fields: FieldSet;
}

// Fields nobody owns: identity and bookkeeping the server sets.
const STRIPPED_META = ['name', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'managedFields', 'selfLink'];

/** The entries of an object's `metadata.managedFields`. */
export function readManagedFields(obj: Readonly<Json>): ManagedEntry[] {
  const raw = metaOf(obj)['managedFields'];
  if (!Array.isArray(raw)) return [];
  const out: ManagedEntry[] = [];
  for (const e of raw as Json[]) {
    if (e === null || typeof e !== 'object' || typeof e['manager'] !== 'string') continue;
    out.push({
      manager: e['manager'],
      operation: e['operation'] === 'Apply' ? 'Apply' : 'Update',
      apiVersion: typeof e['apiVersion'] === 'string' ? e['apiVersion'] : '',
      subresource: typeof e['subresource'] === 'string' && e['subresource'] !== '' ? e['subresource'] : undefined,
      time: typeof e['time'] === 'string' && !Number.isNaN(Date.parse(e['time'])) ? secondsTimestamp(e['time']) : undefined,
      fields: FieldSet.fromFieldsV1(e['fieldsV1']),
    });
  }
  return out;
}

/**
 * Whether two managedFields lists say the same thing; times compare as instants, since clients
 * echo them back in their own format (client-node sends milliseconds).
 */
export function sameManagedFields(a: unknown, b: unknown): boolean {
  const ea = readManagedFields({ metadata: { managedFields: a } });
  const eb = readManagedFields({ metadata: { managedFields: b } });
  if (ea.length !== eb.length) return false;
  return ea.every((x, i) => {
    const y = eb[i]!;
    return (
      x.manager === y.manager &&
      x.operation === y.operation &&
      x.apiVersion === y.apiVersion &&
      x.subresource === y.subresource &&
      x.time === y.time &&
      x.fields.equals(y.fields)
    );
  });
}

/** Writes entries into `obj.metadata.managedFields` (removing it when there are none). */
export function writeManagedFields(obj: Json, entries: readonly ManagedEntry[]): void {
  const meta = metaOf(obj);
  obj['metadata'] = meta;
  const kept = entries.filter((e) => !e.fields.isEmpty());
  if (kept.length === 0) {
    delete meta['managedFields'];
    return;
  }
  // The real server's order: operation, then time (entries without one first), then manager.
  const order = (e: ManagedEntry): string =>
    `${e.operation}\u0000${e.time ?? ''}\u0000${e.manager}\u0000${e.apiVersion}\u0000${e.subresource ?? ''}`;
  meta['managedFields'] = [...kept]
    .sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0))
    .map((e) => ({
      manager: e.manager,
      operation: e.operation,
      apiVersion: e.apiVersion,
      ...(e.time === undefined ? {} : { time: e.time }),
      fieldsType: 'FieldsV1',
      fieldsV1: e.fields.toFieldsV1(),
      ...(e.subresource === undefined ? {} : { subresource: e.subresource }),
    }));
}

/** Removes the fields nobody owns from a set (identity, and what the subresource cannot write). */
export function stripSet(set: FieldSet, subresource: string | undefined, statusIsSubresource: boolean): void {
  for (const k of ['f:apiVersion', 'f:kind']) set.children.delete(k);
  const meta = set.children.get('f:metadata');
  if (meta !== undefined) {
    for (const k of STRIPPED_META) meta.children.delete(`f:${k}`);
    meta.self = false;
    if (meta.isEmpty()) set.children.delete('f:metadata');
  }
  if (subresource === 'status') {
    for (const k of [...set.children.keys()]) if (k !== 'f:status') set.children.delete(k);
  } else if (statusIsSubresource) {
    set.children.delete('f:status');
  }
}

// metav1.Time precision: seconds.
function secondsTimestamp(text: string): string {
  return new Date(Date.parse(text)).toISOString().replace(/\.\d+Z$/, 'Z');
}

/** The fields an apply configuration sets: its leaves, and the items of associative lists. */
export function fieldsOfConfig(value: unknown, schema: FieldSchema, into = new FieldSet()): FieldSet {
  if (isJsonObject(value) && !schema.atomic) {
    const entries = Object.entries(value).filter(([, v]) => v !== null && v !== undefined);
    if (entries.length === 0) into.self = true;
    for (const [k, v] of entries) fieldsOfConfig(v, schema.child(k), into.child(`f:${k}`));
    return into;
  }
  if (Array.isArray(value) && schema.listType === 'set') {
    for (const v of value) into.child(`v:${JSON.stringify(v)}`).self = true;
    if (value.length === 0) into.self = true;
    return into;
  }
  if (Array.isArray(value) && schema.listType === 'map') {
    const items = schema.items();
    for (const item of value) {
      const key = itemKey(item, schema);
      if (key === undefined) continue;
      const node = into.child(key);
      node.self = true;
      fieldsOfConfig(item, items, node);
      node.self = true;
    }
    if (value.length === 0) into.self = true;
    return into;
  }
  into.self = true;
  return into;
}

// Everything in a value newly added by an update: the node itself and every node below it.
function addWhole(value: unknown, schema: FieldSchema, into: FieldSet): void {
  into.self = true;
  if (isJsonObject(value) && !schema.atomic) {
    for (const [k, v] of Object.entries(value)) addWhole(v, schema.child(k), into.child(`f:${k}`));
  } else if (Array.isArray(value) && schema.listType === 'set') {
    for (const v of value) into.child(`v:${JSON.stringify(v)}`).self = true;
  } else if (Array.isArray(value) && schema.listType === 'map') {
    for (const item of value) {
      const key = itemKey(item, schema);
      if (key !== undefined) addWhole(item, schema.items(), into.child(key));
    }
  }
}

/** What an update changed: fields added or modified, and fields removed. */
export function diffFields(old: unknown, next: unknown, schema: FieldSchema): { changed: FieldSet; removed: FieldSet } {
  const changed = new FieldSet();
  const removed = new FieldSet();
  diffInto(old, next, schema, changed, removed);
  return { changed, removed };
}

function diffInto(old: unknown, next: unknown, schema: FieldSchema, changed: FieldSet, removed: FieldSet): void {
  if (isJsonObject(old) && isJsonObject(next) && !schema.atomic) {
    for (const [k, v] of Object.entries(next)) {
      const sub = schema.child(k);
      if (old[k] === undefined) addWhole(v, sub, changed.child(`f:${k}`));
      else diffInto(old[k], v, sub, changed.child(`f:${k}`), removed.child(`f:${k}`));
    }
    for (const k of Object.keys(old)) if (next[k] === undefined) removed.child(`f:${k}`).self = true;
    prune(changed);
    prune(removed);
    return;
  }
  if (Array.isArray(old) && Array.isArray(next) && schema.listType === 'set') {
    const before = new Set(old.map((v) => JSON.stringify(v)));
    const after = new Set(next.map((v) => JSON.stringify(v)));
    for (const v of after) if (!before.has(v)) changed.child(`v:${v}`).self = true;
    for (const v of before) if (!after.has(v)) removed.child(`v:${v}`).self = true;
    return;
  }
  if (Array.isArray(old) && Array.isArray(next) && schema.listType === 'map') {
    const items = schema.items();
    const before = new Map<string, unknown>();
    for (const item of old) {
      const key = itemKey(item, schema);
      if (key !== undefined) before.set(key, item);
    }
    const seen = new Set<string>();
    for (const item of next) {
      const key = itemKey(item, schema);
      if (key === undefined) continue;
      seen.add(key);
      if (!before.has(key)) addWhole(item, items, changed.child(key));
      else diffInto(before.get(key), item, items, changed.child(key), removed.child(key));
    }
    for (const key of before.keys()) if (!seen.has(key)) removed.child(key).self = true;
    prune(changed);
    prune(removed);
    return;
  }
  if (!jsonEqual(old, next)) changed.self = true;
}

// Drops the empty child nodes `child()` created on the way down.
function prune(set: FieldSet): void {
  for (const [k, c] of [...set.children]) {
    prune(c);
    if (c.isEmpty()) set.children.delete(k);
  }
}

/** The value at a path of owned-field elements, or undefined when the object lacks it. */
export function valueAt(obj: unknown, path: readonly string[], schema: FieldSchema): unknown {
  let v: unknown = obj;
  let s = schema;
  for (const e of path) {
    if (e.startsWith('f:')) {
      if (!isJsonObject(v)) return undefined;
      v = v[e.slice(2)];
      s = s.child(e.slice(2));
    } else if (e.startsWith('k:')) {
      if (!Array.isArray(v)) return undefined;
      const list = s;
      v = v.find((item) => itemKey(item, list) === e);
      s = s.items();
    } else if (e.startsWith('v:')) {
      if (!Array.isArray(v)) return undefined;
      v = v.find((item) => JSON.stringify(item) === e.slice(2));
    } else {
      if (!Array.isArray(v)) return undefined;
      v = v[Number(e.slice(2))];
    }
    if (v === undefined) return undefined;
  }
  return v;
}

// Removes the value at a path from an object, in place.
function removeAt(obj: Json, path: readonly string[], schema: FieldSchema): void {
  const parentPath = path.slice(0, -1);
  const last = path[path.length - 1]!;
  const parent = parentPath.length === 0 ? obj : valueAt(obj, parentPath, schema);
  if (last.startsWith('f:')) {
    if (isJsonObject(parent)) delete parent[last.slice(2)];
    return;
  }
  if (!Array.isArray(parent)) return;
  let listSchema = schema;
  for (const e of parentPath) listSchema = e.startsWith('f:') ? listSchema.child(e.slice(2)) : listSchema.items();
  const i = parent.findIndex((item) =>
    last.startsWith('k:') ? itemKey(item, listSchema) === last : last.startsWith('v:') ? JSON.stringify(item) === last.slice(2) : false,
  );
  if (i >= 0) parent.splice(i, 1);
}

/** Merges an apply configuration into the live object: maps by key, associative lists by item key, sets by value. */
export function mergeConfig(live: unknown, config: unknown, schema: FieldSchema): unknown {
  if (isJsonObject(config) && isJsonObject(live) && !schema.atomic) {
    const out: Json = { ...live };
    for (const [k, v] of Object.entries(config)) {
      if (v === null) delete out[k];
      else out[k] = mergeConfig(live[k], v, schema.child(k));
    }
    return out;
  }
  if (Array.isArray(config) && Array.isArray(live) && schema.listType === 'map') {
    const out: unknown[] = [...(live as unknown[])];
    const items = schema.items();
    for (const item of config) {
      const key = itemKey(item, schema);
      const i = key === undefined ? -1 : out.findIndex((o) => itemKey(o, schema) === key);
      if (i >= 0) out[i] = mergeConfig(out[i], item, items);
      else out.push(structuredClone(item));
    }
    return out;
  }
  if (Array.isArray(config) && Array.isArray(live) && schema.listType === 'set') {
    const out: unknown[] = [...(live as unknown[])];
    for (const v of config) if (!out.some((o) => jsonEqual(o, v))) out.push(v);
    return out;
  }
  return structuredClone(config);
}

/** A field owned by another manager that an apply would change. */
interface Conflict {
  readonly manager: string;
  readonly path: readonly string[];
  /** The position of the manager's entry in managedFields, which orders the causes. */
  readonly entry: number;
}

// How kube-apiserver names a manager in a conflict: Update entries say with which API version.
function describeManager(e: ManagedEntry): string {
  let s = JSON.stringify(e.manager);
  if (e.subresource !== undefined) s += ` with subresource ${JSON.stringify(e.subresource)}`;
  if (e.operation === 'Update') s += ` using ${e.apiVersion}`;
  return s;
}

/** 409 Conflict in kube-apiserver's words, one cause per conflicting field. */
export function applyConflictError(conflicts: readonly Conflict[]): ApiStatusError {
  const byPath = (a: Conflict, b: Conflict): number => (pathString(a.path) < pathString(b.path) ? -1 : 1);
  // The message groups by manager name; the causes follow the order of managedFields.
  const sorted = [...conflicts].sort((a, b) => (a.manager !== b.manager ? (a.manager < b.manager ? -1 : 1) : byPath(a, b)));
  const causes = [...conflicts].sort((a, b) => (a.entry !== b.entry ? a.entry - b.entry : byPath(a, b)));
  let message: string;
  if (sorted.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${sorted[0]!.manager}: ${pathString(sorted[0]!.path)}`;
  } else {
    const lines: string[] = [];
    let current: string | undefined;
    for (const c of sorted) {
      if (c.manager !== current) {
        lines.push(`conflicts with ${c.manager}:`);
        current = c.manager;
      }
      lines.push(`- ${pathString(c.path)}`);
    }
    message = `Apply failed with ${sorted.length} conflicts: ${lines.join('\n')}`;
  }
  return new ApiStatusError(409, 'Conflict', message, {
    causes: causes.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${c.manager}`, field: pathString(c.path) })),
  });
}

/** Who applies, and how. */
export interface ApplyRequest {
  readonly manager: string;
  readonly apiVersion: string;
  readonly subresource: string | undefined;
  readonly force: boolean;
  readonly statusIsSubresource: boolean;
}

/**
 * Applies a configuration to a live object: checks conflicts, merges, removes the fields the
 * applier gave up and returns the new object with its new entries (`managedFields` not yet written).
 * @throws {ApiStatusError} 409 naming the conflicting managers and fields, unless `force`.
 */
export function applyConfiguration(
  live: Readonly<Json>,
  config: Json,
  schema: FieldSchema,
  req: ApplyRequest,
): { object: Json; entries: ManagedEntry[] } {
  const entries = readManagedFields(live).map((e) => ({ ...e, fields: e.fields.clone() }));
  const isSelf = (e: ManagedEntry): boolean => e.manager === req.manager && e.operation === 'Apply' && e.subresource === req.subresource;
  const previous = entries.find(isSelf)?.fields ?? new FieldSet();
  const applied = fieldsOfConfig(config, schema);
  stripSet(applied, req.subresource, req.statusIsSubresource);
  const conflicts: Conflict[] = [];
  const conflictingPaths: string[][] = [];
  for (const path of applied.paths()) {
    const liveValue = valueAt(live, path, schema);
    if (liveValue === undefined) continue;
    const isLeaf = !path[path.length - 1]!.startsWith('k:');
    if (!isLeaf || jsonEqual(liveValue, valueAt(config, path, schema))) continue;
    for (const [i, e] of entries.entries()) {
      if (isSelf(e) || !e.fields.has(path)) continue;
      conflicts.push({ manager: describeManager(e), path, entry: i });
      conflictingPaths.push(path);
    }
  }
  if (conflicts.length > 0 && !req.force) throw applyConflictError(conflicts);
  for (const e of entries) if (!isSelf(e)) for (const p of conflictingPaths) e.fields.remove(p);
  // Stored objects are frozen; the merge result is changed in place below.
  const object = mergeConfig(structuredClone(live), config, schema) as Json;
  // Fields the applier owned and left out go, unless another manager still holds them or below.
  // Parents first: a list item goes whole, found by its key before its key field could go.
  const given = previous
    .difference(applied)
    .paths()
    .sort((a, b) => a.length - b.length);
  const removed: string[][] = [];
  for (const path of given) {
    if (removed.some((r) => r.every((e, i) => path[i] === e))) continue;
    if (applied.touches(path)) continue;
    if (entries.some((e) => !isSelf(e) && e.fields.touches(path))) continue;
    removeAt(object, path, schema);
    removed.push(path);
  }
  const others = entries.filter((e) => !isSelf(e));
  // The time changes only when the object does (the caller stamps it then).
  others.push({
    manager: req.manager,
    operation: 'Apply',
    apiVersion: req.apiVersion,
    subresource: req.subresource,
    time: entries.find(isSelf)?.time,
    fields: applied,
  });
  return { object, entries: others };
}

/** Who writes (not by apply), and where. */
export interface UpdateRequest {
  readonly manager: string;
  readonly apiVersion: string;
  readonly subresource: string | undefined;
  readonly statusIsSubresource: boolean;
}

/**
 * The entries after an ordinary write from `old` (undefined on create) to `next`: the writer's
 * Update entry gains what it added or changed, other managers lose it, everyone loses what went.
 */
export function updateEntries(
  base: readonly ManagedEntry[],
  old: Readonly<Json> | undefined,
  next: Readonly<Json>,
  schema: FieldSchema,
  req: UpdateRequest,
): ManagedEntry[] {
  const entries = base.map((e) => ({ ...e, fields: e.fields.clone() }));
  const { changed, removed } = diffFields(old ?? { metadata: {} }, next, schema);
  stripSet(changed, req.subresource, req.statusIsSubresource);
  const changedPaths = changed.paths();
  const removedPaths = removed.paths();
  for (const e of entries) {
    for (const p of changedPaths) e.fields.remove(p);
    for (const p of removedPaths) removeSubtree(e.fields, p);
  }
  if (changedPaths.length === 0) return entries;
  const i = entries.findIndex((e) => e.manager === req.manager && e.operation === 'Update' && e.subresource === req.subresource);
  const fields = i >= 0 ? entries[i]!.fields.union(changed) : changed;
  const entry: ManagedEntry = {
    manager: req.manager,
    operation: 'Update',
    apiVersion: req.apiVersion,
    subresource: req.subresource,
    time: nowTimestamp(),
    fields,
  };
  if (i >= 0) entries[i] = entry;
  else entries.push(entry);
  return entries;
}

// Removes a path and everything owned below it.
function removeSubtree(set: FieldSet, path: readonly string[]): void {
  for (const p of set.paths()) {
    if (p.length >= path.length && path.every((e, i) => p[i] === e)) set.remove(p);
  }
}

/** Drops, from every entry, fields the object no longer has. */
export function pruneMissing(entries: ManagedEntry[], obj: Readonly<Json>, schema: FieldSchema): void {
  for (const e of entries) {
    for (const p of e.fields.paths()) if (valueAt(obj, p, schema) === undefined) e.fields.remove(p);
  }
}
