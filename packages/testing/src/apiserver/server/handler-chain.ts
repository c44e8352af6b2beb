// The one path every request takes, in kube-apiserver's filter order: added latency (a fault),
// routing (request info), authentication (401), impersonation and authorization (403), metrics,
// injected failures, content negotiation, the body read; then the access reviews, the resource
// endpoints, or the non-resource paths (health, metrics, OpenAPI, discovery). Errors become a
// Status in the negotiated media type.

import type http from 'node:http';
import type { ClientAuthenticator } from '../filters/client-authenticator.js';
import { route, type Route } from '../filters/router.js';
import { aggregatedDiscovery, aggregatedDiscoveryVersion } from '../discovery/aggregated-discovery.js';
import { coreVersions, group, groupList, resourceList, versionInfo } from '../discovery/discovery.js';
import type { OpenApiDocuments } from '../discovery/openapi-documents.js';
import type { EndpointContext } from '../endpoints/endpoint-context.js';
import { readBody, parseBody } from '../endpoints/request-body.js';
import { serveResource } from '../endpoints/resource-endpoint.js';
import { sendError, sendJson } from '../endpoints/responses.js';
import type { JsonResponse } from '../machinery/json-response.js';
import type { Json } from '../storage/object-store.js';
import { methodNotAllowed, pathNotFound } from '../storage/status-error.js';
import { checkForbidden, injectedFailureError, type RequestFaults } from './faults.js';
import { healthResponse, type TextResponse } from './health-checks.js';
import { METRICS_CONTENT_TYPE, RequestMetrics, countRequest } from './request-metrics.js';

const NEGOTIATED_ROUTES: ReadonlySet<Route['kind']> = new Set(['api', 'apis', 'group', 'resources', 'resource']);

/** What the chain hands requests to, besides the resource endpoints. */
export interface HandlerChainParts {
  readonly endpoints: EndpointContext;
  readonly authenticator: ClientAuthenticator;
  readonly faults: RequestFaults;
  readonly openApi: OpenApiDocuments;
  readonly maxBodyBytes: number;
  /** `host:port`, as /api advertises it. */
  readonly address: string;
}

/** The request handler of one embedded server. */
export class HandlerChain {
  /** The request counts /metrics serves. */
  readonly metrics = new RequestMetrics();

  constructor(private readonly parts: HandlerChainParts) {}

  /** Answers one request. */
  async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const { endpoints, faults } = this.parts;
    const { access, media } = endpoints;
    const registry = endpoints.storage.types;
    try {
      if (faults.latencyMs > 0) await new Promise((r) => setTimeout(r, faults.latencyMs));
      const url = new URL(req.url ?? '/', 'http://localhost');
      const r = route(url.pathname);
      const open = r !== undefined && (r.kind === 'health' || r.kind === 'version');
      // Authentication (401), impersonation and RBAC (403) come before anything else, as in kube-apiserver's filter chain.
      const user = open ? undefined : access.authenticate(req, this.parts.authenticator.authenticates(req), r, url);
      if (user !== undefined) access.authorize(user, r, req.method ?? 'GET', url);
      countRequest(this.metrics, req, res, url, r);
      const failure = faults.take();
      if (failure !== undefined) throw injectedFailureError(failure, (name, value) => res.setHeader(name, value));
      if (r === undefined) throw pathNotFound();
      if (r.kind === 'resource') checkForbidden(faults, r, url, req.method ?? 'GET');
      const type = r.kind === 'resource' ? registry.lookup(r.group, r.version, r.resource) : undefined;
      // Reviews (access-control.ts) are built in without a registry entry; CRDs cannot claim *.k8s.io.
      const builtIn = r.kind !== 'resource' || r.group === '' || r.group === 'apps' || r.group.endsWith('.k8s.io');
      const custom = type?.custom ?? !builtIn;
      // Discovery and resources negotiate; an unknown group is 404 whatever it accepts, and health,
      // metrics and /version answer in their one format.
      if (NEGOTIATED_ROUTES.has(r.kind) && (type !== undefined || builtIn)) {
        const watch = url.searchParams.get('watch');
        await media.negotiate(res, req.headers.accept, { custom, watch: watch === 'true' || watch === '1' });
      }
      let body = await readBody(req, this.parts.maxBodyBytes, media);
      if (body?.bytes !== undefined) {
        const kind = type?.kind ?? (r.kind === 'resource' ? r.resource : '');
        body = { ...body, media: 'application/json', text: await media.decodeBody(body.bytes, kind, custom, body.media) };
      }
      if (r.kind === 'resource' && user !== undefined) {
        const answer = access.serve(r, req.method ?? 'GET', () => (body === undefined ? undefined : parseBody(body, 'TokenRequest')), user);
        if (answer !== undefined) return sendJson(media, res, answer);
      }
      if (r.kind === 'resource') return serveResource(endpoints, r, url, req, res, body, user);
      if (req.method !== 'GET' && req.method !== 'HEAD') throw methodNotAllowed();
      if (r.kind === 'health') return sendText(res, healthResponse(r.endpoint, r.check, url.searchParams));
      if (r.kind === 'metrics') return sendText(res, { status: 200, body: this.metrics.text() }, METRICS_CONTENT_TYPE);
      if (r.kind === 'openapi') return this.parts.openApi.serve(url, req.headers.accept, res);
      if (r.kind === 'api' || r.kind === 'apis') {
        const version = aggregatedDiscoveryVersion(req.headers.accept);
        if (version !== undefined) {
          const doc = aggregatedDiscovery(registry, r.kind, version);
          return sendText(res, { status: 200, body: doc.body }, doc.contentType);
        }
      }
      sendJson(media, res, this.discovery(r));
    } catch (e) {
      sendError(media, res, e);
    }
  }

  private discovery(r: Route): JsonResponse {
    const registry = this.parts.endpoints.storage.types;
    const json = (doc: Json | undefined): JsonResponse => {
      if (doc === undefined) throw pathNotFound();
      return { status: 200, body: JSON.stringify(doc) };
    };
    switch (r.kind) {
      case 'version':
        return json(versionInfo());
      case 'api':
        return json(coreVersions(this.parts.address));
      case 'apis':
        return json(groupList(registry));
      case 'group':
        return json(group(registry, r.group));
      case 'resources':
        return json(resourceList(registry, r.group, r.version));
      default:
        // /openapi is answered by OpenApiDocuments before this.
        throw pathNotFound();
    }
  }
}

// Text in its one format (health checks, metrics, aggregated discovery), not negotiated.
function sendText(res: http.ServerResponse, r: TextResponse, contentType = 'text/plain; charset=utf-8'): void {
  const headers: http.OutgoingHttpHeaders = {
    'Content-Type': contentType,
    'Cache-Control': 'no-cache, private',
    'Content-Length': Buffer.byteLength(r.body),
  };
  if (r.nosniff === true) headers['X-Content-Type-Options'] = 'nosniff';
  res.writeHead(r.status, headers);
  res.end(r.body);
}
