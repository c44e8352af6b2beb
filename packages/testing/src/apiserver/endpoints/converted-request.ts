// A request for a version of a custom resource that its CRD's conversion webhook converts: the
// verb runs on the storage version, the request body is converted to it first and the answer
// back to the requested version, as kube-apiserver converts at its storage codec. A merge or JSON
// patch applies to the object as the requested version shows it, so the stored object is
// converted, patched and converted back, then written as an update guarded by its
// resourceVersion (retried when another write came first, as kube-apiserver retries a patch).

import type { CrdConversion } from '../apiextensions/crd-conversion.js';
import { metaOf } from '../machinery/object-meta.js';
import type { Json } from '../storage/object-store.js';
import { applyPatch, patchTypeOf, type PatchType } from '../machinery/patch.js';
import type { JsonResponse } from '../machinery/json-response.js';
import type { ResourceRequest } from '../registry/resource-request.js';
import { ApiStatusError } from '../storage/status-error.js';

/** Runs one verb (GET, POST, PUT, PATCH, DELETE) of a request on the storage version. */
export type StorageVerb = (method: string, request: ResourceRequest) => JsonResponse | Promise<JsonResponse>;

const PATCH_ATTEMPTS = 5;

/** Serves a request for a version converted by webhook. */
export async function serveConverted(
  conversion: CrdConversion,
  method: string,
  request: ResourceRequest,
  run: StorageVerb,
  stored: () => Json | undefined,
): Promise<JsonResponse> {
  const t = request.type;
  const inStorage: ResourceRequest = { ...request, version: t.storageVersion, requestedVersion: request.version };
  const toStorage = async (body: unknown): Promise<unknown> => {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
    const object = body as Json;
    // A body in another version than the path's is refused by the verb itself, with its own message.
    if (object['apiVersion'] !== `${t.group}/${request.version}`) return body;
    return (await conversion.convert(t, [object], t.storageVersion))[0];
  };
  let answer: JsonResponse;
  const patchType = method === 'PATCH' ? patchTypeOf(request.contentType, true) : undefined;
  if (patchType !== undefined && patchType !== 'apply') {
    answer = await patchConverted(conversion, request, patchType, inStorage, run, stored);
  } else if (method === 'POST' || method === 'PUT' || method === 'PATCH') {
    answer = await run(method, { ...inStorage, body: await toStorage(request.body) });
  } else {
    answer = await run(method, inStorage);
  }
  return { ...answer, body: await convertAnswer(conversion, request, answer.body) };
}

async function patchConverted(
  conversion: CrdConversion,
  request: ResourceRequest,
  patchType: Exclude<PatchType, 'apply'>,
  inStorage: ResourceRequest,
  run: StorageVerb,
  stored: () => Json | undefined,
): Promise<JsonResponse> {
  const t = request.type;
  for (let attempt = 1; ; attempt++) {
    const current = stored();
    if (current === undefined) return run('PATCH', inStorage); // the verb's 404
    const [shown] = await conversion.convert(t, [structuredClone(current)], request.version);
    const patched = applyPatch(shown!, patchType, request.body);
    const meta = metaOf(patched);
    patched['metadata'] = meta;
    // Guarded by the version it was patched from, unless the patch itself set one to check.
    meta['resourceVersion'] ??= metaOf(current)['resourceVersion'];
    const [body] = await conversion.convert(t, [patched], t.storageVersion);
    try {
      return await run('PUT', { ...inStorage, body, contentType: 'application/json' });
    } catch (e) {
      const patchSetVersion = metaOf((request.body ?? {}) as Json)['resourceVersion'] !== undefined;
      if (!(e instanceof ApiStatusError) || e.code !== 409 || patchSetVersion || attempt >= PATCH_ATTEMPTS) throw e;
    }
  }
}

// The verb's answer in the requested version: an object of the kind, or a list of them.
async function convertAnswer(conversion: CrdConversion, request: ResourceRequest, body: string): Promise<string> {
  const t = request.type;
  const parsed = JSON.parse(body) as Json;
  const apiVersion = `${t.group}/${request.version}`;
  if (parsed['kind'] === t.listKind && Array.isArray(parsed['items'])) {
    const items = await conversion.convert(t, parsed['items'] as Json[], request.version);
    return JSON.stringify({ ...parsed, apiVersion, items });
  }
  if (parsed['kind'] !== t.kind) return body;
  // The verb labelled the stored object with the storage version it ran in.
  const [converted] = await conversion.convert(t, [parsed], request.version);
  return JSON.stringify(converted);
}

/**
 * Converts one watch event line (the object was written with the requested apiVersion over the
 * stored content); bookmarks and errors pass as they are.
 */
export async function convertWatchLine(conversion: CrdConversion, request: ResourceRequest, line: string): Promise<string> {
  const t = request.type;
  const event = JSON.parse(line) as { type: string; object: Json };
  if (event.type === 'BOOKMARK' || event.type === 'ERROR' || event.object['kind'] !== t.kind) return line;
  const [converted] = await conversion.convert(t, [{ ...event.object, apiVersion: `${t.group}/${t.storageVersion}` }], request.version);
  return `${JSON.stringify({ type: event.type, object: converted })}\n`;
}
