/**
 * The webhook stage: the HTTPS server the API server calls to admit writes (validating and
 * mutating admission webhooks) and to convert custom resources between versions (CRD
 * conversion webhooks), as controller-runtime's `pkg/webhook`.
 *
 * - {@link ValidatingWebhook}: allow or deny a CREATE/UPDATE/DELETE of one kind, with warnings.
 * - {@link MutatingWebhook}: return the object as it should be; the RFC 6902 patch the API
 *   server wants is computed for you (fast-json-patch's `compare`).
 * - {@link ConversionWebhook}: one hub version and, per other version, functions to and from it.
 *
 * Register them on `Operator.webhooks` (the Operator option `webhooks`), or on a
 * {@link WebhookServer} of your own. `Operator.webhookManifest()` derives the
 * Validating/MutatingWebhookConfigurations and the CRDs' `spec.conversion` from what is
 * registered; {@link startLocalWebhooks} installs them against a cluster for a test.
 *
 * The server listens on a port of its own (controller-runtime's 9443), HTTPS only: the API
 * server calls nothing else. Certificates come from a directory (`certDir`, reloaded when
 * cert-manager rotates it), from memory (`certificates`), or are generated self-signed at
 * `listen()` for development. Paths: `/validate/<name>`, `/mutate/<name>`, `/convert`.
 *
 * Errors never crash the server: a malformed review gets 400, a body over `maxRequestBytes`
 * 413, a handler that throws or overruns the call's timeout a denial with code 500 (or 504)
 * naming the webhook, logged with the request uid.
 *
 * @module
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import jsonPatch from 'fast-json-patch';
import type { KubernetesObject, Logger } from '@kindex/core';
import type { Registry } from 'prom-client';
import type { AdmissionRequest, AdmissionResponseWire, ValidationVerdict } from './admission-review.js';
import type { MutatingWebhook, ValidatingWebhook, AdmissionWebhookOptions } from './admission-webhook.js';
import { convertThroughHub, validateConversionWebhook, type ConversionWebhook } from './conversion-webhook.js';
import { generateWebhookCertificates, type WebhookCertificates } from './webhook-certificates.js';
import { WebhookConfigError } from './webhook-errors.js';
import {
  CONVERSION_WEBHOOK_OPTIONS,
  MUTATING_WEBHOOK_OPTIONS,
  VALIDATING_WEBHOOK_OPTIONS,
  WEBHOOK_SERVER_OPTIONS,
} from './webhook-options.js';
import type { WebhookServerOptions } from './webhook-options.js';
import { CertificateDirectory } from './internal/certificate-directory.js';
import { WebhookMetrics } from './internal/webhook-metrics.js';
import { MalformedReviewError, parseAdmissionReview, parseConversionReview } from './internal/review-parsing.js';
import { closeServer } from '../internal/close-server.js';

// Its options objects are declared in webhook-options.ts; Operator options list the server's keys.
export type { WebhookServerOptions } from './webhook-options.js';

/**
 * What the server reports to: the operator's metrics registry and logger.
 *
 * @example
 * ```ts
 * import { WebhookServer, type WebhookServerSources } from '@kindex/informer';
 * import type { Logger } from '@kindex/core';
 * import { Registry } from 'prom-client';
 * declare const logger: Logger;
 *
 * const sources: WebhookServerSources = { registry: new Registry(), logger };
 * const server = new WebhookServer({ port: 9443 }, sources);
 * ```
 */
export interface WebhookServerSources {
  readonly registry: Registry;
  readonly logger: Logger;
}

/**
 * One registered admission webhook, with the name and path it is served under: what
 * {@link webhookManifest} reads.
 *
 * @example
 * ```ts
 * import type { Operator, RegisteredAdmissionWebhook } from '@kindex/informer';
 * declare const operator: Operator;
 *
 * const served: readonly RegisteredAdmissionWebhook[] = operator.webhooks?.admissionWebhooks ?? [];
 * for (const w of served) console.log(`${w.type} ${w.name} at ${w.path}`);
 * ```
 */
export type RegisteredAdmissionWebhook =
  | { readonly type: 'validating'; readonly name: string; readonly path: string; readonly webhook: ValidatingWebhook }
  | { readonly type: 'mutating'; readonly name: string; readonly path: string; readonly webhook: MutatingWebhook };

const DEFAULT_MAX_REQUEST_BYTES = 7 * 1024 * 1024;
const DEFAULT_TIMEOUT_SECONDS = 10;
const DNS_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?){2,}$/;

/**
 * The HTTPS server of admission and conversion webhooks.
 *
 * @example
 * ```ts
 * import { generateWebhookCertificates, WebhookServer, type ResourceKind } from '@kindex/informer';
 * import type { Logger } from '@kindex/core';
 * import { Registry } from 'prom-client';
 * declare const logger: Logger;
 * declare const WebPages: ResourceKind;
 *
 * const server = new WebhookServer({ port: 0, host: '127.0.0.1', certificates: await generateWebhookCertificates() }, { registry: new Registry(), logger });
 * server.validating({ kind: WebPages, validate: ({ object }) => (object?.metadata?.name?.startsWith('x-') ? { allowed: false, message: 'names must not start with x-' } : { allowed: true }) });
 * await server.listen();
 * console.log(server.url); // https://127.0.0.1:<port>
 * ```
 */
export class WebhookServer {
  readonly #options: WebhookServerOptions;
  readonly #logger: Logger;
  readonly #metrics: WebhookMetrics;
  readonly #admission = new Map<string, RegisteredAdmissionWebhook>();
  readonly #conversions = new Map<string, ConversionWebhook>();
  #server: Server | undefined;
  #certificates: WebhookCertificates | undefined;
  #directory: CertificateDirectory | undefined;

  constructor(options: WebhookServerOptions, sources: WebhookServerSources) {
    const where = 'webhook server';
    WEBHOOK_SERVER_OPTIONS.check(options);
    if (!Number.isInteger(options?.port) || options.port < 0 || options.port > 65535) {
      throw new WebhookConfigError(where, 'port', `give a TCP port 0-65535 (0 picks a free one), not ${JSON.stringify(options?.port)}`);
    }
    if (options.certDir !== undefined && options.certificates !== undefined) {
      throw new WebhookConfigError(where, 'certDir', 'give certDir or certificates, not both');
    }
    const max = options.maxRequestBytes;
    if (max !== undefined && (!Number.isInteger(max) || max <= 0))
      throw new WebhookConfigError(where, 'maxRequestBytes', 'give a positive integer');
    this.#options = options;
    this.#certificates = options.certificates;
    this.#logger = sources.logger.child({ component: 'webhook-server' });
    this.#metrics = new WebhookMetrics(sources.registry);
  }

  /** Registers a validating webhook; served at `/validate/<name>`. */
  validating<T extends KubernetesObject>(webhook: ValidatingWebhook<T>): this {
    return this.#register('validating', webhook, 'validate');
  }

  /** Registers a mutating webhook; served at `/mutate/<name>`. */
  mutating<T extends KubernetesObject>(webhook: MutatingWebhook<T>): this {
    return this.#register('mutating', webhook, 'mutate');
  }

  /** Registers a CRD's conversion webhook; served at `/convert`. */
  conversion(webhook: ConversionWebhook): this {
    CONVERSION_WEBHOOK_OPTIONS.check(webhook, `conversion webhook ${webhook?.plural}.${webhook?.group}`);
    validateConversionWebhook(webhook);
    const key = `${webhook.kind}.${webhook.group}`;
    if (this.#conversions.has(key))
      throw new WebhookConfigError(
        `conversion webhook ${webhook.plural}.${webhook.group}`,
        'kind',
        'a conversion for this kind is registered already',
      );
    this.#conversions.set(key, webhook);
    return this;
  }

  /** The registered admission webhooks, in registration order. */
  get admissionWebhooks(): readonly RegisteredAdmissionWebhook[] {
    return [...this.#admission.values()];
  }

  /** The registered conversion webhooks. */
  get conversionWebhooks(): readonly ConversionWebhook[] {
    return [...this.#conversions.values()];
  }

  /** `https://host:port` once listening (a wildcard host reads as 127.0.0.1). */
  get url(): string | undefined {
    const address = this.#server?.address() as AddressInfo | null | undefined;
    if (!address) return undefined;
    const host = address.address === '0.0.0.0' || address.address === '::' ? '127.0.0.1' : address.address;
    return `https://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  }

  /** The CA certificate (PEM) the API server must trust, once known: `ca.crt` of `certDir`, or the generated CA. */
  get caCert(): string | undefined {
    return this.#certificates?.caCert || undefined;
  }

  /** Starts serving HTTPS. With neither `certDir` nor `certificates`, generates a self-signed CA and certificate first. */
  async listen(): Promise<void> {
    if (this.#server !== undefined) return;
    const { certDir } = this.#options;
    if (certDir !== undefined) {
      const directory = new CertificateDirectory(certDir);
      this.#certificates = await directory.load();
      this.#directory = directory;
    } else if (this.#certificates === undefined) {
      const host = this.#options.host;
      this.#certificates = await generateWebhookCertificates(
        host && host !== '0.0.0.0' && host !== '::' ? { hosts: [host, 'localhost'] } : {},
      );
      this.#logger.warn('serving webhooks with a generated self-signed certificate: for development only; set certDir in production');
    }
    const { cert, key } = this.#certificates;
    const server = createServer({ cert, key, requestTimeout: 60_000 }, (req, res) => void this.#handle(req, res));
    this.#directory?.watch(
      (now) => {
        server.setSecureContext({ cert: now.cert, key: now.key });
        this.#certificates = now;
        this.#logger.info({ certDir }, 'webhook certificates reloaded');
      },
      (error) => this.#logger.error({ err: error, certDir }, 'webhook certificates not reloaded; serving the previous ones'),
    );
    const host = this.#options.host ?? '0.0.0.0';
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error) =>
        reject(
          new Error(`webhook server: cannot listen on ${host}:${this.#options.port} (${error.message}); choose another webhooks.port`, {
            cause: error,
          }),
        ),
      );
      server.listen(this.#options.port, host, () => resolve());
    });
    this.#server = server;
  }

  /** Stops listening, closes connections and stops watching the certificate directory. Idempotent. */
  async close(): Promise<void> {
    this.#directory?.close();
    const server = this.#server;
    if (server === undefined) return;
    this.#server = undefined;
    await closeServer(server);
  }

  #register(type: 'validating' | 'mutating', webhook: ValidatingWebhook | MutatingWebhook, verb: string): this {
    const kind = webhook?.kind;
    const label = `${type} webhook ${webhook?.name ?? `for ${kind?.kind ?? '?'}`}`;
    (type === 'validating' ? VALIDATING_WEBHOOK_OPTIONS : MUTATING_WEBHOOK_OPTIONS).check(webhook, label);
    if (typeof kind?.plural !== 'string' || typeof kind.version !== 'string')
      throw new WebhookConfigError(label, 'kind', 'give a ResourceKind (resourceKind({ group, version, kind, plural, namespaced }))');
    const fn = type === 'validating' ? 'validate' : 'mutate';
    if (typeof (webhook as unknown as Record<string, unknown>)[fn] !== 'function')
      throw new WebhookConfigError(label, fn, 'give a function');
    const name = webhook.name ?? `${verb}.${kind.plural}.${kind.group || 'core'}`;
    if (!DNS_NAME.test(name))
      throw new WebhookConfigError(
        label,
        'name',
        `${JSON.stringify(name)} must be a lower-case DNS name of at least three labels, as validate.webpages.example.com`,
      );
    checkOptions(`${type} webhook ${name}`, webhook);
    if (this.#admission.has(name))
      throw new WebhookConfigError(
        `${type} webhook ${name}`,
        'name',
        'a webhook of this name is registered already: give each a name of its own',
      );
    const path = `/${verb}/${name}`;
    this.#admission.set(
      name,
      type === 'validating'
        ? { type, name, path, webhook: webhook as ValidatingWebhook }
        : { type, name, path, webhook: webhook as MutatingWebhook },
    );
    return this;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'https://webhook').pathname;
    const admission = /^\/(?:validate|mutate)\/([^/]+)$/.exec(path);
    const registered = admission ? this.#admission.get(admission[1]!) : undefined;
    if (path !== '/convert' && (registered === undefined || registered.path !== path)) {
      send(res, 404, {
        error: `no webhook at ${path}; serving ${[...this.#admission.values()].map((w) => w.path).join(', ') || 'no admission webhook'}${this.#conversions.size ? ', /convert' : ''}`,
      });
      return;
    }
    const done = this.#metrics.start(path);
    let code = 500;
    try {
      code = await this.#serve(req, res, registered);
    } catch (error) {
      this.#logger.error({ err: error, path }, 'webhook request failed');
      if (!res.headersSent) send(res, 500, { error: `webhook ${path}: ${(error as Error).message}` });
    } finally {
      done(code);
    }
  }

  /** Answers one call; returns the HTTP status sent. */
  async #serve(req: IncomingMessage, res: ServerResponse, registered: RegisteredAdmissionWebhook | undefined): Promise<number> {
    if (req.method !== 'POST') return send(res, 405, { error: `method ${req.method} not allowed; the API server POSTs reviews` });
    if (!/^application\/json\b/.test(req.headers['content-type'] ?? '')) {
      return send(res, 400, { error: `content-type must be application/json, got ${req.headers['content-type'] ?? 'none'}` });
    }
    const max = this.#options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES;
    const body = await readBody(req, max);
    if (body === 'too-large') return send(res, 413, { error: `request body over ${max} bytes (maxRequestBytes)` });
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch (error) {
      return send(res, 400, { error: `the body is not JSON: ${(error as Error).message}` });
    }
    const timeoutMs = parseTimeout(new URL(req.url ?? '/', 'https://webhook').searchParams.get('timeout'));
    try {
      if (registered === undefined) return send(res, 200, await this.#convert(parsed));
      const request = parseAdmissionReview(parsed);
      const response = await this.#admit(registered, request, timeoutMs);
      return send(res, 200, { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response });
    } catch (error) {
      if (error instanceof MalformedReviewError) return send(res, 400, { error: `malformed review: ${error.message}` });
      throw error;
    }
  }

  async #admit(
    registered: RegisteredAdmissionWebhook,
    request: AdmissionRequest,
    timeoutMs: number | undefined,
  ): Promise<AdmissionResponseWire> {
    const { uid } = request;
    const seconds = timeoutMs ?? (registered.webhook.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000;
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timed-out'>((resolve) => (timer = setTimeout(() => resolve('timed-out'), seconds)));
    try {
      // A mutating handler may change the object it is given: it gets a copy, so that the patch
      // is computed against the object the API server sent.
      const call = Promise.resolve().then(() =>
        registered.type === 'validating'
          ? registered.webhook.validate(request, abort.signal)
          : registered.webhook.mutate({ ...request, object: structuredClone(request.object) }, abort.signal),
      );
      const verdict = await Promise.race([call, timedOut]);
      if (verdict === 'timed-out') {
        abort.abort(new Error(`webhook ${registered.name} timed out`));
        call.catch(() => {}); // its late failure is no one's concern now
        this.#logger.error({ uid, webhook: registered.name, timeoutMs: seconds }, 'admission webhook timed out');
        return { uid, allowed: false, status: { code: 504, message: `webhook ${registered.name} did not answer within ${seconds} ms` } };
      }
      if (verdict === null || typeof verdict !== 'object' || typeof verdict.allowed !== 'boolean') {
        throw new Error(`returned ${JSON.stringify(verdict)}, not { allowed: boolean, ... }`);
      }
      const warnings = verdict.warnings && verdict.warnings.length > 0 ? { warnings: [...verdict.warnings] } : {};
      if (!verdict.allowed) {
        return { uid, allowed: false, status: { code: verdict.code ?? 403, message: verdict.message, reason: 'Forbidden' }, ...warnings };
      }
      if (registered.type === 'validating' || request.object === undefined) return { uid, allowed: true, ...warnings };
      const desired = (verdict as ValidationVerdict & { object?: KubernetesObject }).object;
      if (desired === null || typeof desired !== 'object') throw new Error('mutate returned allowed without the desired object');
      const patch = jsonPatch.compare(request.object, desired);
      if (patch.length === 0) return { uid, allowed: true, ...warnings };
      return { uid, allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64'), ...warnings };
    } catch (error) {
      const message = `webhook ${registered.name} failed: ${error instanceof Error ? error.message : String(error)}`;
      this.#logger.error(
        { err: error, uid, webhook: registered.name, operation: request.operation, name: request.name, namespace: request.namespace },
        'admission webhook threw; denying',
      );
      return { uid, allowed: false, status: { code: 500, message } };
    } finally {
      clearTimeout(timer);
    }
  }

  async #convert(body: unknown): Promise<unknown> {
    const request = parseConversionReview(body);
    const group = request.desiredAPIVersion.slice(0, request.desiredAPIVersion.indexOf('/'));
    const reply = (result: Record<string, unknown>, convertedObjects: KubernetesObject[] = []): unknown => ({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      response: { uid: request.uid, convertedObjects, result },
    });
    try {
      const converted = request.objects.map((object) => {
        const webhook = this.#conversions.get(`${object.kind}.${group}`);
        if (webhook === undefined)
          throw new Error(
            `no conversion webhook for ${object.kind}.${group} (registered: ${[...this.#conversions.keys()].join(', ') || 'none'})`,
          );
        return convertThroughHub(webhook, object, request.desiredAPIVersion);
      });
      return reply({ status: 'Success' }, converted);
    } catch (error) {
      const message = `conversion to ${request.desiredAPIVersion} failed: ${error instanceof Error ? error.message : String(error)}`;
      this.#logger.error({ err: error, uid: request.uid }, 'conversion webhook failed');
      return reply({ status: 'Failure', message });
    }
  }
}

function checkOptions(label: string, options: AdmissionWebhookOptions): void {
  const { failurePolicy, timeoutSeconds, operations } = options;
  if (failurePolicy !== undefined && failurePolicy !== 'Fail' && failurePolicy !== 'Ignore')
    throw new WebhookConfigError(label, 'failurePolicy', `give 'Fail' or 'Ignore', not ${JSON.stringify(failurePolicy)}`);
  if (timeoutSeconds !== undefined && (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1 || timeoutSeconds > 30)) {
    throw new WebhookConfigError(
      label,
      'timeoutSeconds',
      `give an integer from 1 to 30 (the API server's limit), not ${JSON.stringify(timeoutSeconds)}`,
    );
  }
  if (
    operations !== undefined &&
    (!Array.isArray(operations) ||
      operations.length === 0 ||
      (operations as readonly unknown[]).some((o) => !['CREATE', 'UPDATE', 'DELETE', 'CONNECT'].includes(o as string)))
  ) {
    throw new WebhookConfigError(
      label,
      'operations',
      `give a non-empty list of CREATE, UPDATE, DELETE, CONNECT, not ${JSON.stringify(operations)}`,
    );
  }
}

/** The API server's `?timeout=10s` on each call (Go duration); undefined when absent or unreadable. */
function parseTimeout(value: string | null): number | undefined {
  const m = value === null ? null : /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(value);
  if (!m) return undefined;
  return Number(m[1]) * (m[2] === 'ms' ? 1 : m[2] === 's' ? 1000 : 60_000);
}

/** Reads the body, or stops at `max` bytes (the rest is not read: the connection is closed after the 413). */
async function readBody(req: IncomingMessage, max: number): Promise<Buffer | 'too-large'> {
  if (Number(req.headers['content-length'] ?? 0) > max) return 'too-large';
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) return 'too-large';
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function send(res: ServerResponse, status: number, body: unknown): number {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...(status === 413 ? { connection: 'close' } : {}),
  });
  res.end(text);
  return status;
}
