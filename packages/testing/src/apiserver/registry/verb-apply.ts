// Server-side apply (`application/apply-patch+yaml`): merges the configuration into the object
// by field ownership (managed-fields.ts), or creates the object (201) when it is missing.

import type { JsonResponse } from '../machinery/json-response.js';
import { metaOf, nowTimestamp } from '../machinery/object-meta.js';
import type { Json } from '../storage/object-store.js';
import { ApiStatusError, badRequest, invalid, notFound } from '../storage/status-error.js';
import { apiVersionOf } from '../watch/watch-hub.js';
import { checkFieldManager, fieldSchemaFor } from './field-managers.js';
import { decodeFields } from './field-validation.js';
import { applyConfiguration, fieldsOfConfig, stripSet, writeManagedFields, type ManagedEntry } from './managed-fields.js';
import { checkBody } from './object-checks.js';
import { objectResponse, type RegistryStorage } from './registry-storage.js';
import { keyOf, type ResourceRequest } from './resource-request.js';
import { createObject } from './verb-create.js';
import { applyUpdate } from './verb-update.js';

/**
 * Server-side apply (`application/apply-patch+yaml`): merges the configuration into the object
 * by field ownership, or creates it (201) when missing.
 */
export function applyResource(s: RegistryStorage, req: ResourceRequest): JsonResponse {
  const t = req.type;
  const manager = req.query.get('fieldManager') ?? '';
  if (manager === '') {
    throw invalid('PatchOptions', 'meta.k8s.io', '', [
      { reason: 'FieldValueRequired', field: 'fieldManager', message: 'Required value: is required for apply patch' },
    ]);
  }
  checkFieldManager(manager);
  const forceText = req.query.get('force');
  if (forceText !== null && forceText !== 'true' && forceText !== 'false') throw badRequest(`invalid force: ${forceText}`);
  const body = req.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw badRequest('error decoding patch: the apply configuration must be an object');
  const kind = (body as Json)['kind'];
  const apiVersion = (body as Json)['apiVersion'];
  if (typeof kind !== 'string' || kind === '' || typeof apiVersion !== 'string' || apiVersion === '') {
    const [g, v] =
      typeof apiVersion === 'string' && apiVersion.includes('/')
        ? apiVersion.split('/', 2)
        : ['', typeof apiVersion === 'string' ? apiVersion : ''];
    throw badRequest(`invalid object type: ${g}/${v}, Kind=${typeof kind === 'string' ? kind : ''}`);
  }
  const config = checkBody(req);
  const meta = metaOf(config);
  if (meta['name'] !== req.name) {
    const bodyName = meta['name'];
    throw badRequest(
      `the name of the object (${typeof bodyName === 'string' ? bodyName : ''}) does not match the name on the URL (${req.name})`,
    );
  }
  // An apply configuration naming an undeclared field cannot become a typed patch: kube-apiserver
  // answers 500 whatever fieldValidation says.
  const { unknown, error } = decodeFields(config, t, req.version);
  const ns = metaOf(config)['namespace'];
  const target = `(${typeof ns === 'string' ? ns : ''}/${req.name}; ${t.group}/${req.version}, Kind=${t.kind})`;
  if (unknown.length > 0) {
    throw new ApiStatusError(500, '', `failed to create typed patch object ${target}: .${unknown[0]}: field not declared in schema`);
  }
  if (error !== undefined) {
    throw new ApiStatusError(
      500,
      '',
      `failed to convert new object ${target} to proper version: unable to convert unstructured object to ${t.group}/${req.version}, Kind=${t.kind}: ${error}`,
    );
  }
  const fieldSchema = fieldSchemaFor(t, req.version);
  const apiVersionOut = apiVersionOf(t, req.version);
  const existing = s.store.get(t.id, keyOf(t, req.namespace, req.name!));
  if (existing === undefined) {
    if (req.subresource !== undefined || (t.namespaced && req.namespace === undefined)) throw notFound(t.resource, t.group, req.name!);
    const fields = fieldsOfConfig(config, fieldSchema);
    stripSet(fields, undefined, t.statusSubresource);
    const entry: ManagedEntry = {
      manager,
      operation: 'Apply',
      apiVersion: apiVersionOut,
      subresource: undefined,
      time: nowTimestamp(),
      fields,
    };
    return createObject(s, req, config, entry);
  }
  // Only the part of the configuration the addressed (sub)resource can write takes part.
  if (req.subresource === 'status') {
    for (const k of Object.keys(config)) if (!['apiVersion', 'kind', 'metadata', 'status'].includes(k)) delete config[k];
  } else if (t.statusSubresource) {
    delete config['status'];
  }
  const { object, entries } = applyConfiguration(existing.obj, config, fieldSchema, {
    manager,
    apiVersion: apiVersionOut,
    subresource: req.subresource,
    force: forceText === 'true',
    statusIsSubresource: t.statusSubresource,
  });
  object['kind'] = t.kind;
  object['apiVersion'] = apiVersionOf(t, req.version);
  const m = metaOf(object);
  object['metadata'] = m;
  writeManagedFields(object, entries);
  return objectResponse(200, req, applyUpdate(s, req, object, existing, false, entries));
}
