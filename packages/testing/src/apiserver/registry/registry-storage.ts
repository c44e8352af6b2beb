// What the verbs work on: the object store, the served types and the hooks other stages run
// around writes; and the few steps every verb shares (read an object or 404, answer it, write or
// remove it so that a dry run stops short of the store).

import type { JsonResponse } from '../machinery/json-response.js';
import { metaOf } from '../machinery/object-meta.js';
import { objectJson, type Json, type ObjectStore, type StoredObject } from '../storage/object-store.js';
import type { ResourceRegistry, ResourceType } from '../storage/resource-registry.js';
import { notFound } from '../storage/status-error.js';
import { apiVersionOf } from '../watch/watch-hub.js';
import { omitEmpty } from './omit-empty.js';
import { keyOf, type ResourceRequest, type WriteHooks } from './resource-request.js';

/** The state the verbs share: one per server. */
export interface RegistryStorage {
  readonly store: ObjectStore;
  /** The served types, for hooks that resolve other types. */
  readonly types: ResourceRegistry;
  hooks: WriteHooks;
  /** Whether `shardSelector` is honoured (the `ShardedListAndWatch` gate); ignored when false. */
  shardedListAndWatch: boolean;
}

/** A registry storage over `store` with no hooks yet. */
export function registryStorage(store: ObjectStore, types: ResourceRegistry): RegistryStorage {
  return { store, types, hooks: {}, shardedListAndWatch: true };
}

/**
 * Every write of the verbs goes through here, so that a dry run stops short of the store.
 */
export function writeObject(
  s: RegistryStorage,
  t: ResourceType,
  key: string,
  draft: Json,
  mode: 'create' | 'update',
  dryRun: boolean,
): StoredObject {
  if (!t.custom) omitEmpty(draft, { group: t.group, version: t.storageVersion, kind: t.kind });
  if (dryRun) {
    const { kind: _k, apiVersion: _a, ...rest } = draft;
    const rv = metaOf(draft)['resourceVersion'];
    return { obj: draft, body: JSON.stringify(rest), rv: typeof rv === 'string' ? Number(rv) : 0, key };
  }
  const stored = mode === 'create' ? s.store.create(t, key, draft) : s.store.update(t, key, draft);
  s.hooks.afterWrite?.(t, stored, undefined);
  return stored;
}

/** Removes a stored object (or, on a dry run, only says it would). */
export function removeObject(s: RegistryStorage, t: ResourceType, existing: StoredObject, dryRun: boolean): StoredObject | undefined {
  if (dryRun) return existing;
  const removed = s.store.delete(t, existing.key);
  s.hooks.afterWrite?.(t, undefined, removed);
  return removed;
}

/** The stored object, or the 404 kube-apiserver answers. */
export function mustGet(s: RegistryStorage, t: ResourceType, namespace: string | undefined, name: string): StoredObject {
  const stored = s.store.get(t.id, keyOf(t, namespace, name));
  if (stored === undefined) throw notFound(t.resource, t.group, name);
  return stored;
}

/** An answer holding the stored object in the request's version. */
export function objectResponse(status: number, req: ResourceRequest, stored: StoredObject): JsonResponse {
  return { status, body: objectJson(stored, req.type.kind, apiVersionOf(req.type, req.version)) };
}
