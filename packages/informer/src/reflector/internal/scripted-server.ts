import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { Reflector } from '../reflector.js';
import type { ReflectorOptions } from '../reflector-options.js';

/** One request a {@link ScriptedServer} received. */
export interface ScriptedRequest {
  readonly url: URL;
  readonly at: number;
}

/** How a {@link ScriptedServer} answers: called for each request, with its 0-based index. */
export type Script = (req: ScriptedRequest, res: http.ServerResponse, index: number) => void;

/**
 * A bare HTTP server whose answers a test scripts request by request, for wire input no real
 * API server sends (lines that are not JSON, objects without metadata, expired continue tokens).
 * Test-only; behaviour tests against a real-wire server use `@kindex/testing`.
 */
export class ScriptedServer {
  readonly requests: ScriptedRequest[] = [];
  private readonly open = new Set<http.ServerResponse>();

  private constructor(
    private readonly server: http.Server,
    readonly kubeConfig: KubeConfig,
  ) {}

  static async start(handler: Script): Promise<ScriptedServer> {
    let self: ScriptedServer | undefined;
    const server = http.createServer((req, res) => {
      const request = { url: new URL(req.url ?? '/', 'http://127.0.0.1'), at: Date.now() };
      const s = self as ScriptedServer;
      s.requests.push(request);
      s.open.add(res);
      res.on('close', () => s.open.delete(res));
      handler(request, res, s.requests.length - 1);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [{ name: 'scripted', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'c', cluster: 'scripted', user: 'u' }],
      currentContext: 'c',
    });
    self = new ScriptedServer(server, kubeConfig);
    return self;
  }

  /** Requests that were watches. */
  watches(): ScriptedRequest[] {
    return this.requests.filter((r) => r.url.searchParams.get('watch') === 'true');
  }

  async stop(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * One test's {@link ScriptedServer} and the Reflector reading it. `open` makes the reflector
 * without starting it, so the test subscribes first; `close`, for afterEach, stops the last
 * pair opened, whatever the test left running.
 */
export class ScriptedReflector {
  #server: ScriptedServer | undefined;
  #reflector: Reflector | undefined;

  async open(script: Script, options: Omit<ReflectorOptions, 'kubeConfig'>): Promise<{ server: ScriptedServer; reflector: Reflector }> {
    const server = await ScriptedServer.start(script);
    this.#server = server;
    const reflector = new Reflector({ kubeConfig: server.kubeConfig, ...options });
    this.#reflector = reflector;
    return { server, reflector };
  }

  async close(): Promise<void> {
    await this.#reflector?.stop();
    await this.#server?.stop();
    this.#reflector = undefined;
    this.#server = undefined;
  }
}

/** Writes a JSON answer. */
export function sendJson(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Opens a watch answer and writes the given lines (strings are sent verbatim, objects as JSON lines). */
export function startWatch(res: http.ServerResponse, lines: ReadonlyArray<string | object> = []): void {
  res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
  res.flushHeaders();
  for (const l of lines) res.write(typeof l === 'string' ? l : `${JSON.stringify(l)}\n`);
}

/** A ConfigMap as the API server would send it in a watch event. */
export function configMap(name: string, rv: string, data: Record<string, string> = {}): object {
  return { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name, namespace: 'ns', resourceVersion: rv, uid: `uid-${name}` }, data };
}

/** A list body with items lacking kind/apiVersion, as lists of built-ins are. */
export function configMapList(rv: string, items: object[], continueToken?: string): object {
  return {
    kind: 'ConfigMapList',
    apiVersion: 'v1',
    metadata: { resourceVersion: rv, ...(continueToken === undefined ? {} : { continue: continueToken }) },
    items: items.map((i) => {
      const { apiVersion: _a, kind: _k, ...rest } = i as Record<string, unknown>;
      return rest;
    }),
  };
}

/** A Kubernetes Status body. */
export function status(code: number, reason: string, message = reason): object {
  return { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message };
}
