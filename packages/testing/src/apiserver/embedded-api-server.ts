// The embedded Kubernetes API server: real HTTP on 127.0.0.1, the Kubernetes wire format, for the
// subset operators use. Lifecycle, authentication, request faults, body parsing and dispatch live
// here; semantics live in ResourceHandler, WatchHub, ObjectStore, GarbageCollector and CrdController.
//
// Built-ins: namespaces, configmaps, secrets, pods, services, events (core/v1), deployments
// (apps/v1, stored only: no deployment controller), leases (coordination.k8s.io/v1),
// endpointslices (discovery.k8s.io/v1, where webhooks by service reference are called),
// customresourcedefinitions (apiextensions.k8s.io/v1); custom resources
// are served from the moment their CRD is stored until it is deleted.
//
// Caveats (where it knowingly differs from kube-apiserver):
// - Strategic merge patch and server-side apply know the merge keys and list types of the served
//   built-ins only (containers, env, volumes, ports, ownerReferences, conditions, finalizers, ...);
//   custom resources follow their CRD schema's x-kubernetes-list-type/-list-map-keys/-map-type.
//   Field ownership (managedFields) ignores API versions: each kind is served in one version.
// - CRD schemas prune, default (on write and on read) and validate custom objects (types, enum,
//   bounds, lengths, pattern, required, x-kubernetes-validations in CEL), but there are no
//   formats, no CEL cost estimation or budget, no CEL type checking at CRD creation (only syntax)
//   and no conversion webhooks. A deleted CRD is Terminating until its objects are deleted
//   (crd-controller.ts).
// - Decoding is kube-apiserver's: unknown fields (built-ins per @kubernetes/client-node's models,
//   custom resources per their schema) and repeated JSON keys follow `fieldValidation`
//   (field-validation.ts), MicroTimes must have six fractional digits (micro-time.ts), request
//   options are validated first (request-options.ts). Repeated keys in YAML and patch bodies are
//   not detected.
// - Bookmarks come per watch every bookmarkIntervalMs and 2 s before its timeoutSeconds end, as
//   from the watch cache; a watch without timeoutSeconds never times out (the real server picks
//   one of 30 to 60 minutes).
// - Health endpoints answer kube-apiserver's text format with the embedded server's own checks;
//   /metrics counts apiserver_request_total and apiserver_longrunning_requests only.
// - Few built-in admission plugins (no service accounts); admission webhooks run as in
//   kube-apiserver (admission-webhook-dispatcher.ts, admitted-write.ts). Table output (kubectl get)
//   covers list, get and watch, with the printer columns of a few built-ins and of CRDs
//   (see table-output.ts); so do metadata-only answers (as=PartialObjectMetadata[List], see
//   partial-object-metadata.ts). Bodies and answers are JSON, YAML or, for built-in kinds, protobuf
//   (content-negotiation.ts); CBOR is off, as in kube-apiserver without its feature gates.
// - Controllers a cluster would run are built in: the garbage collector (Background, Foreground
//   and Orphan propagation, dependents of missing owners) and the namespace controller (a deleted
//   namespace is emptied, then removed). A bare kube-apiserver without kube-controller-manager
//   does neither: its deleted namespaces stay Terminating and dependents stay.
// - There is no kubelet: an unscheduled Pod is deleted at once, a scheduled one (spec.nodeName)
//   keeps its deletionTimestamp until deleted again with gracePeriodSeconds=0, as on a real server.
// - Continued lists are consistent snapshots rebuilt from the watch history, so a continue token
//   expires with that history (410), as it does with etcd compaction.

import { randomBytes, X509Certificate } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { TLSSocket } from 'node:tls';
import { KubeConfig } from '@kubernetes/client-node';
import { stringify as toYaml, parse as parseYaml } from 'yaml';
import { rejectUnknownOptions, type OptionKeysOf } from '@kindex/core';
import { TEST_API_SERVER_OPTION_KEYS, type ApiServerFaults, type TestApiServer } from '../test-api-server.js';
import { AccessControl } from './filters/access-control.js';
import { AdmissionWebhookDispatcher } from './admission/admission-webhook-dispatcher.js';
import { admitRequest } from './endpoints/admitted-write.js';
import { CrdConversion } from './crd-conversion.js';
import { convertWatchLine, serveConverted } from './endpoints/converted-request.js';
import { WebhookHttpClient } from './webhook/webhook-http-client.js';
import type { UserInfo } from './filters/request-attributes.js';
import { CrdController } from './crd-controller.js';
import { ScaleSubresource } from './registry/scale-subresource.js';
import { SERVICE_CLUSTER_IP_RANGE } from './registry/service-cluster-ips.js';
import { ServiceAllocation } from './registry/service-defaults.js';
import { EVENTS_V1_TYPE_ID, answerAsEventsV1, eventsV1Body, patchEventsV1, watchLineAsEventsV1 } from './registry/events-api.js';
import { asEventsV1Object, eventEquivalence, eventsV1Admission } from './endpoints/events-v1-admission.js';
import { resolveWebhookService, type WebhookServiceAddresses } from './webhook/webhook-service-resolver.js';
import { coreVersions, group, groupList, resourceList, versionInfo } from './discovery/discovery.js';
import { aggregatedDiscovery, aggregatedDiscoveryVersion } from './discovery/aggregated-discovery.js';
import { OpenApiDocuments } from './discovery/openapi-documents.js';
import { CBOR, PROTOBUF, ResponseMedia, unsupportedMediaType } from './negotiation/content-negotiation.js';
import { RequestFaults } from './server/faults.js';
import { tableVersionOf, tableWatchTransform, toTable } from './negotiation/table-output.js';
import { asPartialMetadata, partialMetadataOf, partialMetadataWatchLine } from './negotiation/partial-object-metadata.js';
import { GarbageCollector } from './controllers/garbage-collector.js';
import { ObjectStore, type Json } from './storage/object-store.js';
import { ResourceHandler, type JsonResponse, type ResourceRequest } from './registry/resource-handler.js';
import { ResourceRegistry } from './storage/resource-registry.js';
import { selfSignedCertificate, type SelfSignedCertificate } from './server/self-signed-certificate.js';
import { duplicateFields } from './registry/duplicate-fields.js';
import { healthResponse, type TextResponse } from './server/health-checks.js';
import { METRICS_CONTENT_TYPE, RequestMetrics, requestLabels } from './server/request-metrics.js';
import { listOptionsCauses, optionsError, writeOptionsCauses } from './machinery/request-options.js';
import { route, type Route } from './filters/router.js';
import { ApiStatusError, badRequest, methodNotAllowed, pathNotFound } from './storage/status-error.js';
import { WatchHub, errorEventLine } from './watch/watch-hub.js';

/**
 * Options of {@link startEmbeddedApiServer}.
 *
 * @example
 * ```ts
 * import { startEmbeddedApiServer, type EmbeddedApiServerOptions } from '@kindex/testing';
 *
 * // A small watch history makes "410 Gone, relist" easy to provoke; frequent bookmarks keep resourceVersions fresh.
 * const options: EmbeddedApiServerOptions = { historyWindow: 10, bookmarkIntervalMs: 100, host: '127.0.0.1' };
 * const server = await startEmbeddedApiServer(options);
 * ```
 */
export interface EmbeddedApiServerOptions {
  /** TCP port; 0 picks a free one. Defaults to 0. */
  port?: number;
  /** Address to bind. Defaults to `127.0.0.1`. */
  host?: string;
  /** The bearer token clients must send. Defaults to a random token. */
  token?: string;
  /** Events kept for watches resuming from an older resourceVersion. Defaults to 1000. */
  historyWindow?: number;
  /**
   * Interval of BOOKMARK events on watches that allow them, per watch from its start; whatever
   * it is, a watch with `timeoutSeconds` also gets one 2 s before it times out, as from
   * kube-apiserver's watch cache. Lower it (to seconds or less) for tests. Defaults to 60000 (like
   * kube-apiserver).
   */
  bookmarkIntervalMs?: number;
  /** Delay before background garbage collection and namespace cleanup run. Defaults to 50. */
  gcDelayMs?: number;
  /**
   * Serves HTTPS with a fresh self-signed certificate (the kubeconfig skips verification). Needed
   * for kubectl, which sends bearer tokens only over TLS. Defaults to false (plain HTTP).
   */
  tls?: boolean;
  /** Largest request body accepted, in bytes (larger gets 413). Defaults to 3 MiB, as kube-apiserver. */
  maxBodyBytes?: number;
  /**
   * Honour `shardSelector` on list and watch, as kube-apiserver with the `ShardedListAndWatch`
   * feature gate; when false the parameter is ignored, as without the gate. Defaults to true.
   */
  shardedListAndWatch?: boolean;
  /**
   * Serves and reads CBOR (`application/cbor`, watches as `application/cbor-seq`), as kube-apiserver
   * with the `CBORServingAndStorage` feature gate; when false, CBOR asked for is 406 and a CBOR body
   * 415, as without the gate. Defaults to false.
   */
  cborServingAndStorage?: boolean;
  /**
   * `'RBAC'` enforces Roles, ClusterRoles and their bindings on every request, as kube-apiserver
   * with `--authorization-mode=RBAC` (the server's own kubeconfig is in system:masters and may do
   * everything); `'AlwaysAllow'` lets every authenticated request through. Defaults to `'AlwaysAllow'`.
   */
  authorization?: 'RBAC' | 'AlwaysAllow';
  /**
   * Where admission and conversion webhooks given by `clientConfig.service` are called:
   * `'<namespace>/<name>:<port>'` to a base URL (`{ 'system/webhooks:443': 'https://127.0.0.1:9443' }`),
   * or a function answering undefined for Services to find through their EndpointSlices, as
   * kube-apiserver with `--enable-aggregator-routing` does (EndpointSlices may not hold loopback
   * addresses, so a webhook on 127.0.0.1 needs this option). The certificate is checked for
   * `<name>.<namespace>.svc`. Defaults to resolving every Service through its EndpointSlices.
   */
  webhookServices?: WebhookServiceAddresses;
}

/** The keys of {@link EmbeddedApiServerOptions}: unknown ones are rejected, not ignored. */
export const EMBEDDED_API_SERVER_OPTION_KEYS = {
  ...TEST_API_SERVER_OPTION_KEYS,
  port: true,
  host: true,
  token: true,
  gcDelayMs: true,
  tls: true,
  maxBodyBytes: true,
  webhookServices: true,
} as const satisfies OptionKeysOf<EmbeddedApiServerOptions>;

/**
 * Every fault of {@link ApiServerFaults}: the embedded server provides them all.
 *
 * @example
 * ```ts
 * import { startEmbeddedApiServer, type EmbeddedApiServerFaults } from '@kindex/testing';
 *
 * const server = await startEmbeddedApiServer();
 * const faults: EmbeddedApiServerFaults = server.faults; // every fault, no optional chaining
 * faults.setLatency(200);
 * faults.pauseEvents(); // writes succeed, watchers hear nothing until resumeEvents()
 * faults.resumeEvents();
 * await server.stop();
 * ```
 */
export type EmbeddedApiServerFaults = Required<ApiServerFaults>;

const CONTEXT = 'kindex-embedded';
const NEGOTIATED_ROUTES: ReadonlySet<Route['kind']> = new Set(['api', 'apis', 'group', 'resources', 'resource']);
// Request bodies the server decodes; a missing Content-Type is read as JSON, as client-go sends.
const BODY_MEDIA_TYPES = new Set(['', 'application/json', 'application/yaml', 'application/apply-patch+yaml']);

/**
 * A running embedded API server; see {@link startEmbeddedApiServer}.
 *
 * @example
 * ```ts
 * import { startEmbeddedApiServer, type EmbeddedApiServer } from '@kindex/testing';
 *
 * // In-process and fast: no binaries, and every fault is available.
 * const server: EmbeddedApiServer = await startEmbeddedApiServer();
 * server.faults.failNextRequests(2, { status: 503 });
 * console.log(`serving ${server.url}, resourceVersion ${server.resourceVersion()}, ${server.openWatches()} watches`);
 * await server.stop();
 * ```
 */
export class EmbeddedApiServer implements TestApiServer {
  readonly flavor = 'embedded' as const;
  readonly url: string;
  readonly port: number;
  readonly host: string;
  readonly kubeConfig: KubeConfig;
  readonly kubeconfigYaml: string;
  readonly faults: EmbeddedApiServerFaults;

  private readonly store: ObjectStore;
  private readonly registry = new ResourceRegistry();
  private readonly openApi = new OpenApiDocuments(this.registry);
  private readonly hub: WatchHub;
  private readonly handler: ResourceHandler;
  private readonly scale: ScaleSubresource;
  private readonly gc: GarbageCollector;
  private readonly requestFaults = new RequestFaults();
  private readonly metrics = new RequestMetrics();
  private readonly maxBodyBytes: number;
  private readonly access: AccessControl;
  private readonly admission: AdmissionWebhookDispatcher;
  private readonly conversion: CrdConversion;
  private readonly webhookClient = new WebhookHttpClient((service) => resolveWebhookService(this.store, service, this.webhookServices));
  private readonly webhookServices: WebhookServiceAddresses | undefined;
  private readonly media = new ResponseMedia();
  private server: http.Server;
  private readonly certificate: SelfSignedCertificate | undefined;
  private stopped = false;
  #token: string;
  // SHA-256 fingerprints of the client certificates that authenticate a request, as kube-apiserver
  // authenticates x509 clients (here by exact certificate rather than by a CA).
  #clientCertificates = new Set<string>();

  /** @internal Use {@link startEmbeddedApiServer}. */
  constructor(
    server: http.Server,
    host: string,
    port: number,
    token: string,
    parts: { store: ObjectStore; hub: WatchHub; options: EmbeddedApiServerOptions; certificate: SelfSignedCertificate | undefined },
  ) {
    this.server = server;
    this.host = host;
    this.port = port;
    this.#token = token;
    this.certificate = parts.certificate;
    this.url = `${parts.certificate === undefined ? 'http' : 'https'}://${host}:${port}`;
    this.store = parts.store;
    this.hub = parts.hub;
    this.maxBodyBytes = parts.options.maxBodyBytes ?? 3 * 1024 * 1024;
    this.webhookServices = parts.options.webhookServices;
    this.handler = new ResourceHandler(this.store, this.registry);
    this.access = new AccessControl(this.store, parts.options.authorization === 'RBAC');
    this.conversion = new CrdConversion(this.store, this.webhookClient);
    this.admission = new AdmissionWebhookDispatcher(
      this.store,
      this.webhookClient,
      this.conversion,
      (a) => this.access.decide(a),
      eventEquivalence((id) => this.registry.byTypeId(id)),
    );
    this.handler.shardedListAndWatch = parts.options.shardedListAndWatch ?? true;
    this.media.cbor = parts.options.cborServingAndStorage ?? false;
    const crds = new CrdController(this.store, this.registry, (typeId) => this.hub.closeType(typeId), this.handler);
    this.scale = new ScaleSubresource(this.store, this.handler);
    const services = new ServiceAllocation(this.store, SERVICE_CLUSTER_IP_RANGE);
    this.handler.hooks = {
      beforeWrite: (t, draft, old) => {
        services.beforeWrite(t, draft, old);
        crds.beforeWrite(t, draft, old);
      },
      markForDeletion: (t, obj) => crds.markForDeletion(t, obj),
      afterWrite: (t, stored, removed) => crds.afterWrite(t, stored, removed),
    };
    const gcOptions = parts.options.gcDelayMs === undefined ? {} : { gcDelayMs: parts.options.gcDelayMs };
    this.gc = new GarbageCollector(this.store, this.registry, this.handler, gcOptions);
    this.kubeConfig = new KubeConfig();
    this.kubeConfig.loadFromOptions({
      clusters: [{ name: CONTEXT, server: this.url, skipTLSVerify: true }],
      users: [{ name: CONTEXT, token }],
      contexts: [{ name: CONTEXT, cluster: CONTEXT, user: CONTEXT }],
      currentContext: CONTEXT,
    });
    this.kubeconfigYaml = toYaml({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: CONTEXT,
          // Set for plain HTTP too: client-node refuses an http:// cluster unless it is ("HTTP protocol is
          // not allowed when skipTLSVerify is not set or false"), and kubectl ignores it there.
          cluster: { server: this.url, 'insecure-skip-tls-verify': true },
        },
      ],
      users: [{ name: CONTEXT, user: { token } }],
      contexts: [{ name: CONTEXT, context: { cluster: CONTEXT, user: CONTEXT } }],
      'current-context': CONTEXT,
    });
    this.faults = {
      closeWatches: async () => this.hub.closeAll(),
      expireHistory: async () => this.store.expireHistory(),
      failNextRequests: (count, options) => this.requestFaults.failNext(count, options),
      setLatency: (ms) => {
        this.requestFaults.latencyMs = Math.max(0, ms);
      },
      pauseEvents: () => this.hub.pause(),
      resumeEvents: () => this.hub.resume(),
      restart: () => this.restart(),
      forbid: (rule) => this.requestFaults.forbid(rule),
    };
    server.on('request', (req, res) => void this.serve(req, res));
    this.seedNamespaces();
    this.seedBootstrapPolicy();
  }

  /** The bearer token the server accepts now (see {@link EmbeddedApiServer.rotateToken}). */
  get token(): string {
    return this.#token;
  }

  /**
   * Rotates the accepted bearer token: from now on only `token` authenticates, and requests with
   * the previous one get 401, as after a token rotation on a real cluster. The server's own
   * `kubeConfig` and `kubeconfigYaml` keep the token they were built with; give clients the new one.
   */
  rotateToken(token: string): void {
    if (token === '') throw new Error('rotateToken: the token must not be empty');
    this.#token = token;
  }

  /**
   * Sets the client certificates (PEM) that authenticate a request on their own, replacing the
   * previous set: the way to test client-certificate rotation (trust the new certificate, drop
   * the old one). Needs a server started with `tls: true`; an empty list turns it off.
   *
   * @example
   * ```ts
   * import { selfSignedCertificate, startEmbeddedApiServer } from '@kindex/testing';
   * const server = await startEmbeddedApiServer({ tls: true });
   * const client = selfSignedCertificate('operator');
   * server.trustClientCertificates([client.cert]);
   * ```
   */
  trustClientCertificates(certificates: readonly string[]): void {
    if (this.certificate === undefined && certificates.length > 0) {
      throw new Error('trustClientCertificates: client certificates need TLS; start the server with { tls: true }');
    }
    this.#clientCertificates = new Set(certificates.map((pem) => new X509Certificate(pem).fingerprint256));
  }

  /**
   * A kubeconfig for another user, with a bearer token only this server accepts: the way to test
   * what RBAC lets a user or group do (start the server with `authorization: 'RBAC'`). The user
   * also belongs to `system:authenticated`. ServiceAccounts get their tokens from a TokenRequest
   * (`serviceaccounts/<name>/token`) instead, as on a real server.
   *
   * @example
   * ```ts
   * import { startEmbeddedApiServer } from '@kindex/testing';
   * import { CoreV1Api } from '@kubernetes/client-node';
   * const server = await startEmbeddedApiServer({ authorization: 'RBAC' });
   * const alice = server.userKubeConfig({ username: 'alice', groups: ['developers'] });
   * // 403: configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "default"
   * await alice.makeApiClient(CoreV1Api).listNamespacedConfigMap({ namespace: 'default' }).catch(() => undefined);
   * await server.stop();
   * ```
   */
  userKubeConfig(user: { readonly username: string; readonly groups?: readonly string[]; readonly uid?: string }): KubeConfig {
    const token = this.access.addUserToken({
      username: user.username,
      groups: user.groups ?? [],
      ...(user.uid === undefined ? {} : { uid: user.uid }),
    });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromClusterAndUser(this.kubeConfig.getCurrentCluster()!, { name: user.username, token });
    return kubeConfig;
  }

  private authenticated(req: http.IncomingMessage): boolean {
    if (req.headers.authorization === `Bearer ${this.#token}`) return true;
    if (this.#clientCertificates.size === 0 || !(req.socket instanceof TLSSocket)) return false;
    const peer = req.socket.getPeerCertificate();
    return peer.fingerprint256 !== undefined && this.#clientCertificates.has(peer.fingerprint256);
  }

  /** The latest resourceVersion, for diagnostics. */
  resourceVersion(): string {
    return String(this.store.resourceVersion);
  }

  /** How many watches are open, for diagnostics. */
  openWatches(): number {
    return this.hub.size;
  }

  /** Stops the server, ends every watch and timer. Idempotent. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.hub.dispose();
    this.gc.dispose();
    this.webhookClient.close();
    await closeServer(this.server);
  }

  private async restart(): Promise<void> {
    if (this.stopped) throw new Error('the embedded API server is stopped');
    const old = this.server;
    // Break open connections first, as a process that dies does (a watch then ends mid-stream, an
    // error to its client), and only then forget the watchers: ending them cleanly first would look
    // like a server-side watch timeout, which no client counts as a failure.
    old.closeAllConnections();
    this.hub.closeAll();
    await closeServer(old);
    const next = createServer(this.certificate);
    next.on('request', (req, res) => void this.serve(req, res));
    await listen(next, this.port, this.host);
    this.server = next;
  }

  private seedNamespaces(): void {
    const nsType = this.registry.byTypeId('/namespaces')!;
    for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      this.handler.create({
        type: nsType,
        version: 'v1',
        namespace: undefined,
        name: undefined,
        subresource: undefined,
        query: new URLSearchParams(),
        body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name } } },
        contentType: 'application/json',
        userAgent: 'kube-apiserver',
      });
    }
  }

  // kube-apiserver creates its bootstrap ClusterRoles and bindings at start, whether or not RBAC is on.
  private seedBootstrapPolicy(): void {
    for (const body of this.access.bootstrapPolicy) {
      const type = this.registry.lookup(
        'rbac.authorization.k8s.io',
        'v1',
        body.kind === 'ClusterRole' ? 'clusterroles' : 'clusterrolebindings',
      )!;
      this.handler.create({
        type,
        version: 'v1',
        namespace: undefined,
        name: undefined,
        subresource: undefined,
        query: new URLSearchParams(),
        body: structuredClone(body),
        contentType: 'application/json',
        userAgent: 'kube-apiserver',
      });
    }
  }

  private async serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    try {
      if (this.requestFaults.latencyMs > 0) await new Promise((r) => setTimeout(r, this.requestFaults.latencyMs));
      const url = new URL(req.url ?? '/', 'http://localhost');
      const r = route(url.pathname);
      const open = r !== undefined && (r.kind === 'health' || r.kind === 'version');
      // Authentication (401), impersonation and RBAC (403) come before anything else, as in kube-apiserver's filter chain.
      const user = open ? undefined : this.access.authenticate(req, this.authenticated(req), r, url);
      if (user !== undefined) this.access.authorize(user, r, req.method ?? 'GET', url);
      this.countRequest(req, res, url, r);
      const failure = this.requestFaults.take();
      if (failure !== undefined) {
        if (failure.status === 429) {
          const after = failure.retryAfterSeconds ?? 1;
          res.setHeader('Retry-After', String(after));
          throw new ApiStatusError(429, 'TooManyRequests', 'Too many requests, please try again later.', { retryAfterSeconds: after });
        }
        if (failure.status === 503)
          throw new ApiStatusError(503, 'ServiceUnavailable', 'the server is currently unable to handle the request');
        throw new ApiStatusError(500, 'InternalError', 'Internal error occurred: injected fault');
      }
      if (r === undefined) throw pathNotFound();
      if (r.kind === 'resource') this.checkForbidden(r, url, req.method ?? 'GET');
      const type = r.kind === 'resource' ? this.registry.lookup(r.group, r.version, r.resource) : undefined;
      // Reviews (access-control.ts) are built in without a registry entry; CRDs cannot claim *.k8s.io.
      const builtIn = r.kind !== 'resource' || r.group === '' || r.group === 'apps' || r.group.endsWith('.k8s.io');
      const custom = type?.custom ?? !builtIn;
      // Discovery and resources negotiate; an unknown group is 404 whatever it accepts, and health,
      // metrics and /version answer in their one format.
      if (NEGOTIATED_ROUTES.has(r.kind) && (type !== undefined || builtIn)) {
        const watch = url.searchParams.get('watch');
        await this.media.negotiate(res, req.headers.accept, { custom, watch: watch === 'true' || watch === '1' });
      }
      let body = await this.readBody(req);
      if (body?.bytes !== undefined) {
        const kind = type?.kind ?? (r.kind === 'resource' ? r.resource : '');
        body = { ...body, media: 'application/json', text: await this.media.decodeBody(body.bytes, kind, custom, body.media) };
      }
      if (r.kind === 'resource' && user !== undefined) {
        const answer = this.access.serve(
          r,
          req.method ?? 'GET',
          () => (body === undefined ? undefined : parseBody(body, 'TokenRequest')),
          user,
        );
        if (answer !== undefined) return this.send(res, answer);
      }
      if (r.kind === 'resource') {
        this.serveResource(r, url, req, res, body, user);
        return;
      }
      if (req.method !== 'GET' && req.method !== 'HEAD') throw methodNotAllowed();
      if (r.kind === 'health') return this.sendText(res, healthResponse(r.endpoint, r.check, url.searchParams));
      if (r.kind === 'metrics') return this.sendText(res, { status: 200, body: this.metrics.text() }, METRICS_CONTENT_TYPE);
      if (r.kind === 'openapi') return this.openApi.serve(url, req.headers.accept, res);
      if (r.kind === 'api' || r.kind === 'apis') {
        const version = aggregatedDiscoveryVersion(req.headers.accept);
        if (version !== undefined) {
          const doc = aggregatedDiscovery(this.registry, r.kind, version);
          return this.sendText(res, { status: 200, body: doc.body }, doc.contentType);
        }
      }
      this.send(res, this.discovery(r));
    } catch (e) {
      this.sendError(res, e);
    }
  }

  /** Answers 403 as kube-apiserver's RBAC does for a request a `forbid` fault covers. */
  private checkForbidden(r: Extract<Route, { kind: 'resource' }>, url: URL, method: string): void {
    const resource = r.subresource === undefined ? r.resource : `${r.resource}/${r.subresource}`;
    const watch = url.searchParams.get('watch');
    const verb =
      method === 'GET'
        ? watch === 'true' || watch === '1'
          ? 'watch'
          : r.name === undefined
            ? 'list'
            : 'get'
        : method === 'POST'
          ? 'create'
          : method === 'PUT'
            ? 'update'
            : method === 'PATCH'
              ? 'patch'
              : method === 'DELETE'
                ? r.name === undefined
                  ? 'deletecollection'
                  : 'delete'
                : method.toLowerCase();
    if (this.requestFaults.refusal({ group: r.group, resource: r.resource, namespace: r.namespace, verb }) === undefined) return;
    const scope = r.namespace === undefined ? 'at the cluster scope' : `in the namespace "${r.namespace}"`;
    const named = r.name === undefined ? '' : ` "${r.name}"`;
    throw new ApiStatusError(
      403,
      'Forbidden',
      `${resource}${named} is forbidden: User "system:serviceaccount:default:kindex-test" cannot ${verb} resource "${resource}" in API group "${r.group}" ${scope}`,
    );
  }

  private discovery(r: Route): JsonResponse {
    const json = (doc: Json | undefined): JsonResponse => {
      if (doc === undefined) throw pathNotFound();
      return { status: 200, body: JSON.stringify(doc) };
    };
    switch (r.kind) {
      case 'version':
        return json(versionInfo());
      case 'api':
        return json(coreVersions(`${this.host}:${this.port}`));
      case 'apis':
        return json(groupList(this.registry));
      case 'group':
        return json(group(this.registry, r.group));
      case 'resources':
        return json(resourceList(this.registry, r.group, r.version));
      default:
        // /openapi is answered by OpenApiDocuments before this.
        throw pathNotFound();
    }
  }

  private serveResource(
    r: Extract<Route, { kind: 'resource' }>,
    url: URL,
    req: http.IncomingMessage,
    res: http.ServerResponse,
    raw: RawBody | undefined,
    user: UserInfo | undefined,
  ): void {
    const type = this.registry.lookup(r.group, r.version, r.resource);
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
      admit: user === undefined ? undefined : this.access.escalationCheck(r, user),
    };
    if (type.id === EVENTS_V1_TYPE_ID) return this.serveEventsV1(request, isWatch, req, res, user);
    const method = req.method ?? 'GET';
    if (r.subresource === 'scale' && !isWatch) {
      const serve = (q: ResourceRequest): JsonResponse => this.scale.serve(method, q);
      if (method === 'GET' || user === undefined || this.admission.idle) return this.send(res, serve(request));
      return this.sendLater(
        res,
        admitRequest(this.admission, method, request, user, serve, () => this.storedObject(request)),
      );
    }
    if (this.conversion.webhookFor(type, r.version) !== undefined) {
      if (isWatch) return this.openWatch(request, req, res, undefined, (line) => convertWatchLine(this.conversion, request, line));
      const stored = (): Json | undefined => this.storedObject(request);
      return this.sendLater(
        res,
        serveConverted(this.conversion, method, request, (m, q) => this.verb(m, q, user, req), stored),
      );
    }
    if (isWatch) return this.openWatch(request, req, res);
    const answer = this.verb(method, request, user, req);
    return answer instanceof Promise ? this.sendLater(res, answer) : this.send(res, answer);
  }

  // The verbs but watch; writes go through the admission webhooks when any is configured (and then answer later).
  private verb(
    method: string,
    request: ResourceRequest,
    user: UserInfo | undefined,
    req: http.IncomingMessage,
  ): JsonResponse | Promise<JsonResponse> {
    const admitted = (run: (q: ResourceRequest) => JsonResponse): JsonResponse | Promise<JsonResponse> =>
      user === undefined || this.admission.idle
        ? run(request)
        : admitRequest(this.admission, method, request, user, run, () => this.storedObject(request));
    switch (method) {
      case 'GET': {
        const list = request.name === undefined;
        const answer = list ? this.handler.list(request) : this.handler.get(request);
        const partial = partialMetadataOf(req.headers.accept);
        if (partial !== undefined) return asPartialMetadata(answer, partial, request.type, list);
        return this.asTableIfAsked(request, req.headers.accept, answer);
      }
      case 'POST':
        if (request.name !== undefined) throw methodNotAllowed();
        return admitted((q) => this.handler.create(q));
      case 'PUT':
        if (request.name === undefined) throw methodNotAllowed();
        return admitted((q) => this.handler.update(q));
      case 'PATCH':
        if (request.name === undefined) throw methodNotAllowed();
        return admitted((q) => this.handler.patch(q));
      case 'DELETE':
        if (request.subresource !== undefined) throw methodNotAllowed();
        return admitted((q) => (q.name === undefined ? this.handler.deleteCollection(q) : this.handler.delete(q)));
      default:
        throw methodNotAllowed();
    }
  }

  private storedObject(request: ResourceRequest): Json | undefined {
    const t = request.type;
    return this.store.get(t.id, ResourceHandler.keyOf(t, request.namespace, request.name ?? ''))?.obj;
  }

  private sendLater(res: http.ServerResponse, answer: Promise<JsonResponse>): void {
    answer.then(
      (r) => this.send(res, r),
      (e: unknown) => this.sendError(res, e),
    );
  }

  // events.k8s.io/v1: the verbs run on the core/v1 storage; bodies and answers are converted, and
  // admission sees the request's resource and version (events-v1-admission.ts).
  private serveEventsV1(
    request: ResourceRequest,
    watch: boolean,
    req: http.IncomingMessage,
    res: http.ServerResponse,
    user: UserInfo | undefined,
  ): void {
    const core: ResourceRequest = { ...request, type: this.registry.byTypeId('/events')!, version: 'v1' };
    const asV1 = (r: JsonResponse): JsonResponse => ({ ...r, body: answerAsEventsV1(r.body) });
    const answer = (r: JsonResponse): void => this.send(res, asV1(r));
    const admitted = (run: (q: ResourceRequest) => JsonResponse): void => {
      if (user === undefined || this.admission.idle) return answer(run(core));
      const stored = (): Json | undefined => {
        const o = this.storedObject(core);
        return o === undefined ? undefined : asEventsV1Object(o);
      };
      const inCore = (q: ResourceRequest): JsonResponse =>
        run(q.admission === undefined ? core : { ...core, admission: eventsV1Admission(q.admission) });
      this.sendLater(res, admitRequest(this.admission, req.method ?? '', request, user, inCore, stored).then(asV1));
    };
    switch (req.method) {
      case 'GET':
        if (watch) return this.openWatch(core, req, res, watchLineAsEventsV1);
        // `kubectl get events.events.k8s.io` asks for a Table: the core/v1 Event printer's.
        return this.send(
          res,
          this.asTableIfAsked(
            request,
            req.headers.accept,
            asV1(request.name === undefined ? this.handler.list(core) : this.handler.get(core)),
          ),
        );
      case 'POST':
        if (request.name !== undefined) throw methodNotAllowed();
        return admitted((q) => this.handler.create({ ...q, body: eventsV1Body(request.body, undefined) }));
      case 'PUT':
        if (request.name === undefined) throw methodNotAllowed();
        return admitted((q) => this.handler.update({ ...q, body: eventsV1Body(request.body, request.name) }));
      case 'PATCH': {
        if (request.name === undefined) throw methodNotAllowed();
        return admitted((q) => {
          const stored = JSON.parse(this.handler.get(core).body) as Json;
          const patched = patchEventsV1(stored, request.contentType, request.body);
          return this.handler.update({ ...q, contentType: 'application/json', body: eventsV1Body(patched, request.name) });
        });
      }
      case 'DELETE':
        return admitted((q) => (request.name === undefined ? this.handler.deleteCollection(q) : this.handler.delete(q)));
      default:
        throw methodNotAllowed();
    }
  }

  // `kubectl get` asks for a Table; anything else gets the objects.
  private asTableIfAsked(request: ResourceRequest, accept: string | undefined, answer: JsonResponse): JsonResponse {
    const tableVersion = tableVersionOf(accept);
    if (tableVersion === undefined) return answer;
    const t = request.type;
    const crd = this.crdOf(t);
    return { status: answer.status, body: JSON.stringify(toTable(t, request.version, JSON.parse(answer.body) as Json, tableVersion, crd)) };
  }

  private crdOf(t: ResourceRequest['type']): Json | undefined {
    return t.custom ? this.store.get('apiextensions.k8s.io/customresourcedefinitions', `${t.resource}.${t.group}`)?.obj : undefined;
  }

  private openWatch(
    request: ResourceRequest,
    req: http.IncomingMessage,
    res: http.ServerResponse,
    convert?: (line: string) => string,
    convertLater?: (line: string) => Promise<string>,
  ): void {
    const q = request.query;
    const { labels, fields, shards } = this.handler.selectors(request);
    const rvText = q.get('resourceVersion');
    let fromRv: number | undefined;
    if (rvText !== null && rvText !== '' && rvText !== '0') {
      fromRv = Number(rvText);
      if (!/^\d+$/.test(rvText)) throw badRequest(`invalid resource version: ${rvText}`);
    }
    const timeoutText = q.get('timeoutSeconds');
    // 0 means "the server's default", which here is no timeout.
    const timeoutMs = timeoutText === null || timeoutText === '' || timeoutText === '0' ? undefined : Number(timeoutText) * 1000;
    if (timeoutMs !== undefined && !(timeoutMs >= 0)) throw badRequest(`invalid timeoutSeconds: ${timeoutText}`);
    // A watch-list without allowWatchBookmarks is valid (it then gets no initial-events-end bookmark).
    const sendInitialEvents = q.get('sendInitialEvents') === 'true';
    // `kubectl get --watch` asks for its rows as Tables.
    const tableVersion = tableVersionOf(req.headers.accept);
    const partial = partialMetadataOf(req.headers.accept);
    if (partial?.kind === 'PartialObjectMetadataList') {
      // kube-apiserver opens the stream, fails to convert the first event to a list and ends it empty.
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
      res.end();
      return;
    }
    const toPartial = partial === undefined ? undefined : partialMetadataWatchLine(partial.version);
    const encoding = this.media.watch(
      res,
      toPartial === undefined ? convert : convert === undefined ? toPartial : (line) => toPartial(convert(line)),
    );
    req.socket.setNoDelay(true);
    res.writeHead(200, { 'Content-Type': encoding.contentType, 'Cache-Control': 'no-cache, private' });
    res.flushHeaders();
    try {
      this.hub.open(
        {
          type: request.type,
          version: request.version,
          namespace: request.namespace,
          labels,
          fields,
          ...(shards === undefined ? {} : { shards: shards.selector }),
          bookmarks: q.get('allowWatchBookmarks') === 'true',
          timeoutMs,
          sendInitialEvents,
          ...(convertLater === undefined ? {} : { convertLater }),
          ...(tableVersion === undefined
            ? encoding.transform === undefined
              ? {}
              : { transform: encoding.transform }
            : { transform: tableWatchTransform(request.type, request.version, tableVersion, () => this.crdOf(request.type)) }),
        },
        res,
        fromRv,
      );
    } catch (e) {
      if (!(e instanceof ApiStatusError)) throw e;
      // Like the watch cache: the stream opens, reports the error as an event, and ends.
      const line = errorEventLine(e.toStatus());
      res.end(encoding.transform === undefined ? line : encoding.transform(line));
    }
  }

  private async readBody(req: http.IncomingMessage): Promise<RawBody | undefined> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > this.maxBodyBytes) {
        throw new ApiStatusError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${this.maxBodyBytes}`);
      }
      chunks.push(chunk as Buffer);
    }
    if (size === 0) return undefined;
    const media = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const bytes = Buffer.concat(chunks);
    // Protobuf is for whole objects: a protobuf PATCH gets the 415 below, as any non-patch media type.
    if ((media === PROTOBUF || (media === CBOR && this.media.cbor)) && req.method !== 'PATCH')
      return { text: '', media, patch: false, bytes };
    if (!BODY_MEDIA_TYPES.has(media) && !(req.method === 'PATCH' && media.endsWith('+json'))) throw unsupportedMediaType(this.media.cbor);
    return { text: bytes.toString('utf8'), media, patch: req.method === 'PATCH' };
  }

  // Counts the request in apiserver_request_total once its answer is sent (watches when they end).
  private countRequest(req: http.IncomingMessage, res: http.ServerResponse, url: URL, r: Route | undefined): void {
    const method = req.method ?? 'GET';
    const watch = url.searchParams.get('watch');
    const labels = requestLabels({
      method,
      path: url.pathname,
      ...(r?.kind === 'resource'
        ? {
            resource: {
              group: r.group,
              version: r.version,
              resource: r.resource,
              subresource: r.subresource,
              namespace: r.namespace,
              name: r.name,
            },
          }
        : {}),
      watch: method === 'GET' && (watch === 'true' || watch === '1'),
      apply: (req.headers['content-type'] ?? '').startsWith('application/apply-patch'),
      dryRun: url.searchParams.getAll('dryRun'),
    });
    const closeWatch = labels.verb === 'WATCH' ? this.metrics.open(labels) : undefined;
    res.once('close', () => {
      closeWatch?.();
      this.metrics.count(labels, res.statusCode);
    });
  }

  private sendText(res: http.ServerResponse, r: TextResponse, contentType = 'text/plain; charset=utf-8'): void {
    const headers: http.OutgoingHttpHeaders = {
      'Content-Type': contentType,
      'Cache-Control': 'no-cache, private',
      'Content-Length': Buffer.byteLength(r.body),
    };
    if (r.nosniff === true) headers['X-Content-Type-Options'] = 'nosniff';
    res.writeHead(r.status, headers);
    res.end(r.body);
  }

  private send(res: http.ServerResponse, r: JsonResponse): void {
    if (res.headersSent) return;
    const { body, contentType } = this.media.encode(res, r.body);
    const headers: http.OutgoingHttpHeaders = { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) };
    // One header per warning, quoted as Go's strconv.Quote does (RFC 7234 warn-text).
    if (r.warnings !== undefined && r.warnings.length > 0) headers['Warning'] = r.warnings.map((w) => `299 - ${JSON.stringify(w)}`);
    res.writeHead(r.status, headers);
    res.end(body);
  }

  private sendError(res: http.ServerResponse, e: unknown): void {
    const err =
      e instanceof ApiStatusError
        ? e
        : new ApiStatusError(500, 'InternalError', `Internal error occurred: ${(e as Error)?.message ?? String(e)}`);
    if (res.headersSent) {
      if (!res.writableEnded) res.end();
      return;
    }
    this.send(res, { status: err.code, body: JSON.stringify(err.toStatus()) });
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

/** A request body read but not yet decoded: decoding errors name the kind the path expects. */
interface RawBody {
  readonly text: string;
  readonly media: string;
  readonly patch: boolean;
  /** A protobuf body, decoded to JSON text once its kind is known. */
  readonly bytes?: Buffer;
}

function parseBody(raw: RawBody, kind: string): unknown {
  try {
    return raw.media.includes('yaml') ? parseYaml(raw.text) : JSON.parse(raw.text);
  } catch (e) {
    const reason = (e as Error).message.split('\n')[0];
    if (raw.patch) throw badRequest(`error decoding patch: ${reason}`);
    // kube-apiserver's wording for a body it cannot decode.
    throw badRequest(
      `the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; json parse error: ${reason} (${raw.text.slice(0, 100)})`,
    );
  }
}

function createServer(certificate: SelfSignedCertificate | undefined): http.Server {
  // requestCert lets clients present a certificate (see trustClientCertificates); without
  // rejectUnauthorized the handshake still succeeds for clients that present none, such as kubectl.
  const server =
    certificate === undefined
      ? http.createServer()
      : https.createServer({ key: certificate.key, cert: certificate.cert, requestCert: true, rejectUnauthorized: false });
  server.keepAliveTimeout = 30_000;
  return server;
}

function listen(server: http.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/**
 * Starts an embedded Kubernetes API server on 127.0.0.1.
 *
 * @example
 * ```ts
 * import { startEmbeddedApiServer } from '@kindex/testing';
 * import { CoreV1Api } from '@kubernetes/client-node';
 * const server = await startEmbeddedApiServer({ historyWindow: 50, bookmarkIntervalMs: 200 });
 * const core = server.kubeConfig.makeApiClient(CoreV1Api);
 * await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'a' } } });
 * await server.stop();
 * ```
 */
export async function startEmbeddedApiServer(options: EmbeddedApiServerOptions = {}): Promise<EmbeddedApiServer> {
  rejectUnknownOptions('startEmbeddedApiServer options', options, EMBEDDED_API_SERVER_OPTION_KEYS);
  const host = options.host ?? '127.0.0.1';
  const token = options.token ?? randomBytes(16).toString('hex');
  const store = new ObjectStore(options.historyWindow === undefined ? {} : { historyWindow: options.historyWindow });
  const hub = new WatchHub(store, options.bookmarkIntervalMs === undefined ? {} : { bookmarkIntervalMs: options.bookmarkIntervalMs });
  const certificate = options.tls === true ? selfSignedCertificate() : undefined;
  const server = createServer(certificate);
  let port: number;
  try {
    port = await listen(server, options.port ?? 0, host);
  } catch (e) {
    hub.dispose();
    throw e;
  }
  return new EmbeddedApiServer(server, host, port, token, { store, hub, options, certificate });
}
