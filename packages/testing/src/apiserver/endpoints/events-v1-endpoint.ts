// events.k8s.io/v1: the verbs run on the core/v1 Event storage; bodies and answers are converted,
// and admission sees the request's resource and version (events-v1-admission.ts).

import type http from 'node:http';
import type { UserInfo } from '../filters/request-attributes.js';
import type { JsonResponse } from '../machinery/json-response.js';
import { answerAsEventsV1, eventsV1Body, patchEventsV1, watchLineAsEventsV1 } from '../machinery/events-api.js';
import type { ResourceRequest } from '../registry/resource-request.js';
import { createResource } from '../registry/verb-create.js';
import { deleteCollection, deleteResource } from '../registry/verb-delete.js';
import { getResource, listResources } from '../registry/verb-get-list.js';
import { updateResource } from '../registry/verb-update.js';
import type { Json } from '../storage/object-store.js';
import { methodNotAllowed } from '../storage/status-error.js';
import { admitRequest } from './admitted-write.js';
import { asTableIfAsked, storedObject, type EndpointContext } from './endpoint-context.js';
import { asEventsV1Object, eventsV1Admission } from './events-v1-admission.js';
import { sendJson, sendLater } from './responses.js';
import { openWatch } from './watch-endpoint.js';

/** Serves one events.k8s.io/v1 request. */
export function serveEventsV1(
  ctx: EndpointContext,
  request: ResourceRequest,
  watch: boolean,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  user: UserInfo | undefined,
): void {
  const s = ctx.storage;
  const core: ResourceRequest = { ...request, type: s.types.byTypeId('/events')!, version: 'v1' };
  const asV1 = (r: JsonResponse): JsonResponse => ({ ...r, body: answerAsEventsV1(r.body) });
  const answer = (r: JsonResponse): void => sendJson(ctx.media, res, asV1(r));
  const admitted = (run: (q: ResourceRequest) => JsonResponse): void => {
    if (user === undefined || ctx.admission.idle) return answer(run(core));
    const stored = (): Json | undefined => {
      const o = storedObject(ctx, core);
      return o === undefined ? undefined : asEventsV1Object(o);
    };
    const inCore = (q: ResourceRequest): JsonResponse =>
      run(q.admission === undefined ? core : { ...core, admission: eventsV1Admission(q.admission) });
    sendLater(ctx.media, res, admitRequest(ctx.admission, req.method ?? '', request, user, inCore, stored).then(asV1));
  };
  switch (req.method) {
    case 'GET':
      if (watch) return openWatch(ctx, core, req, res, watchLineAsEventsV1);
      // `kubectl get events.events.k8s.io` asks for a Table: the core/v1 Event printer's.
      return sendJson(
        ctx.media,
        res,
        asTableIfAsked(ctx, request, req.headers.accept, asV1(request.name === undefined ? listResources(s, core) : getResource(s, core))),
      );
    case 'POST':
      if (request.name !== undefined) throw methodNotAllowed();
      return admitted((q) => createResource(s, { ...q, body: eventsV1Body(request.body, undefined) }));
    case 'PUT':
      if (request.name === undefined) throw methodNotAllowed();
      return admitted((q) => updateResource(s, { ...q, body: eventsV1Body(request.body, request.name) }));
    case 'PATCH': {
      if (request.name === undefined) throw methodNotAllowed();
      return admitted((q) => {
        const stored = JSON.parse(getResource(s, core).body) as Json;
        const patched = patchEventsV1(stored, request.contentType, request.body);
        return updateResource(s, { ...q, contentType: 'application/json', body: eventsV1Body(patched, request.name) });
      });
    }
    case 'DELETE':
      return admitted((q) => (request.name === undefined ? deleteCollection(s, q) : deleteResource(s, q)));
    default:
      throw methodNotAllowed();
  }
}
