/**
 * The operator's HTTP server: what Prometheus scrapes and the kubelet probes, plus a debug view.
 *
 * Routes (GET only):
 * - `/metrics`: every series of the operator's registry, Prometheus text format.
 * - `/healthz`, `/readyz`: run the liveness or readiness checks of {@link HealthChecks}; 200 and
 *   `ok` when all pass, 500 with one `[+]name ok` / `[-]name failed: reason` line per check
 *   otherwise (controller-runtime's format; `?verbose` lists them on success too,
 *   `?exclude=name` skips one). `/healthz/<name>` runs one check.
 * - `/debug/controllers`: JSON, per controller: cache and index sizes, queue depth, event
 *   sources; a fleet's controller once per cluster it runs here, with `cluster`. `/debug/controllers/<name>`
 *   for one (`?cluster=<cluster>` for a fleet's); `/debug/controllers/<name>/primaries/<ns>/<name>`
 *   (or `/primaries/<name>` for cluster-scoped kinds) shows why a primary was last reconciled
 *   and what is waiting for its next reconcile. Only when `debug` is enabled: it names objects.
 *
 * Use it through `new Operator({ kubeConfig, server: { port: 8080 } })`; the Operator listens
 * when it starts (before the caches sync, so probes answer "not ready" meanwhile) and closes it
 * when it stops.
 *
 * Plain HTTP to anyone by default. With `secure` (see ./secure/secure-serving.ts) the port serves
 * HTTPS and answers only requests whose bearer token a TokenReview accepts and whose user a
 * SubjectAccessReview lets `get` the path; the probes then move to `healthProbePort`, plain HTTP
 * without a token, for the kubelet. `healthProbePort` alone splits the probes off a plain server.
 *
 * @module
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import type { Server as TlsServer } from 'node:tls';
import { type Logger } from '@kindex/core';
import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';
import type { DebuggableController, DebuggableFleet } from './debuggable-controller.js';
import type { OperatorMetrics } from '../metrics/operator-metrics.js';
import { debugAnswer } from './debug-routes.js';
import type { HealthCheckKind, HealthChecks } from './health-checks.js';
import { closeServer } from '../internal/close-server.js';
import { RequestGuard, type AccessReviewClient } from './secure/request-guard.js';
import { SECURE_SERVING_OPTIONS, type SecureServingOptions } from './secure/secure-serving.js';
import { loadServingPair, selfSignedServingPair, ServingPairWatcher, type ServingPair } from './secure/serving-certificate.js';

/**
 * Where and what the operator's HTTP server serves.
 *
 * @example
 * ```ts
 * import { Operator, type OperatorServerOptions } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * // Probes and metrics on 8081; fail liveness when a watch stays broken for 5 minutes.
 * const server: OperatorServerOptions = { port: 8081, unhealthyAfterMs: 300_000 };
 * const operator = new Operator({ kubeConfig, server });
 *
 * // As kubebuilder v4 serves it: metrics over HTTPS behind TokenReview and SubjectAccessReview,
 * // probes over plain HTTP for the kubelet.
 * const secured = new Operator({ kubeConfig, server: { port: 8443, secure: true, healthProbePort: 8081 } });
 * ```
 */
export interface OperatorServerOptions {
  /** TCP port of `/metrics` (and of the probes without `healthProbePort`); 0 picks a free one (read it from `Operator.server.address`). */
  readonly port: number;
  /**
   * Serve `port` over HTTPS, answering only authenticated and authorized requests (TokenReview,
   * then SubjectAccessReview for `get` on the path): `true` for a generated self-signed
   * certificate, or `{ certFile, keyFile }` for a mounted one. Needs `healthProbePort`, since
   * the kubelet probes without a token. Defaults to false: plain HTTP to anyone.
   */
  readonly secure?: boolean | SecureServingOptions;
  /**
   * Serve `/healthz` and `/readyz` on this port instead, plain HTTP without authentication
   * (controller-runtime's health probe address, `:8081`); 0 picks a free one. Defaults to none:
   * the probes share `port`.
   */
  readonly healthProbePort?: number;
  /** Address to bind. Defaults to `0.0.0.0`: probes and scrapes come from outside the pod. */
  readonly host?: string;
  /** Serve `/debug/controllers`. Defaults to false: it names cached objects. */
  readonly debug?: boolean;
  /**
   * How long an event source or informer may stay broken before `/healthz` fails. Defaults to
   * 60 000 ms: long enough to ride out an API server restart, short enough that a wedged
   * process gets restarted.
   */
  readonly unhealthyAfterMs?: number;
}

/**
 * {@link OperatorServerOptions}' keys and value checks; the ports, `unhealthyAfterMs` and
 * `secure` keep the constructor's checks (`secure` is `true`, `false` or {@link SECURE_SERVING_OPTIONS}).
 */
export const OPERATOR_SERVER_OPTIONS = defineOptions<OperatorServerOptions>('OperatorServer options', {
  port: Type.Unknown(),
  host: Type.Optional(Type.String({ description: 'an address to bind, such as 0.0.0.0' })),
  debug: Type.Optional(Type.Boolean({ description: 'true or false' })),
  unhealthyAfterMs: Type.Optional(Type.Unknown()),
  secure: Type.Optional(Type.Unknown()),
  healthProbePort: Type.Optional(Type.Unknown()),
});

/** {@link OperatorServerOptions}' keys, `secure`'s own included, for the Operator's options that include them. */
export const OPERATOR_SERVER_OPTION_KEYS = { ...OPERATOR_SERVER_OPTIONS.keys, secure: SECURE_SERVING_OPTIONS.keys };

/**
 * What the server reads; the Operator provides it.
 *
 * @example
 * ```ts
 * import { HealthChecks, OperatorMetrics, OperatorServer, type Controller, type OperatorServerSources } from '@kindex/informer';
 * declare const controllers: Controller[];
 *
 * // Serve /metrics and probes for controllers run without an Operator.
 * const sources: OperatorServerSources = { metrics: new OperatorMetrics(), health: new HealthChecks(), controllers: () => controllers };
 * const server = new OperatorServer({ port: 8080, host: '127.0.0.1' }, sources);
 * await server.listen();
 * ```
 */
export interface OperatorServerSources {
  readonly metrics: OperatorMetrics;
  readonly health: HealthChecks;
  /** The controllers to describe on `/debug/controllers`; a function so controllers registered later show up. */
  readonly controllers: () => readonly DebuggableController[];
  /** The fleets whose per-cluster controllers `/debug/controllers` lists too. Defaults to none. */
  readonly fleets?: () => readonly DebuggableFleet[];
  /**
   * Sends the TokenReviews and SubjectAccessReviews of the `secure` option: the operator's
   * KubeClient, without a leader fence (every replica answers scrapes). Required with `secure`.
   */
  readonly client?: AccessReviewClient;
  /** Where certificate reloads and failed reviews are logged. Defaults to none. */
  readonly logger?: Logger;
}

/**
 * The HTTP server failed to listen (port taken, address not available).
 *
 * @example
 * ```ts
 * import { OperatorServerError, type Operator } from '@kindex/informer';
 * declare const operator: Operator;
 *
 * try {
 *   await operator.start();
 * } catch (error) {
 *   // The port is taken (or the host is not local): choose another server.port.
 *   if (error instanceof OperatorServerError) console.error(`cannot listen on ${error.host}:${error.port}`, error.cause);
 * }
 * ```
 */
export class OperatorServerError extends Error {
  override readonly name = 'OperatorServerError';
  readonly code = 'KINDEX_OPERATOR_SERVER';
  /** The option naming the port: `server.port` or `server.healthProbePort`. */
  readonly option: 'server.port' | 'server.healthProbePort';
  constructor(
    readonly host: string,
    readonly port: number,
    options: { cause: unknown; option?: 'server.port' | 'server.healthProbePort' },
  ) {
    const reason = options.cause instanceof Error ? options.cause.message : String(options.cause);
    const option = options.option ?? 'server.port';
    super(`operator server: cannot listen on ${host}:${port} (${reason}); choose another ${option} or server.host`, options);
    this.option = option;
  }
}

/**
 * Serves `/metrics`, `/healthz`, `/readyz` and (optionally) `/debug/controllers`.
 *
 * @example
 * ```ts
 * import type { Operator } from '@kindex/informer';
 * declare const operator: Operator;
 *
 * // Started by the Operator when `server` is set; read the port it bound (port 0 picks a free one).
 * const address = operator.server?.address;
 * console.log(`metrics on http://${address?.host}:${address?.port}/metrics`);
 * ```
 */
export class OperatorServer {
  readonly #options: OperatorServerOptions;
  readonly #sources: OperatorServerSources;
  readonly #secure: SecureServingOptions | undefined;
  readonly #guard: RequestGuard | undefined;
  #server: Server | undefined;
  #probeServer: Server | undefined;
  #certificates: ServingPairWatcher | undefined;

  constructor(options: OperatorServerOptions, sources: OperatorServerSources) {
    OPERATOR_SERVER_OPTIONS.check(options);
    checkPort(options.port, 'port');
    const after = options.unhealthyAfterMs;
    if (after !== undefined && !(Number.isFinite(after) && after >= 0)) {
      throw new TypeError(`Operator option server.unhealthyAfterMs must be a number of milliseconds >= 0, got ${JSON.stringify(after)}`);
    }
    if (options.healthProbePort !== undefined) {
      checkPort(options.healthProbePort, 'healthProbePort');
      if (options.healthProbePort === options.port && options.port !== 0) {
        throw new TypeError(
          `Operator option server.healthProbePort must differ from server.port (both ${options.port}); leave it out to serve the probes on server.port`,
        );
      }
    }
    const secure = options.secure === true ? {} : options.secure === false ? undefined : options.secure;
    if (options.secure !== undefined && typeof options.secure !== 'boolean' && (typeof secure !== 'object' || secure === null)) {
      throw new TypeError(
        `Operator option server.secure must be true, false or { certFile, keyFile }, got ${JSON.stringify(options.secure)}`,
      );
    }
    if (secure !== undefined) {
      SECURE_SERVING_OPTIONS.check(secure, 'OperatorServer options.secure');
      if ((secure.certFile === undefined) !== (secure.keyFile === undefined)) {
        throw new TypeError(
          `Operator option server.secure: give both certFile and keyFile (a mounted tls.crt and tls.key), or neither for a self-signed certificate; got only ${secure.certFile === undefined ? 'keyFile' : 'certFile'}`,
        );
      }
      if (options.healthProbePort === undefined) {
        throw new TypeError(
          'Operator option server.secure needs server.healthProbePort: the kubelet probes without a token, so /healthz and /readyz get a plain port of their own (for example healthProbePort: 8081)',
        );
      }
      if (sources.client === undefined) {
        throw new TypeError('OperatorServer: server.secure needs a client in its sources to send TokenReviews and SubjectAccessReviews');
      }
      this.#guard = new RequestGuard(sources.client, secure.reviewCacheTtl, sources.logger);
    }
    this.#options = options;
    this.#sources = sources;
    this.#secure = secure;
  }

  /** The bound address once listening (the actual port when `port` was 0). */
  get address(): { readonly host: string; readonly port: number } | undefined {
    return addressOf(this.#server);
  }

  /** Whether `/metrics` is served over HTTPS behind TokenReview and SubjectAccessReview (the `secure` option). */
  get secure(): boolean {
    return this.#secure !== undefined;
  }

  /** The port of `/metrics`: the bound one once listening, else the configured `port`. */
  get metricsPort(): number {
    return this.address?.port ?? this.#options.port;
  }

  /**
   * The port of `/healthz` and `/readyz`, always plain HTTP without authentication when it differs
   * from {@link OperatorServer.metricsPort}: `healthProbePort` (bound once listening), or `port`
   * without it.
   */
  get healthProbePort(): number {
    if (this.#options.healthProbePort === undefined) return this.metricsPort;
    return addressOf(this.#probeServer)?.port ?? this.#options.healthProbePort;
  }

  /**
   * Starts listening (and, when `secure`, reads or generates the certificate). Idempotent.
   * @throws {OperatorServerError} when a port cannot be bound; {@link ServingCertificateError} for
   *   an unusable certificate or key file.
   */
  async listen(): Promise<void> {
    if (this.#server !== undefined) return;
    const host = this.#options.host ?? '0.0.0.0';
    const split = this.#options.healthProbePort !== undefined;
    const handler = (probes: boolean, rest: boolean) => (req: IncomingMessage, res: ServerResponse) => {
      this.#handle(req, res, probes, rest).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(`internal error: ${error instanceof Error ? error.message : String(error)}\n`);
      });
    };
    let server: Server;
    let pair: ServingPair | undefined;
    if (this.#secure === undefined) server = createServer(handler(!split, true));
    else {
      pair = await this.#servingPair();
      server = createHttpsServer({ ...pair, minVersion: 'TLSv1.2' }, handler(false, true));
    }
    await bind(server, this.#options.port, host, 'server.port');
    if (split) {
      const probes = createServer(handler(true, false));
      try {
        await bind(probes, this.#options.healthProbePort, host, 'server.healthProbePort');
      } catch (error) {
        await closeServer(server);
        throw error;
      }
      this.#probeServer = probes;
    }
    this.#server = server;
    if (pair !== undefined) this.#watchCertificates(server as unknown as TlsServer, pair);
  }

  /** Stops listening, closes open connections and stops watching the certificate files. Idempotent. */
  async close(): Promise<void> {
    const server = this.#server;
    if (server === undefined) return;
    this.#server = undefined;
    this.#certificates?.close();
    this.#certificates = undefined;
    const probes = this.#probeServer;
    this.#probeServer = undefined;
    await Promise.all([closeServer(server), probes === undefined ? undefined : closeServer(probes)]);
  }

  async #servingPair(): Promise<ServingPair> {
    const { certFile, keyFile } = this.#secure!;
    if (certFile !== undefined && keyFile !== undefined) return loadServingPair(certFile, keyFile);
    this.#sources.logger?.warn(
      { port: this.#options.port },
      'serving metrics over HTTPS with a generated self-signed certificate: scrapers must skip verification; mount one and set server.secure.certFile and keyFile to verify it',
    );
    return selfSignedServingPair(hostname());
  }

  /** Serves a rotated certificate to the next connection; a bad pair is logged and the old one kept. */
  #watchCertificates(server: TlsServer, current: ServingPair): void {
    const { certFile, keyFile } = this.#secure ?? {};
    if (certFile === undefined || keyFile === undefined) return;
    const logger = this.#sources.logger;
    this.#certificates = new ServingPairWatcher(certFile, keyFile, current);
    this.#certificates.start(
      (pair) => {
        server.setSecureContext({ ...pair, minVersion: 'TLSv1.2' });
        logger?.info({ certFile }, 'operator server certificate reloaded');
      },
      (error) => logger?.warn({ err: error, certFile, keyFile }, 'operator server certificate not reloaded; serving the previous one'),
    );
  }

  async #handle(req: IncomingMessage, res: ServerResponse, probes: boolean, rest: boolean): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://operator');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    // On the secure port nothing, not even a 404 or 405, answers before the caller is known and
    // allowed: the path authorized is the path served.
    if (this.#guard !== undefined && rest) {
      const verdict = await this.#guard.check(req.headers.authorization, path);
      if (!verdict.allowed) return send(res, verdict.status, 'text/plain', `${verdict.message}\n`);
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain', `method ${req.method} not allowed; use GET\n`);
    const health = probes ? /^\/(healthz|readyz)(?:\/([^/]+))?$/.exec(path) : null;
    if (health) return this.#health(res, health[1] as HealthCheckKind, health[2], url.searchParams);
    if (rest && path === '/metrics') {
      const { metrics } = this.#sources;
      return send(res, 200, metrics.contentType, await metrics.scrape());
    }
    if (rest && (path === '/debug/controllers' || path.startsWith('/debug/controllers/'))) {
      if (!this.#options.debug)
        return send(res, 404, 'text/plain', 'the debug endpoint is off; enable it with the Operator option server.debug\n');
      const segments = path.slice('/debug/controllers'.length).split('/').filter(Boolean).map(decodeURIComponent);
      const targets = { controllers: this.#sources.controllers(), fleets: this.#sources.fleets?.() ?? [] };
      const answer = debugAnswer(targets, segments, url.searchParams.get('cluster') ?? undefined);
      return sendJson(res, answer.status, answer.body);
    }
    const served = [
      ...(rest ? ['/metrics'] : []),
      ...(probes ? ['/healthz', '/readyz'] : []),
      ...(rest && this.#options.debug ? ['/debug/controllers'] : []),
    ];
    const elsewhere = rest && !probes ? ` (probes on port ${this.healthProbePort})` : !rest ? ` (metrics on port ${this.metricsPort})` : '';
    return send(res, 404, 'text/plain', `not found: ${path} (serving ${served.join(', ')}${elsewhere})\n`);
  }

  async #health(res: ServerResponse, kind: HealthCheckKind, only: string | undefined, query: URLSearchParams): Promise<void> {
    const checks = this.#sources.health;
    if (only !== undefined && !checks.names(kind).includes(only)) return send(res, 404, 'text/plain', `no ${kind} check named ${only}\n`);
    const report = await checks.run(kind, { exclude: query.getAll('exclude'), ...(only !== undefined ? { only } : {}) });
    if (report.ok && !query.has('verbose')) return send(res, 200, 'text/plain', 'ok');
    const lines = report.checks.map((c) => (c.ok ? `[+]${c.name} ok` : `[-]${c.name} failed: ${c.reason}`));
    lines.push(`${kind} check ${report.ok ? 'passed' : 'failed'}`);
    return send(res, report.ok ? 200 : 500, 'text/plain', `${lines.join('\n')}\n`);
  }
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, {
    'content-type': contentType.includes('charset') ? contentType : `${contentType}; charset=utf-8`,
    'cache-control': 'no-store',
  });
  res.end(body);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  send(res, status, 'application/json', `${JSON.stringify(body, null, 2)}\n`);
}

function checkPort(port: unknown, field: 'port' | 'healthProbePort'): void {
  if (!Number.isInteger(port) || (port as number) < 0 || (port as number) > 65535) {
    throw new TypeError(`Operator option server.${field} must be an integer from 0 to 65535, got ${JSON.stringify(port)}`);
  }
}

function addressOf(server: Server | undefined): { readonly host: string; readonly port: number } | undefined {
  const address = server?.address() as AddressInfo | null | undefined;
  return address ? { host: address.address, port: address.port } : undefined;
}

function bind(server: Server, port: number, host: string, option: 'server.port' | 'server.healthProbePort'): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(new OperatorServerError(host, port, { cause: error, option })));
    server.listen(port, host, () => resolve());
  });
}
