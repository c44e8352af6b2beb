// Requests to a resource, after the filters: the path must name a served type (and subresource),
// the options are validated before the body is decoded, then the request goes to its endpoint:
// events.k8s.io/v1, the scale subresource, a CRD conversion webhook, a watch, or the registry's
// verb; writes go through the admission webhooks when any is configured (and then answer later).

import type http from 'node:http';
import type { UserInfo } from '../filters/request-attributes.js';
import type { Route } from '../filters/router.js';
import type { JsonResponse } from '../machinery/json-response.js';
import { listOptionsCauses, optionsError, writeOptionsCauses } from '../machinery/request-options.js';
import { asPartialMetadata, partialMetadataOf } from '../negotiation/partial-object-metadata.js';
import { duplicateFields } from '../registry/duplicate-fields.js';
import { EVENTS_V1_TYPE_ID } from '../machinery/events-api.js';
import type { ResourceRequest } from '../registry/resource-request.js';
import { createResource } from '../registry/verb-create.js';
import { deleteCollection, deleteResource } from '../registry/verb-delete.js';
import { getResource, listResources } from '../registry/verb-get-list.js';
import { patchResource } from '../registry/verb-patch.js';
import { updateResource } from '../registry/verb-update.js';
import type { Json } from '../storage/object-store.js';
import { ApiStatusError, methodNotAllowed, pathNotFound } from '../storage/status-error.js';
import { admitRequest } from './admitted-write.js';
import { convertWatchLine, serveConverted } from './converted-request.js';
import { asTableIfAsked, storedObject, type EndpointContext } from './endpoint-context.js';
import { serveEventsV1 } from './events-v1-endpoint.js';
import { parseBody, type RawBody } from './request-body.js';
import { sendJson, sendLater } from './responses.js';
import { openWatch } from './watch-endpoint.js';

/** Serves one request to a resource; errors are thrown for the handler chain to answer. */
export function serveResource(
  ctx: EndpointContext,
  r: Extract<Route, { kind: 'resource' }>,
  url: URL,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  raw: RawBody | undefined,
  user: UserInfo | undefined,
): void {
  const type = ctx.storage.types.lookup(r.group, r.version, r.resource);
  if (type === undefined || (!type.namespaced && r.namespace !== undefined)) throw pathNotFound();
  const servesSubresource =
    (r.subresource === 'status' && type.statusSubresource) || (r.subresource === 'scale' && type.scale?.[r.version] !== undefined);
  if (r.subresource !== undefined && !servesSubresource) throw pathNotFound();
  const watch = url.searchParams.get('watch');
  const isWatch = req.method === 'GET' && (watch === 'true' || watch === '1');
  // Like kube-apiserver, the options are validated before the body is decoded.
  const optionsProblem = requestOptionsError(req.method, r.name === undefined, isWatch, url.searchParams);
  if (optionsProblem !== undefined) throw optionsProblem;
  const body = raw === undefined ? undefined : parseBody(raw, type.kind);
  const dryRunValues = url.searchParams.getAll('dryRun');
  const request: ResourceRequest = {
    type,
    version: r.version,
    namespace: r.namespace,
    name: r.name,
    subresource: r.subresource,
    query: url.searchParams,
    body,
    contentType: req.headers['content-type'],
    dryRun: dryRunValues.length > 0,
    userAgent: req.headers['user-agent'],
    // Only object bodies decoded as JSON: patches and YAML go through other decoders.
    duplicateFields: raw !== undefined && !raw.patch && !raw.media.includes('yaml') ? duplicateFields(raw.text) : [],
    admit: user === undefined ? undefined : ctx.access.escalationCheck(r, user),
  };
  if (type.id === EVENTS_V1_TYPE_ID) return serveEventsV1(ctx, request, isWatch, req, res, user);
  const method = req.method ?? 'GET';
  if (r.subresource === 'scale' && !isWatch) {
    const serve = (q: ResourceRequest): JsonResponse => ctx.scale.serve(method, q);
    if (method === 'GET' || user === undefined || ctx.admission.idle) return sendJson(ctx.media, res, serve(request));
    return sendLater(
      ctx.media,
      res,
      admitRequest(ctx.admission, method, request, user, serve, () => storedObject(ctx, request)),
    );
  }
  if (ctx.conversion.webhookFor(type, r.version) !== undefined) {
    if (isWatch) return openWatch(ctx, request, req, res, undefined, (line) => convertWatchLine(ctx.conversion, request, line));
    const stored = (): Json | undefined => storedObject(ctx, request);
    return sendLater(
      ctx.media,
      res,
      serveConverted(ctx.conversion, method, request, (m, q) => verb(ctx, m, q, user, req), stored),
    );
  }
  if (isWatch) return openWatch(ctx, request, req, res);
  const answer = verb(ctx, method, request, user, req);
  return answer instanceof Promise ? sendLater(ctx.media, res, answer) : sendJson(ctx.media, res, answer);
}

// The verbs but watch; writes go through the admission webhooks when any is configured (and then answer later).
function verb(
  ctx: EndpointContext,
  method: string,
  request: ResourceRequest,
  user: UserInfo | undefined,
  req: http.IncomingMessage,
): JsonResponse | Promise<JsonResponse> {
  const s = ctx.storage;
  const admitted = (run: (q: ResourceRequest) => JsonResponse): JsonResponse | Promise<JsonResponse> =>
    user === undefined || ctx.admission.idle
      ? run(request)
      : admitRequest(ctx.admission, method, request, user, run, () => storedObject(ctx, request));
  switch (method) {
    case 'GET': {
      const list = request.name === undefined;
      const answer = list ? listResources(s, request) : getResource(s, request);
      const partial = partialMetadataOf(req.headers.accept);
      if (partial !== undefined) return asPartialMetadata(answer, partial, request.type, list);
      return asTableIfAsked(ctx, request, req.headers.accept, answer);
    }
    case 'POST':
      if (request.name !== undefined) throw methodNotAllowed();
      return admitted((q) => createResource(s, q));
    case 'PUT':
      if (request.name === undefined) throw methodNotAllowed();
      return admitted((q) => updateResource(s, q));
    case 'PATCH':
      if (request.name === undefined) throw methodNotAllowed();
      return admitted((q) => patchResource(s, q));
    case 'DELETE':
      if (request.subresource !== undefined) throw methodNotAllowed();
      return admitted((q) => (q.name === undefined ? deleteCollection(s, q) : deleteResource(s, q)));
    default:
      throw methodNotAllowed();
  }
}

/** The options error of a request (ListOptions for list, watch and deletecollection; DELETE's own come with its body). */
function requestOptionsError(
  method: string | undefined,
  collection: boolean,
  watch: boolean,
  query: URLSearchParams,
): ApiStatusError | undefined {
  switch (method) {
    case 'GET':
      return collection || watch ? optionsError('ListOptions', listOptionsCauses(query, watch)) : undefined;
    case 'POST':
      return optionsError('CreateOptions', writeOptionsCauses(query));
    case 'PUT':
      return optionsError('UpdateOptions', writeOptionsCauses(query));
    case 'PATCH':
      return optionsError('PatchOptions', writeOptionsCauses(query));
    case 'DELETE':
      return collection ? optionsError('ListOptions', listOptionsCauses(query, false)) : undefined;
    default:
      return undefined;
  }
}
