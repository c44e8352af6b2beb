// PATCH bodies: JSON merge patch (RFC 7386), JSON patch (RFC 6902, via fast-json-patch) and
// strategic merge patch for built-ins (see strategic-merge-patch.ts). Server-side apply bodies are
// recognised here and applied by the registry (registry/verb-apply.ts, managed-fields.ts).

import jsonpatch from 'fast-json-patch';
import { ApiStatusError, badRequest } from '../storage/status-error.js';
import type { Json } from '../storage/object-store.js';
import { strategicMergePatch } from './strategic-merge-patch.js';

/** The patch content types the server understands. */
export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

const CONTENT_TYPES: Record<string, PatchType> = {
  'application/merge-patch+json': 'merge',
  'application/json-patch+json': 'json',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
};

/**
 * The patch type of a Content-Type header.
 * @throws {ApiStatusError} 415 for any other media type.
 */
export function patchTypeOf(contentType: string | undefined, custom: boolean): PatchType {
  const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const type = CONTENT_TYPES[media];
  // Custom resources have no merge keys, so the real server refuses strategic merge for them.
  if (type === undefined || (type === 'strategic' && custom)) {
    const accepted = custom
      ? 'application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml'
      : 'application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml';
    throw new ApiStatusError(
      415,
      'UnsupportedMediaType',
      `the body of the request was in an unknown format - accepted media types include: ${accepted}`,
    );
  }
  return type;
}

/** RFC 7386: objects merge recursively, `null` deletes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Json = target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Json) } : {};
  for (const [k, v] of Object.entries(patch as Json)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/**
 * Applies a patch body to a copy of `current`.
 * @throws {ApiStatusError} 400 for a body that is not a patch, 422 when a JSON patch does not apply.
 */
export function applyPatch(current: Readonly<Json>, type: Exclude<PatchType, 'apply'>, body: unknown): Json {
  if (type === 'json') {
    if (!Array.isArray(body)) throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
    const doc = structuredClone(current) as Json;
    let result: Json;
    try {
      result = jsonpatch.applyPatch(doc, body as jsonpatch.Operation[], true, true, true).newDocument;
    } catch {
      // A failed `test` op or a path that does not exist: the request, not the server, is wrong.
      throw new ApiStatusError(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
    }
    if (result === null || typeof result !== 'object' || Array.isArray(result)) {
      throw new ApiStatusError(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
    }
    return result;
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('the body of the patch must be a JSON object for merge patch');
  }
  const base = structuredClone(current);
  return (type === 'strategic' ? strategicMergePatch(base, body) : mergePatch(base, body)) as Json;
}
