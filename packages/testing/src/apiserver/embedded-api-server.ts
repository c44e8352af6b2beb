// The embedded Kubernetes API server: real HTTP on 127.0.0.1, the Kubernetes wire format, for the
// subset operators use. This file is the composition root: it builds the stages and hands every
// request to the handler chain (server/handler-chain.ts). The stages, each with its own module doc,
// import only downward (scripts/ci/check-layers.mjs checks it):
// - server/: the handler chain in kube-apiserver's filter order, the listener, faults, /metrics,
//   health checks, the bootstrap objects;
// - endpoints/: requests to resources: their verb on the registry, watches, events.k8s.io/v1,
//   admission around writes, CRD conversion webhooks around the verbs;
// - controllers/: what kube-controller-manager would run (garbage collector, namespace controller);
// - apiextensions/: CustomResourceDefinitions: the CRD controller, conversion webhooks, printer
//   columns, OpenAPI; custom objects are pruned, defaulted and validated (x-kubernetes-validations
//   in CEL, with kube-apiserver's cost estimation) by @kindex/core's apiextensions/;
// - discovery/, negotiation/: discovery and OpenAPI documents; media types (JSON, YAML, protobuf,
//   CBOR), Table and PartialObjectMetadata answers;
// - registry/: the verbs on stored objects, one file each, and per-kind defaults and validation;
// - admission/: admission webhooks (rules, selectors, match conditions, reinvocation);
// - webhook/: the HTTP client and service resolution admission and conversion webhooks share;
// - filters/: request info, authentication, impersonation, RBAC authorization, access reviews;
// - watch/, storage/, machinery/: the watch hub; the object store, served types and Status errors;
//   object metadata, patches, built-in schemas.
//
// Built-ins: namespaces, configmaps, secrets, pods, services, events (core/v1 and events.k8s.io/v1),
// deployments (apps/v1, stored only: no deployment controller), leases, endpointslices, RBAC,
// admission webhook configurations, customresourcedefinitions; custom resources are served from the
// moment their CRD is stored until it is deleted.
//
// Caveats (where it knowingly differs from kube-apiserver):
// - Strategic merge patch and server-side apply know the merge keys and list types of the served
//   built-ins only (containers, env, volumes, ports, ownerReferences, conditions, finalizers, ...);
//   custom resources follow their CRD schema's x-kubernetes-list-type/-list-map-keys/-map-type.
//   Field ownership (managedFields) ignores API versions.
// - Decoding is kube-apiserver's: unknown fields (built-ins per @kubernetes/client-node's models,
//   custom resources per their schema) and repeated JSON keys follow `fieldValidation`
//   (registry/field-validation.ts), MicroTimes must have six fractional digits, request options are
//   validated first (machinery/request-options.ts). Repeated keys in YAML and patch bodies are not detected.
// - Bookmarks come per watch every bookmarkIntervalMs and 2 s before its timeoutSeconds end, as
//   from the watch cache; a watch without timeoutSeconds never times out (the real server picks
//   one of 30 to 60 minutes).
// - Health endpoints answer kube-apiserver's text format with the embedded server's own checks;
//   /metrics counts apiserver_request_total and apiserver_longrunning_requests only.
// - Few built-in admission plugins (NamespaceLifecycle, RBAC escalation prevention; no service
//   accounts); admission webhooks run as in kube-apiserver. CBOR is off unless asked for, as in
//   kube-apiserver without its feature gates.
// - The garbage collector (Background, Foreground and Orphan propagation, dependents of missing
//   owners) and the namespace controller are built in; a bare kube-apiserver without
//   kube-controller-manager does neither: its deleted namespaces stay Terminating and dependents stay.
// - There is no kubelet: an unscheduled Pod is deleted at once, a scheduled one (spec.nodeName)
//   keeps its deletionTimestamp until deleted again with gracePeriodSeconds=0, as on a real server.
// - Continued lists are consistent snapshots rebuilt from the watch history, so a continue token
//   expires with that history (410), as it does with etcd compaction.

import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { KubeConfig } from '@kubernetes/client-node';
import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';
import { TEST_API_SERVER_OPTIONS, type ApiServerFaults, type TestApiServer } from '../test-api-server.js';
import { AdmissionWebhookDispatcher } from './admission/admission-webhook-dispatcher.js';
import { CrdController } from './apiextensions/crd-controller.js';
import { CrdConversion } from './apiextensions/crd-conversion.js';
import { GarbageCollector } from './controllers/garbage-collector.js';
import { OpenApiDocuments } from './discovery/openapi-documents.js';
import { eventEquivalence } from './endpoints/events-v1-admission.js';
import { AccessControl } from './filters/access-control.js';
import { ClientAuthenticator } from './filters/client-authenticator.js';
import { ResponseMedia } from './negotiation/content-negotiation.js';
import { controllerWrites } from './registry/controller-writes.js';
import { registryStorage } from './registry/registry-storage.js';
import { ScaleSubresource } from './registry/scale-subresource.js';
import { SERVICE_CLUSTER_IP_RANGE } from './registry/service-cluster-ips.js';
import { ServiceAllocation } from './registry/service-defaults.js';
import { createBootstrapObjects } from './server/bootstrap-objects.js';
import { RequestFaults } from './server/faults.js';
import { HandlerChain } from './server/handler-chain.js';
import { closeServer, createServer, listen } from './server/http-serving.js';
import { embeddedKubeConfig } from './server/kubeconfig.js';
import { selfSignedCertificate, type SelfSignedCertificate } from './server/self-signed-certificate.js';
import { ObjectStore } from './storage/object-store.js';
import { ResourceRegistry } from './storage/resource-registry.js';
import { WatchHub } from './watch/watch-hub.js';
import { WebhookHttpClient } from './webhook/webhook-http-client.js';
import { resolveWebhookService, type WebhookServiceAddresses } from './webhook/webhook-service-resolver.js';

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

/** {@link EmbeddedApiServerOptions}' keys and value checks: unknown keys are rejected, not ignored. */
const EMBEDDED_API_SERVER_OPTIONS = defineOptions<EmbeddedApiServerOptions>('startEmbeddedApiServer options', {
  ...TEST_API_SERVER_OPTIONS.properties,
  port: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535, description: 'a TCP port, 0 for a free one' })),
  host: Type.Optional(Type.String({ minLength: 1, description: 'an address to bind, such as 127.0.0.1' })),
  token: Type.Optional(Type.String({ minLength: 1, description: 'a non-empty bearer token' })),
  gcDelayMs: Type.Optional(Type.Number({ minimum: 0, description: 'a number of milliseconds, 0 or more' })),
  tls: Type.Optional(Type.Boolean({ description: 'true or false' })),
  maxBodyBytes: Type.Optional(Type.Integer({ exclusiveMinimum: 0, description: 'a positive number of bytes' })),
  webhookServices: Type.Optional(Type.Unknown()),
});

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
  private readonly hub: WatchHub;
  private readonly gc: GarbageCollector;
  private readonly access: AccessControl;
  private readonly authenticator: ClientAuthenticator;
  private readonly webhookClient: WebhookHttpClient;
  private readonly chain: HandlerChain;
  private server: http.Server;
  private readonly certificate: SelfSignedCertificate | undefined;
  private stopped = false;

  /** @internal Use {@link startEmbeddedApiServer}. */
  constructor(
    server: http.Server,
    host: string,
    port: number,
    token: string,
    parts: { store: ObjectStore; hub: WatchHub; options: EmbeddedApiServerOptions; certificate: SelfSignedCertificate | undefined },
  ) {
    const { store, hub, options, certificate } = parts;
    this.server = server;
    this.host = host;
    this.port = port;
    this.certificate = certificate;
    this.url = `${certificate === undefined ? 'http' : 'https'}://${host}:${port}`;
    this.store = store;
    this.hub = hub;
    this.authenticator = new ClientAuthenticator(token, certificate !== undefined);
    const registry = new ResourceRegistry();
    const storage = registryStorage(store, registry);
    storage.shardedListAndWatch = options.shardedListAndWatch ?? true;
    this.webhookClient = new WebhookHttpClient((service) => resolveWebhookService(store, service, options.webhookServices));
    this.access = new AccessControl(store, options.authorization === 'RBAC');
    const conversion = new CrdConversion(store, this.webhookClient);
    const admission = new AdmissionWebhookDispatcher(
      store,
      this.webhookClient,
      conversion,
      (a) => this.access.decide(a),
      eventEquivalence((id) => registry.byTypeId(id)),
    );
    const media = new ResponseMedia();
    media.cbor = options.cborServingAndStorage ?? false;
    const writes = controllerWrites(storage);
    const crds = new CrdController(store, registry, (typeId) => hub.closeType(typeId), writes);
    const services = new ServiceAllocation(store, SERVICE_CLUSTER_IP_RANGE);
    storage.hooks = {
      beforeWrite: (t, draft, old) => {
        services.beforeWrite(t, draft, old);
        crds.beforeWrite(t, draft, old);
      },
      markForDeletion: (t, obj) => crds.markForDeletion(t, obj),
      afterWrite: (t, stored, removed) => crds.afterWrite(t, stored, removed),
    };
    this.gc = new GarbageCollector(store, registry, writes, options.gcDelayMs === undefined ? {} : { gcDelayMs: options.gcDelayMs });
    const requestFaults = new RequestFaults();
    this.chain = new HandlerChain({
      endpoints: { storage, admission, access: this.access, conversion, scale: new ScaleSubresource(storage), hub, media },
      authenticator: this.authenticator,
      faults: requestFaults,
      openApi: new OpenApiDocuments(registry),
      maxBodyBytes: options.maxBodyBytes ?? 3 * 1024 * 1024,
      address: `${host}:${port}`,
    });
    const kubeconfig = embeddedKubeConfig(this.url, token);
    this.kubeConfig = kubeconfig.kubeConfig;
    this.kubeconfigYaml = kubeconfig.yaml;
    this.faults = {
      closeWatches: async () => this.hub.closeAll(),
      expireHistory: async () => this.store.expireHistory(),
      failNextRequests: (count, failure) => requestFaults.failNext(count, failure),
      setLatency: (ms) => {
        requestFaults.latencyMs = Math.max(0, ms);
      },
      pauseEvents: () => this.hub.pause(),
      resumeEvents: () => this.hub.resume(),
      restart: () => this.restart(),
      forbid: (rule) => requestFaults.forbid(rule),
    };
    server.on('request', (req, res) => void this.chain.serve(req, res));
    createBootstrapObjects(storage, this.access.bootstrapPolicy);
  }

  /** The bearer token the server accepts now (see {@link EmbeddedApiServer.rotateToken}). */
  get token(): string {
    return this.authenticator.token;
  }

  /**
   * Rotates the accepted bearer token: from now on only `token` authenticates, and requests with
   * the previous one get 401, as after a token rotation on a real cluster. The server's own
   * `kubeConfig` and `kubeconfigYaml` keep the token they were built with; give clients the new one.
   */
  rotateToken(token: string): void {
    this.authenticator.rotateToken(token);
  }

  /**
   * Sets the client certificates (PEM) that authenticate a request on their own, replacing the
   * previous set: the way to test client-certificate rotation (trust the new certificate, drop
   * the old one). Needs a server started with `tls: true`; an empty list turns it off.
   *
   * @example
   * ```ts
   * import { startEmbeddedApiServer } from '@kindex/testing';
   * declare const clientCertificatePem: string; // the operator's client certificate
   * const server = await startEmbeddedApiServer({ tls: true });
   * server.trustClientCertificates([clientCertificatePem]);
   * ```
   */
  trustClientCertificates(certificates: readonly string[]): void {
    this.authenticator.trustClientCertificates(certificates);
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
    next.on('request', (req, res) => void this.chain.serve(req, res));
    await listen(next, this.port, this.host);
    this.server = next;
  }
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
  EMBEDDED_API_SERVER_OPTIONS.check(options);
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
