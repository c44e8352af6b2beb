// PATCH (JSON patch, merge patch, strategic merge patch): the patched object goes through the
// update path; its unknown fields are reported as kube-apiserver reports them. Server-side apply
// is verb-apply.ts.

import type { JsonResponse } from '../machinery/json-response.js';
import { metaOf } from '../machinery/object-meta.js';
import { applyPatch, patchTypeOf } from '../machinery/patch.js';
import type { Json } from '../storage/object-store.js';
import { invalid } from '../storage/status-error.js';
import { apiVersionOf } from '../watch/watch-hub.js';
import { decodeFields, fieldValidationOf, strictDecodingError, unknownFieldWarnings } from './field-validation.js';
import { mustGet, objectResponse, type RegistryStorage } from './registry-storage.js';
import type { ResourceRequest } from './resource-request.js';
import { applyResource } from './verb-apply.js';
import { applyUpdate } from './verb-update.js';

/** PATCH of an object or of its status. */
export function patchResource(s: RegistryStorage, req: ResourceRequest): JsonResponse {
  const t = req.type;
  const patchType = patchTypeOf(req.contentType, t.custom);
  if (patchType === 'apply') return applyResource(s, req);
  if (req.query.has('force')) {
    throw invalid('PatchOptions', 'meta.k8s.io', '', [
      { reason: 'FieldValueForbidden', field: 'force', message: 'Forbidden: may not be specified for non-apply patch' },
    ]);
  }
  const existing = mustGet(s, t, req.namespace, req.name!);
  const patched = applyPatch(existing.obj, patchType, req.body);
  const warnings = dropUnknownPatchedFields(req, patchType, patched);
  // A patch may not change what it addresses; kind/apiVersion come from the path.
  patched['kind'] = t.kind;
  patched['apiVersion'] = apiVersionOf(t, req.version);
  const meta = metaOf(patched);
  patched['metadata'] = meta;
  if (meta['name'] === undefined) meta['name'] = req.name;
  if (t.namespaced && meta['namespace'] === undefined) meta['namespace'] = req.namespace;
  return { ...objectResponse(200, req, applyUpdate(s, req, patched, existing)), warnings };
}

// A patch's unknown fields are those of the patched object; under Strict kube-apiserver reports
// them as an invalid `patch` showing the patch (strategic) or the patched object (merge, JSON).
function dropUnknownPatchedFields(req: ResourceRequest, patchType: string, patched: Json): string[] {
  const mode = fieldValidationOf(req.query);
  const before = structuredClone(patched);
  const { unknown, error } = decodeFields(patched, req.type, req.version);
  // A value the decoder cannot read (a MicroTime) fails the patch in every mode.
  const failure = error ?? (mode === 'Strict' && unknown.length > 0 ? strictDecodingError(unknown) : undefined);
  if (failure !== undefined) {
    const shown = patchType === 'strategic' ? goValue(req.body) : JSON.stringify(sortedKeys(before));
    throw invalid('', '', '', [
      { reason: 'FieldValueInvalid', field: 'patch', message: `Invalid value: ${JSON.stringify(shown)}: ${failure}` },
    ]);
  }
  return mode === 'Warn' ? unknownFieldWarnings(unknown) : [];
}

// A JSON value as Go's %v prints the map it decodes to (`map[spec:map[bogus:1]]`), keys sorted.
function goValue(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(goValue).join(' ')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Json).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `map[${entries.map(([k, x]) => `${k}:${goValue(x)}`).join(' ')}]`;
  }
  return v === null ? '<nil>' : String(v);
}

// An object with its keys sorted at every level, as Go encodes a decoded map.
function sortedKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortedKeys);
  if (v === null || typeof v !== 'object') return v;
  const out: Json = {};
  for (const k of Object.keys(v).sort()) out[k] = sortedKeys((v as Json)[k]);
  return out;
}
