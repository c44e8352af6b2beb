// What a create or update must pass before it is stored, as kube-apiserver's decoding and
// strategies check it: a body whose kind, apiVersion and namespace fit the path, no undeclared
// fields (per fieldValidation), valid names, labels, annotations and owner references, the kind's
// own rules and defaults, and a namespace that exists and is not terminating.

import { defaultCustomObject } from '@kindex/core';
import { dnsSubdomainErrors, labelValueErrors, pruneCustomObject, qualifiedNameErrors } from '@kindex/core/internal';
import { customObjectCauses } from '../apiextensions/custom-object-causes.js';
import { metaOf } from '../machinery/object-meta.js';
import type { Json } from '../storage/object-store.js';
import type { ResourceType } from '../storage/resource-registry.js';
import { ApiStatusError, badRequest, invalid, notFound, type StatusCause } from '../storage/status-error.js';
import { apiVersionOf } from '../watch/watch-hub.js';
import { defaultDeployment } from './deployment-defaults.js';
import { defaultEndpointSlice } from './endpoint-slice.js';
import { decodeFields, fieldValidationOf, strictDecodingError, unknownFieldWarnings } from './field-validation.js';
import { foldStringData, kindCauses } from './kind-validation.js';
import { defaultPod } from './pod-defaults.js';
import type { RegistryStorage } from './registry-storage.js';
import type { ResourceRequest } from './resource-request.js';
import { defaultService } from './service-defaults.js';
import { defaultWebhookConfiguration } from './webhook-configuration-defaults.js';

const DNS_LABEL_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_RE = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

function rbacNameErrors(name: string): string[] {
  if (name === '.' || name === '..') return [`may not be '${name}'`];
  return ['/', '%'].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
}

function nameErrors(type: ResourceType, name: string): string[] {
  if (type.id === '/namespaces') {
    return name.length <= 63 && DNS_LABEL_RE.test(name)
      ? []
      : [
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        ];
  }
  if (type.id === '/services') {
    return name.length <= 63 && DNS1035_RE.test(name)
      ? []
      : [
          "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
        ];
  }
  // RBAC objects are named like path segments (`system:discovery`), as kube-apiserver's ValidateRBACName.
  if (type.group === 'rbac.authorization.k8s.io') return rbacNameErrors(name);
  return dnsSubdomainErrors(name);
}

/**
 * The body of a create or update: an object whose kind, apiVersion and namespace fit the path.
 */
export function checkBody(req: ResourceRequest): Json {
  const body = req.body;
  const t = req.type;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('the body of the request must be a JSON object');
  }
  const draft = structuredClone(body) as Json;
  const expected = apiVersionOf(t, req.version);
  const json = JSON.stringify(body).slice(0, 200);
  // Typed decoding defaults a missing kind/apiVersion from the path; unstructured (custom) does not.
  if (!t.custom) {
    if (draft['kind'] === undefined || draft['kind'] === '') draft['kind'] = t.kind;
    if (draft['apiVersion'] === undefined || draft['apiVersion'] === '') draft['apiVersion'] = expected;
  }
  if (draft['kind'] === undefined || draft['kind'] === '') {
    throw badRequest(`the object provided is unrecognized (must be of type ${t.kind}): Object 'Kind' is missing in '${json}' (${json})`);
  }
  if (draft['apiVersion'] === undefined || draft['apiVersion'] === '') throw badRequest(`Object 'apiVersion' is missing in '${json}'`);
  if (draft['apiVersion'] !== expected) {
    throw badRequest(`the API version in the data (${String(draft['apiVersion'])}) does not match the expected API version (${expected})`);
  }
  if (draft['kind'] !== t.kind) {
    throw badRequest(
      `${String(draft['kind'])} in version "${req.version}" cannot be handled as a ${t.kind}: no kind "${String(draft['kind'])}" is expected at ${expected}/${t.resource}`,
    );
  }
  const meta = draft['metadata'];
  if (meta !== undefined && (meta === null || typeof meta !== 'object' || Array.isArray(meta))) {
    throw badRequest('metadata must be an object');
  }
  const ns = (meta as Json | undefined)?.['namespace'];
  if (t.namespaced && ns !== undefined && ns !== '' && ns !== req.namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  draft['apiVersion'] = apiVersionOf(t, t.storageVersion);
  return draft;
}

/** Validates and defaults an object's metadata and kind-specific fields (422 with every cause). */
export function validateMeta(t: ResourceType, obj: Json, name: string, schema?: Json, old?: Readonly<Json>): void {
  const causes: StatusCause[] = schema === undefined ? [] : customObjectCauses(obj, schema, old);
  const meta = metaOf(obj);
  for (const msg of nameErrors(t, name)) {
    causes.push({ reason: 'FieldValueInvalid', field: 'metadata.name', message: `Invalid value: ${JSON.stringify(name)}: ${msg}` });
  }
  for (const field of ['labels', 'annotations'] as const) {
    const map = meta[field];
    if (map === undefined || map === null) continue;
    if (typeof map !== 'object' || Array.isArray(map)) {
      causes.push({ reason: 'FieldValueInvalid', field: `metadata.${field}`, message: 'Invalid value: must be a map of strings' });
      continue;
    }
    for (const [k, v] of Object.entries(map as Json)) {
      for (const msg of qualifiedNameErrors(k)) {
        causes.push({ reason: 'FieldValueInvalid', field: `metadata.${field}`, message: `Invalid value: ${JSON.stringify(k)}: ${msg}` });
      }
      if (typeof v !== 'string') {
        causes.push({ reason: 'FieldValueInvalid', field: `metadata.${field}.${k}`, message: 'Invalid value: must be a string' });
      } else if (field === 'labels') {
        for (const msg of labelValueErrors(v)) {
          causes.push({ reason: 'FieldValueInvalid', field: `metadata.labels`, message: `Invalid value: ${JSON.stringify(v)}: ${msg}` });
        }
      }
    }
  }
  const refs = meta['ownerReferences'];
  if (refs !== undefined && refs !== null) {
    if (!Array.isArray(refs)) {
      causes.push({ reason: 'FieldValueInvalid', field: 'metadata.ownerReferences', message: 'Invalid value: must be a list' });
    } else {
      if (refs.filter((r: unknown) => (r as Json | null)?.['controller'] === true).length > 1) {
        causes.push({
          reason: 'FieldValueInvalid',
          field: 'metadata.ownerReferences',
          message: 'Invalid value: only one reference can have Controller set to true',
        });
      }
      refs.forEach((r: unknown, i) => {
        const ref = (r ?? {}) as Json;
        for (const f of ['apiVersion', 'kind', 'name', 'uid']) {
          if (typeof ref[f] !== 'string' || ref[f] === '') {
            causes.push({ reason: 'FieldValueRequired', field: `metadata.ownerReferences[${i}].${f}`, message: 'Required value' });
          }
        }
      });
    }
  }
  causes.push(...kindCauses(t.id, obj));
  if (causes.length > 0) throw invalid(t.kind, t.group, name, causes);
  foldStringData(t.id, obj);
  defaultService(t.id, obj);
  defaultDeployment(t.id, obj);
  defaultWebhookConfiguration(t.id, obj);
  defaultEndpointSlice(t.id, obj);
}

/** 404 when the namespace is missing, 403 when it is terminating, as NamespaceLifecycle admission answers. */
export function checkNamespaceOpen(s: RegistryStorage, t: ResourceType, namespace: string, name: string): void {
  const ns = s.store.get('/namespaces', namespace);
  if (ns === undefined) throw notFound('namespaces', '', namespace);
  if (metaOf(ns.obj)['deletionTimestamp'] !== undefined) {
    throw new ApiStatusError(
      403,
      'Forbidden',
      `${t.resource}${t.group ? `.${t.group}` : ''} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
      {
        name,
        group: t.group,
        kind: t.resource,
        causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }],
      },
    );
  }
}

/** The fields kube-apiserver's strategies set on create (namespace phase and finalizer, pod status, secret type). */
export function defaultOnCreate(t: ResourceType, draft: Json): void {
  if (t.custom && t.statusSubresource) delete draft['status'];
  if (t.id === '/namespaces') {
    const meta = metaOf(draft);
    meta['labels'] = { ...((meta['labels'] ?? {}) as Json), 'kubernetes.io/metadata.name': meta['name'] };
    draft['spec'] = { finalizers: ['kubernetes'] };
    draft['status'] = { phase: 'Active' };
  }
  if (t.id === '/pods') {
    defaultPod(draft);
    draft['status'] = { phase: 'Pending', qosClass: 'BestEffort' };
  }
  if (t.id === '/secrets' && draft['type'] === undefined) draft['type'] = 'Opaque';
}

/**
 * Drops the fields the kind does not declare; under Strict they fail the write (400, as the
 * decoder reports them), under Warn they come back as warnings.
 */
export function dropUnknownFields(req: ResourceRequest, draft: Json): string[] {
  const { unknown, error } = decodeFields(draft, req.type, req.version);
  if (error !== undefined) throw cannotDecode(req.type, req.version, error);
  const duplicates = req.duplicateFields ?? [];
  if (unknown.length === 0 && duplicates.length === 0) return [];
  const mode = fieldValidationOf(req.query);
  if (mode === 'Strict') throw cannotDecode(req.type, req.version, strictDecodingError(unknown, duplicates));
  return mode === 'Warn' ? unknownFieldWarnings(unknown, duplicates) : [];
}

/**
 * The decoder's 400 for a body it cannot read as the kind.
 */
export function cannotDecode(t: ResourceType, version: string, detail: string): ApiStatusError {
  return badRequest(`${t.kind} in version ${JSON.stringify(version)} cannot be handled as a ${t.kind}: ${detail}`);
}

/**
 * A custom object as kube-apiserver decodes a write: unknown fields dropped, then defaults filled in.
 */
export function pruneAndDefault(obj: Json, schema: Json): void {
  pruneCustomObject(schema, obj);
  defaultCustomObject(schema, obj);
}
