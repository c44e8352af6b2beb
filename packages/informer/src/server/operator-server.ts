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
 *   sources. `/debug/controllers/<name>` for one; `/debug/controllers/<name>/primaries/<ns>/<name>`
 *   (or `/primaries/<name>` for cluster-scoped kinds) shows why a primary was last reconciled
 *   and what is waiting for its next reconcile. Only when `debug` is enabled: it names objects.
 *
 * Use it through `new Operator({ kubeConfig, server: { port: 8080 } })`; the Operator listens
 * when it starts (before the caches sync, so probes answer "not ready" meanwhile) and closes it
 * when it stops.
 *
 * @module
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type KubernetesObject, type OptionKeysOf, rejectUnknownOptions } from '@kindex/core';
import type { Controller } from '../controller/controller.js';
import type { OperatorMetrics } from '../metrics/operator-metrics.js';
import { controllerDebugView } from './debug-controllers.js';
import type { HealthCheckKind, HealthChecks } from './health-checks.js';
import { closeServer } from '../internal/close-server.js';

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
 * ```
 */
export interface OperatorServerOptions {
  /** TCP port; 0 picks a free one (read it from `Operator.server.address`). */
  readonly port: number;
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

/** The keys of {@link OperatorServerOptions}: unknown ones are rejected, not ignored. */
export const OPERATOR_SERVER_OPTION_KEYS = {
  port: true,
  host: true,
  debug: true,
  unhealthyAfterMs: true,
} as const satisfies OptionKeysOf<OperatorServerOptions>;

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
  readonly controllers: () => readonly Controller<KubernetesObject>[];
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
  constructor(
    readonly host: string,
    readonly port: number,
    options: { cause: unknown },
  ) {
    const reason = options.cause instanceof Error ? options.cause.message : String(options.cause);
    super(`operator server: cannot listen on ${host}:${port} (${reason}); choose another server.port or server.host`, options);
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
  #server: Server | undefined;

  constructor(options: OperatorServerOptions, sources: OperatorServerSources) {
    rejectUnknownOptions('OperatorServer options', options, OPERATOR_SERVER_OPTION_KEYS);
    if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) {
      throw new TypeError(`Operator option server.port must be an integer from 0 to 65535, got ${JSON.stringify(options.port)}`);
    }
    const after = options.unhealthyAfterMs;
    if (after !== undefined && !(Number.isFinite(after) && after >= 0)) {
      throw new TypeError(`Operator option server.unhealthyAfterMs must be a number of milliseconds >= 0, got ${JSON.stringify(after)}`);
    }
    this.#options = options;
    this.#sources = sources;
  }

  /** The bound address once listening (the actual port when `port` was 0). */
  get address(): { readonly host: string; readonly port: number } | undefined {
    const address = this.#server?.address() as AddressInfo | null | undefined;
    return address ? { host: address.address, port: address.port } : undefined;
  }

  /** Starts listening. Idempotent. @throws {OperatorServerError} when it cannot bind. */
  async listen(): Promise<void> {
    if (this.#server !== undefined) return;
    const host = this.#options.host ?? '0.0.0.0';
    const server = createServer((req, res) => {
      this.#handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(`internal error: ${error instanceof Error ? error.message : String(error)}\n`);
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error) => reject(new OperatorServerError(host, this.#options.port, { cause: error })));
      server.listen(this.#options.port, host, () => resolve());
    });
    this.#server = server;
  }

  /** Stops listening and closes open connections. Idempotent. */
  async close(): Promise<void> {
    const server = this.#server;
    if (server === undefined) return;
    this.#server = undefined;
    await closeServer(server);
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://operator');
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain', `method ${req.method} not allowed; use GET\n`);
    const path = url.pathname.replace(/\/+$/, '') || '/';
    if (path === '/metrics') {
      const { metrics } = this.#sources;
      return send(res, 200, metrics.contentType, await metrics.scrape());
    }
    const health = /^\/(healthz|readyz)(?:\/([^/]+))?$/.exec(path);
    if (health) return this.#health(res, health[1] as HealthCheckKind, health[2], url.searchParams);
    if (path === '/debug/controllers' || path.startsWith('/debug/controllers/')) {
      if (!this.#options.debug)
        return send(res, 404, 'text/plain', 'the debug endpoint is off; enable it with the Operator option server.debug\n');
      return this.#debug(res, path.slice('/debug/controllers'.length).split('/').filter(Boolean).map(decodeURIComponent));
    }
    return send(
      res,
      404,
      'text/plain',
      `not found: ${path} (serving /metrics, /healthz, /readyz${this.#options.debug ? ', /debug/controllers' : ''})\n`,
    );
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

  #debug(res: ServerResponse, segments: string[]): void {
    const controllers = this.#sources.controllers();
    if (segments.length === 0) return sendJson(res, 200, { controllers: controllers.map(controllerDebugView) });
    const controller = controllers.find((c) => c.name === segments[0]);
    if (controller === undefined) {
      return sendJson(res, 404, {
        error: `no controller named ${JSON.stringify(segments[0])}`,
        controllers: controllers.map((c) => c.name),
      });
    }
    if (segments.length === 1) return sendJson(res, 200, controllerDebugView(controller));
    if (segments[1] === 'primaries' && (segments.length === 3 || segments.length === 4)) {
      const key = segments.slice(2).join('/');
      return sendJson(res, 200, controller.describePrimary(key));
    }
    return sendJson(res, 404, {
      error: 'use /debug/controllers/<controller>/primaries/<namespace>/<name> (or /primaries/<name> for cluster-scoped kinds)',
    });
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
