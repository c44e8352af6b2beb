// Who owns which field (managedFields) after a write: the applier's entries for server-side
// apply, an Update entry for the writer of any other write (`?fieldManager=`, else the
// User-Agent's product name), and the time stamped on the entry of a write that changed the object.

import { jsonEqual } from '@kindex/core/internal';
import { fieldSchemaOf, type FieldSchema } from './field-schema.js';
import { metaOf, nowTimestamp } from '../machinery/object-meta.js';
import type { Json } from '../storage/object-store.js';
import type { ResourceType } from '../storage/resource-registry.js';
import { invalid } from '../storage/status-error.js';
import { apiVersionOf } from '../watch/watch-hub.js';
import {
  pruneMissing,
  readManagedFields,
  sameManagedFields,
  updateEntries,
  writeManagedFields,
  type ManagedEntry,
} from './managed-fields.js';
import type { ResourceRequest } from './resource-request.js';

/**
 * Sets next's managedFields: the applier's entries, or the writer's Update entry; returns who wrote.
 */
export function recordManagedFields(
  req: ResourceRequest,
  old: Readonly<Json>,
  next: Json,
  internal: boolean,
  applied: ManagedEntry[] | undefined,
): Pick<ManagedEntry, 'manager' | 'operation' | 'subresource'> | undefined {
  const schema = fieldSchemaFor(req.type, req.version);
  if (applied !== undefined) {
    // Fields the write could not keep (status isolation, pruning) are owned by nobody.
    const entries = applied.map((e) => ({ ...e, fields: e.fields.clone() }));
    pruneMissing(entries, next, schema);
    writeManagedFields(next, entries);
    return { manager: req.query.get('fieldManager') ?? '', operation: 'Apply', subresource: req.subresource };
  }
  const before = readManagedFields(old);
  const sent = metaOf(next)['managedFields'];
  // An update carrying other managedFields replaces them (an empty list means "unchanged", and a
  // list of empty entries clears them), as on the real server; the write itself is then not recorded.
  if (Array.isArray(sent) && sent.length > 0 && !sameManagedFields(sent, metaOf(old)['managedFields'])) {
    writeManagedFields(next, readManagedFields(next));
    return undefined;
  }
  const updater = internal ? { ...writerOf(req), manager: 'kube-controller-manager' } : writerOf(req);
  const entries = updateEntries(before, old, next, schema, updater);
  writeManagedFields(next, entries);
  return { manager: updater.manager, operation: 'Update', subresource: updater.subresource };
}

/**
 * Who an ordinary write is recorded for: `?fieldManager=`, else the User-Agent's product name.
 */
export function writerOf(req: ResourceRequest): {
  manager: string;
  apiVersion: string;
  subresource: string | undefined;
  statusIsSubresource: boolean;
} {
  const given = req.query.get('fieldManager');
  if (given !== null && given !== '') checkFieldManager(given);
  const manager = given !== null && given !== '' ? given : (req.userAgent ?? '').split('/')[0]!.slice(0, 128);
  return {
    manager,
    apiVersion: apiVersionOf(req.type, req.version),
    subresource: req.subresource,
    statusIsSubresource: req.type.statusSubresource,
  };
}

/** 422 for a fieldManager over 128 bytes. */
export function checkFieldManager(manager: string): void {
  if (manager.length > 128) {
    throw invalid('PatchOptions', 'meta.k8s.io', '', [
      { reason: 'FieldValueTooLong', field: 'fieldManager', message: 'Too long: may not be more than 128 bytes' },
    ]);
  }
}

/** The list types and map keys managed fields follow for a type's version. */
export function fieldSchemaFor(t: ResourceType, version: string): FieldSchema {
  return fieldSchemaOf(t.id, t.custom, t.schemas?.[version]);
}

function withoutManagedFields(obj: Readonly<Json>): Json {
  const { managedFields: _m, ...meta } = metaOf(obj);
  return { ...obj, metadata: meta };
}

/**
 * A write that changed the object (not only its owners) stamps its manager's entry with the time.
 */
export function stampWriteTime(next: Json, old: Readonly<Json>, writer: Pick<ManagedEntry, 'manager' | 'operation' | 'subresource'>): void {
  if (jsonEqual(withoutManagedFields(next), withoutManagedFields(old))) return;
  const entries = readManagedFields(next);
  const own = entries.find((e) => e.manager === writer.manager && e.operation === writer.operation && e.subresource === writer.subresource);
  if (own !== undefined) {
    own.time = nowTimestamp();
    writeManagedFields(next, entries);
  }
}
