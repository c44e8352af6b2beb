// PUT, and every write that replaces a stored object (patch, apply, the controllers' own
// writes): optimistic concurrency, status isolation, immutable metadata, generation, no new
// finalizers once deleting, and the removal of an object whose last finalizer goes.

import { jsonEqual } from '@kindex/core/internal';
import { customObjectCauses } from '../apiextensions/custom-object-causes.js';
import type { JsonResponse } from '../machinery/json-response.js';
import { finalizersOf, metaOf } from '../machinery/object-meta.js';
import type { Json, StoredObject } from '../storage/object-store.js';
import type { ResourceType } from '../storage/resource-registry.js';
import { MODIFIED_CONFLICT, badRequest, conflict, invalid } from '../storage/status-error.js';
import { apiVersionOf } from '../watch/watch-hub.js';
import { recordManagedFields, stampWriteTime } from './field-managers.js';
import { updateCauses } from './kind-validation.js';
import type { ManagedEntry } from './managed-fields.js';
import { checkBody, dropUnknownFields, pruneAndDefault, validateMeta } from './object-checks.js';
import { mustGet, objectResponse, removeObject, writeObject, type RegistryStorage } from './registry-storage.js';
import type { ResourceRequest } from './resource-request.js';

/** PUT of an object or of its status. */
export function updateResource(s: RegistryStorage, req: ResourceRequest): JsonResponse {
  const draft = checkBody(req);
  const warnings = dropUnknownFields(req, draft);
  const result = applyUpdate(s, req, draft);
  return { ...objectResponse(200, req, result), warnings };
}

/** Replaces an existing object, for the garbage collector's own writes (finalizers, owners). */
export function rewrite(s: RegistryStorage, t: ResourceType, existing: StoredObject, draft: Json): StoredObject | undefined {
  const req: ResourceRequest = {
    type: t,
    version: t.storageVersion,
    namespace: metaOf(existing.obj)['namespace'] as string | undefined,
    name: metaOf(existing.obj)['name'] as string,
    subresource: undefined,
    query: new URLSearchParams(),
    body: undefined,
    contentType: undefined,
  };
  return applyUpdate(s, req, draft, existing, true);
}

/**
 * Writes `draft` over the stored object: the update path of PUT, PATCH, apply and the controllers'
 * writes (`internal`: no finalizer check, recorded for kube-controller-manager).
 */
export function applyUpdate(
  s: RegistryStorage,
  req: ResourceRequest,
  draft: Json,
  current?: StoredObject,
  internal = false,
  applied?: ManagedEntry[],
): StoredObject {
  const t = req.type;
  if (req.admission !== undefined) {
    const target = current ?? mustGet(s, t, req.namespace, req.name!);
    draft = req.admission.mutate('UPDATE', draft, target.obj);
  }
  const meta = metaOf(draft);
  draft['metadata'] = meta;
  const bodyName = meta['name'];
  if (bodyName !== req.name) {
    throw badRequest(
      `the name of the object (${typeof bodyName === 'string' ? bodyName : ''}) does not match the name on the URL (${req.name})`,
    );
  }
  const existing = current ?? mustGet(s, t, req.namespace, req.name!);
  const old = existing.obj;
  req.admit?.(draft, old);
  const oldMeta = metaOf(old);
  const rv = meta['resourceVersion'];
  if (rv !== undefined && rv !== '' && rv !== oldMeta['resourceVersion']) {
    throw conflict(t.resource, t.group, req.name!, MODIFIED_CONFLICT);
  }
  let next: Json;
  if (req.subresource === 'status') {
    // Writes to /status change only status (the rest comes from the stored object).
    next = structuredClone(old);
    if (draft['status'] === undefined) delete next['status'];
    else next['status'] = draft['status'];
    const schema = t.schemas?.[req.version];
    if (schema !== undefined) {
      pruneAndDefault(next, schema);
      const causes = customObjectCauses(next, schema, old);
      if (causes.length > 0) throw invalid(t.kind, t.group, req.name!, causes);
    }
  } else {
    next = draft;
    const schema = t.schemas?.[req.version];
    if (schema !== undefined) pruneAndDefault(next, schema);
    validateMeta(t, next, req.name!, schema, old);
    // Writes to the main resource ignore status when status is a subresource.
    if (t.statusSubresource) {
      if (old['status'] === undefined) delete next['status'];
      else next['status'] = structuredClone(old['status']);
    }
    const m = metaOf(next);
    for (const k of ['uid', 'creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation', 'namespace']) {
      if (oldMeta[k] === undefined) delete m[k];
      else m[k] = oldMeta[k];
    }
    if (!internal && oldMeta['deletionTimestamp'] !== undefined) {
      const before = new Set(finalizersOf(old));
      const added = finalizersOf(next).filter((f) => !before.has(f));
      if (added.length > 0) {
        throw invalid(t.kind, t.custom ? t.group : '', req.name!, [
          {
            reason: 'FieldValueForbidden',
            field: 'metadata.finalizers',
            message: 'Forbidden: no new finalizers can be added if the object is being deleted',
          },
        ]);
      }
    }
    const restricted = updateCauses(t.id, old, next);
    if (restricted.length > 0) throw invalid(t.kind, '', req.name!, restricted);
    if (t.generation !== 'none' && specChanged(t, old, next)) m['generation'] = ((oldMeta['generation'] as number | undefined) ?? 0) + 1;
  }
  next['kind'] = t.kind;
  next['apiVersion'] = apiVersionOf(t, t.storageVersion);
  const nm = metaOf(next);
  nm['resourceVersion'] = oldMeta['resourceVersion'];
  req.admission?.validate('UPDATE', next, old);
  s.hooks.beforeWrite?.(t, next, existing);
  const writer = recordManagedFields(req, old, next, internal, applied);
  // An update that changes nothing writes nothing, like the real server: no new resourceVersion, no event.
  if (jsonEqual(next, old)) return existing;
  if (writer !== undefined) stampWriteTime(next, old, writer);
  if (
    oldMeta['deletionTimestamp'] !== undefined &&
    !(Number(oldMeta['deletionGracePeriodSeconds'] ?? 0) > 0) &&
    finalizersOf(next).length === 0 &&
    !(t.id === '/namespaces' && namespaceFinalizers(next).length > 0)
  ) {
    // The last finalizer is gone: the object is deleted now (watchers see DELETED).
    return removeObject(s, t, existing, req.dryRun === true) ?? existing;
  }
  return writeObject(s, t, existing.key, next, 'update', req.dryRun === true);
}

function namespaceFinalizers(ns: Json): string[] {
  const f = ((ns['spec'] ?? {}) as Json)['finalizers'];
  return Array.isArray(f) ? (f as string[]) : [];
}

// Which content bumps metadata.generation: spec for most kinds, everything but metadata and
// status for custom resources (status too when it is not a subresource).
function specChanged(t: ResourceType, old: Readonly<Json>, next: Json): boolean {
  if (t.generation === 'spec') return !jsonEqual(old['spec'], next['spec']);
  const skip = new Set(['metadata', 'kind', 'apiVersion']);
  if (t.statusSubresource) skip.add('status');
  const keys = new Set([...Object.keys(old), ...Object.keys(next)]);
  for (const k of keys) if (!skip.has(k) && !jsonEqual(old[k], next[k])) return true;
  return false;
}
