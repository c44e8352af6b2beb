// POST: creates an object, by name or generateName, as kube-apiserver does: decoded, admitted
// (mutating webhooks see it before a name is generated), validated and defaulted, then stored with
// its uid, creationTimestamp, generation and the writer's managedFields entry.

import { randomUUID } from 'node:crypto';
import type { JsonResponse } from '../machinery/json-response.js';
import { metaOf, nowTimestamp } from '../machinery/object-meta.js';
import type { Json } from '../storage/object-store.js';
import { alreadyExists, invalid, methodNotAllowed } from '../storage/status-error.js';
import { fieldSchemaFor, writerOf } from './field-managers.js';
import { updateEntries, writeManagedFields, type ManagedEntry } from './managed-fields.js';
import { checkBody, checkNamespaceOpen, defaultOnCreate, dropUnknownFields, pruneAndDefault, validateMeta } from './object-checks.js';
import { objectResponse, writeObject, type RegistryStorage } from './registry-storage.js';
import { keyOf, once, type ResourceRequest } from './resource-request.js';

const NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

/** POST: creates an object (name or generateName). */
export function createResource(s: RegistryStorage, req: ResourceRequest): JsonResponse {
  if (req.type.namespaced && req.namespace === undefined) throw methodNotAllowed();
  const draft = checkBody(req);
  const warnings = dropUnknownFields(req, draft);
  return { ...createObject(s, req, draft), warnings };
}

/**
 * Creates `draft`; `applied` holds the fields of a create-by-apply, else the write is an Update.
 */
export function createObject(s: RegistryStorage, req: ResourceRequest, draft: Json, applied?: ManagedEntry): JsonResponse {
  req.admit?.(draft, undefined);
  const t = req.type;
  let meta = metaOf(draft);
  draft['metadata'] = meta;
  if (t.namespaced) meta['namespace'] = req.namespace;
  else delete meta['namespace'];
  const schema = t.schemas?.[req.version];
  if (req.admission !== undefined) {
    // Webhooks see the object as decoded (pruned and defaulted), before a name is generated.
    if (schema !== undefined) pruneAndDefault(draft, schema);
    draft = req.admission.mutate('CREATE', draft, undefined);
    meta = metaOf(draft);
    draft['metadata'] = meta;
    if (t.namespaced) meta['namespace'] = req.namespace;
  }
  if (typeof meta['name'] !== 'string' || meta['name'] === '') {
    const gen = meta['generateName'];
    if (typeof gen !== 'string' || gen === '') {
      throw invalid(t.kind, t.custom ? t.group : '', '', [
        { reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' },
      ]);
    }
    meta['name'] = once(req, 'name', () => `${gen.slice(0, 58)}${randomSuffix()}`);
  }
  const name = meta['name'] as string;
  if (schema !== undefined) pruneAndDefault(draft, schema);
  validateMeta(t, draft, name, schema);
  if (t.namespaced) checkNamespaceOpen(s, t, req.namespace!, name);
  const key = keyOf(t, req.namespace, name);
  if (s.store.get(t.id, key) !== undefined) throw alreadyExists(t.resource, t.group, name);
  meta['uid'] = once(req, 'uid', randomUUID);
  meta['creationTimestamp'] = once(req, 'creationTimestamp', nowTimestamp);
  delete meta['deletionTimestamp'];
  delete meta['deletionGracePeriodSeconds'];
  delete meta['resourceVersion'];
  if (t.generation !== 'none') meta['generation'] = 1;
  else delete meta['generation'];
  defaultOnCreate(t, draft);
  req.admission?.validate('CREATE', draft, undefined);
  s.hooks.beforeWrite?.(t, draft, undefined);
  const entries = applied !== undefined ? [applied] : updateEntries([], undefined, draft, fieldSchemaFor(t, req.version), writerOf(req));
  writeManagedFields(draft, entries);
  return objectResponse(201, req, writeObject(s, t, key, draft, 'create', req.dryRun === true));
}

function randomSuffix(): string {
  let s = '';
  for (let i = 0; i < 5; i++) s += NAME_CHARS[Math.floor(Math.random() * NAME_CHARS.length)];
  return s;
}
