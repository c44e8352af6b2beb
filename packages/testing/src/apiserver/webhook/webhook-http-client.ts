// The embedded server's calls to webhooks (admission and conversion): an HTTPS POST of JSON to a
// `clientConfig.url`, or to a `clientConfig.service` where its resolver says (with the TLS name
// `<name>.<namespace>.svc`, as kube-apiserver checks it), verified against `caBundle`, cut off
// after `timeoutSeconds`. Failures are
// worded as Go's net/http reports them, because kube-apiserver's messages embed that text and
// users match it (`failed to call webhook: Post "https://...": dial tcp ...: connect: connection refused`).

import { Agent, request } from 'node:https';
import { isIP } from 'node:net';
import type { Json } from '../storage/object-store.js';
import { ServiceResolutionError, type WebhookServiceReference } from './webhook-service-resolver.js';

/** A webhook could not be called or answered with something that is not a review. */
export class WebhookCallError extends Error {
  override readonly name = 'WebhookCallError';
}

/** Where and how to reach one webhook. */
export interface WebhookTarget {
  readonly clientConfig: { readonly url?: string; readonly service?: Json; readonly caBundle?: string };
  readonly timeoutSeconds: number;
}

// Node's TLS and socket error codes, in the words of Go's crypto/x509 and net packages.
function goErrorText(error: NodeJS.ErrnoException, host: string): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return `dial tcp ${host}: connect: connection refused`;
    case 'ECONNRESET':
      return 'read: connection reset by peer';
    case 'ENOTFOUND':
      return `dial tcp: lookup ${host.replace(/:\d+$/, '')}: no such host`;
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'ERR_TLS_CERT_ALTNAME_INVALID': {
      // Go's x509.HostnameError: the certificate's DNS names (its IPs for an IP), then the name wanted.
      const { host: wanted = host.replace(/:\d+$/, ''), cert } = error as { host?: string; cert?: { subjectaltname?: string } };
      const kind = isIP(wanted) === 0 ? 'DNS:' : 'IP Address:';
      const names = (cert?.subjectaltname ?? '').split(', ').filter((n) => n.startsWith(kind));
      return `tls: failed to verify certificate: x509: certificate is valid for ${names.map((n) => n.slice(kind.length)).join(', ')}, not ${wanted}`;
    }
    default:
      return error.message;
  }
}

/**
 * The server's HTTPS client for webhooks: one keep-alive connection pool per CA bundle, as
 * kube-apiserver caches a REST client per webhook (a TLS handshake per call would cost more than
 * the call).
 */
export class WebhookHttpClient {
  readonly #agents = new Map<string, Agent>();

  /** `resolveService` gives the `host:port` of a webhook's Service, or throws ServiceResolutionError. */
  constructor(private readonly resolveService: (service: WebhookServiceReference) => string) {}

  /**
   * POSTs `body` to the webhook and returns the parsed JSON answer. Throws WebhookCallError with
   * kube-apiserver's wording (without its `failed calling webhook "name": ` prefix, which the
   * caller adds) when the call fails.
   */
  call(target: WebhookTarget, body: Readonly<Json>): Promise<Json> {
    const caBundle = target.clientConfig.caBundle ?? '';
    let agent = this.#agents.get(caBundle);
    if (agent === undefined) {
      // No caBundle: the system roots, as Go's TLS config with a nil RootCAs.
      agent = new Agent({ keepAlive: true, ...(caBundle === '' ? {} : { ca: Buffer.from(caBundle, 'base64') }) });
      this.#agents.set(caBundle, agent);
    }
    return callWebhook(target, body, agent, this.resolveService);
  }

  /** Closes the pooled connections (when the server stops). */
  close(): void {
    for (const agent of this.#agents.values()) agent.destroy();
    this.#agents.clear();
  }
}

// The URL a webhook is called at as kube-apiserver names it (a Service by its DNS name), and the
// `host:port` actually dialled.
function endpointOf(
  target: WebhookTarget,
  resolveService: (service: WebhookServiceReference) => string,
): { url: URL; dial: string | undefined; serverName: string | undefined; shown: (url: URL) => string } {
  const { url, service } = target.clientConfig;
  if (url !== undefined || service === undefined) {
    return { url: new URL(url ?? ''), dial: undefined, serverName: undefined, shown: (u) => u.toString() };
  }
  const reference = { namespace: String(service['namespace']), name: String(service['name']), port: Number(service['port'] ?? 443) };
  const serverName = `${reference.name}.${reference.namespace}.svc`;
  const path = typeof service['path'] === 'string' ? service['path'] : '';
  const service_ = new URL(`https://${serverName}:${reference.port}${path}`);
  // Go keeps the port in the URL it reports even when it is 443.
  const shown = (u: URL): string => `https://${serverName}:${reference.port}${u.pathname}${u.search}`;
  try {
    return { url: service_, dial: resolveService(reference), serverName, shown };
  } catch (e) {
    if (!(e instanceof ServiceResolutionError)) throw e;
    service_.searchParams.set('timeout', `${target.timeoutSeconds}s`);
    const how = `the embedded API server calls a Service of type ExternalName at <externalName>:<port> (externalName: localhost reaches 127.0.0.1), finds other Services' endpoints in their EndpointSlices (labelled kubernetes.io/service-name, with a non-loopback address), or takes them from the webhookServices option, for example { '${reference.namespace}/${reference.name}:${reference.port}': 'https://127.0.0.1:9443' }`;
    throw new WebhookCallError(`failed to call webhook: Post "${shown(service_)}": ${e.message} (${how})`);
  }
}

function callWebhook(
  target: WebhookTarget,
  body: Readonly<Json>,
  agent: Agent,
  resolveService: (service: WebhookServiceReference) => string,
): Promise<Json> {
  let endpoint: ReturnType<typeof endpointOf>;
  try {
    endpoint = endpointOf(target, resolveService);
  } catch (e) {
    return Promise.reject(e instanceof Error ? e : new Error(String(e)));
  }
  // Go's REST client tells the webhook its deadline in the query, as kube-apiserver does.
  const target_ = endpoint.url;
  target_.searchParams.set('timeout', `${target.timeoutSeconds}s`);
  const shown = endpoint.shown(target_);
  const payload = JSON.stringify(body);
  const dialled = endpoint.dial === undefined ? target_ : new URL(`${target_.pathname}${target_.search}`, `https://${endpoint.dial}`);
  return new Promise((resolve, reject) => {
    const fail = (why: string): void => reject(new WebhookCallError(`failed to call webhook: Post "${shown}": ${why}`));
    const req = request(
      dialled,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'content-length': Buffer.byteLength(payload),
          ...(endpoint.serverName === undefined ? {} : { host: target_.host }),
        },
        agent,
        ...(endpoint.serverName === undefined ? {} : { servername: endpoint.serverName }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', (e: NodeJS.ErrnoException) => fail(goErrorText(e, endpoint.dial ?? target_.host)));
        res.on('end', () => {
          clearTimeout(timer);
          const text = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode === undefined || res.statusCode < 200 || res.statusCode > 299) {
            // Go's REST client turns a non-2xx answer into an error carrying the body.
            reject(
              new WebhookCallError(
                `failed to call webhook: an error on the server ("${text.slice(0, 200)}") has prevented the request from succeeding`,
              ),
            );
            return;
          }
          try {
            const parsed = JSON.parse(text) as unknown;
            if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
            resolve(parsed as Json);
          } catch (e) {
            reject(new WebhookCallError(`failed to call webhook: the answer is not a JSON object: ${(e as Error).message}`));
          }
        });
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      fail('context deadline exceeded');
    }, target.timeoutSeconds * 1000);
    req.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      fail(goErrorText(e, endpoint.dial ?? target_.host));
    });
    req.end(payload);
  });
}
