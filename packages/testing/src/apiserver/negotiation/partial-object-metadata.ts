// Metadata-only answers: a GET, list or watch whose Accept asks for
// `as=PartialObjectMetadata;g=meta.k8s.io;v=v1` (or `as=PartialObjectMetadataList` for a list), as
// client-go's metadata client and controller-runtime's metadata informers send, is answered with
// each object's metadata only, as kube-apiserver 1.36 does (endpoints/handlers/response.go):
// `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{...}}`, a list as a
// PartialObjectMetadataList (`items` null when empty, as Go writes a nil slice), and a watch with
// every event's object converted but ERROR's Status. The wrong one of the two (PartialObjectMetadata
// for a list, PartialObjectMetadataList for one object) is a 406 naming the Go type, as there.
// content-negotiation.ts decides which clause of the Accept header wins (an unknown `as=` is skipped,
// and a 406 when nothing else fits).

import type { Json } from '../storage/object-store.js';
import type { ResourceType } from '../storage/resource-registry.js';
import type { JsonResponse } from '../machinery/json-response.js';
import { ApiStatusError } from '../storage/status-error.js';

/** The two metadata-only representations kube-apiserver converts to. */
export type PartialMetadataKind = 'PartialObjectMetadata' | 'PartialObjectMetadataList';

/** A metadata-only representation asked for: its kind and meta.k8s.io version. */
export interface PartialMetadataAsk {
  readonly kind: PartialMetadataKind;
  readonly version: 'v1' | 'v1beta1';
}

/** The parameters of one Accept clause (`as`, `g`, `v`), lower-cased keys. */
export function clauseParams(clause: string): Map<string, string> {
  const params = new Map<string, string>();
  for (const p of clause.split(';').slice(1)) {
    const eq = p.indexOf('=');
    if (eq > 0) params.set(p.slice(0, eq).trim().toLowerCase(), p.slice(eq + 1).trim());
  }
  return params;
}

/** The metadata-only conversion a clause asks for, if it asks for one kube-apiserver makes. */
export function partialMetadataOfClause(params: ReadonlyMap<string, string>): PartialMetadataAsk | undefined {
  const as = params.get('as');
  const version = params.get('v');
  if (as !== 'PartialObjectMetadata' && as !== 'PartialObjectMetadataList') return undefined;
  if (params.get('g') !== 'meta.k8s.io' || (version !== 'v1' && version !== 'v1beta1')) return undefined;
  return { kind: as, version };
}

/**
 * The metadata-only representation the winning clause of `accept` asks for (the first clause, by
 * quality, that negotiation accepts; content-negotiation.ts has already refused the request when
 * none fits), or undefined for whole objects.
 */
export function partialMetadataOf(accept: string | undefined): PartialMetadataAsk | undefined {
  if (accept === undefined) return undefined;
  const clauses = accept
    .split(',')
    .map((text) => ({ text, q: Number(clauseParams(text).get('q') ?? '1') }))
    .sort((a, b) => b.q - a.q);
  for (const { text } of clauses) {
    const params = clauseParams(text);
    if (!params.has('as')) return undefined;
    const ask = partialMetadataOfClause(params);
    if (ask !== undefined) return ask;
    // Another conversion (a Table, or one negotiation skipped): not metadata-only.
    if (params.get('as') === 'Table') return undefined;
  }
  return undefined;
}

function notAcceptable(message: string): ApiStatusError {
  return new ApiStatusError(406, 'NotAcceptable', message);
}

/** One object's PartialObjectMetadata. */
function partialOf(object: Json, version: string): Json {
  return { kind: 'PartialObjectMetadata', apiVersion: `meta.k8s.io/${version}`, metadata: object['metadata'] ?? {} };
}

// The Go type kube-apiserver names in its 406: internal types live in a package named after the
// group's first label (core for the core group); custom resources are unstructured.
function goTypeOf(type: ResourceType, list: boolean): string {
  if (type.custom) return list ? '*unstructured.UnstructuredList' : '*unstructured.Unstructured';
  const pkg = type.group === '' ? 'core' : type.group.slice(0, type.group.indexOf('.') < 0 ? undefined : type.group.indexOf('.'));
  return `*${pkg}.${type.kind}${list ? 'List' : ''}`;
}

/**
 * A successful GET's answer converted as `ask` says: one object to PartialObjectMetadata, a list
 * to PartialObjectMetadataList (resourceVersion, continue and remainingItemCount kept).
 * @throws {ApiStatusError} 406 for PartialObjectMetadata of a list or PartialObjectMetadataList of one object.
 */
export function asPartialMetadata(answer: JsonResponse, ask: PartialMetadataAsk, type: ResourceType, list: boolean): JsonResponse {
  if (answer.status < 200 || answer.status >= 300) return answer;
  if (list && ask.kind === 'PartialObjectMetadata') {
    throw notAcceptable(`you requested PartialObjectMetadata, but the requested object is a list (${goTypeOf(type, true)})`);
  }
  if (!list && ask.kind === 'PartialObjectMetadataList') {
    throw notAcceptable(`you requested PartialObjectMetadataList, but the requested object is not a list (${goTypeOf(type, false)})`);
  }
  const body = JSON.parse(answer.body) as Json;
  if (!list) return { ...answer, body: JSON.stringify(partialOf(body, ask.version)) };
  const items = (body['items'] as Json[] | undefined) ?? [];
  const converted = {
    kind: 'PartialObjectMetadataList',
    apiVersion: `meta.k8s.io/${ask.version}`,
    metadata: body['metadata'] ?? {},
    items: items.length === 0 ? null : items.map((item) => partialOf(item, ask.version)),
  };
  return { ...answer, body: JSON.stringify(converted) };
}

/** A watch line transform giving each event's object as PartialObjectMetadata; ERROR's Status is left as is. */
export function partialMetadataWatchLine(version: string): (line: string) => string {
  return (line) => {
    const event = JSON.parse(line) as { type?: unknown; object?: Json };
    if (event.type === 'ERROR' || event.object === undefined) return line;
    return `${JSON.stringify({ type: event.type, object: partialOf(event.object, version) })}\n`;
  };
}
