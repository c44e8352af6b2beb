import http from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

/**
 * A request {@link rawRequest} sends as is, for what the typed clients cannot express.
 *
 * @example
 * ```ts
 * import { rawRequest, type RawRequest, type TestApiServer } from '@kindex/testing';
 * declare const server: TestApiServer;
 *
 * // A merge patch sent by hand, to test how the server treats a malformed body.
 * const request: RawRequest = {
 *   method: 'PATCH',
 *   path: '/api/v1/namespaces/default/configmaps/hello',
 *   headers: { 'content-type': 'application/merge-patch+json' },
 *   body: '{"data":',
 * };
 * const response = await rawRequest(server.kubeConfig, request);
 * ```
 */
export interface RawRequest {
  /** HTTP method. Defaults to `GET`. */
  readonly method?: string;
  /** Path and query, for example `/api/v1/namespaces/default/configmaps?watch=true`. */
  readonly path: string;
  /** Extra headers; they override the kubeconfig's. Defaults to none. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The body, sent verbatim (bytes for binary media types such as protobuf). Defaults to none. */
  readonly body?: string | Uint8Array;
  /** Sends the kubeconfig's credentials (token, client certificate). Defaults to true. */
  readonly authenticate?: boolean;
  /** Aborts the request after this many milliseconds. Defaults to 30000. */
  readonly timeoutMs?: number;
}

/**
 * What the server answered to a {@link rawRequest}.
 *
 * @example
 * ```ts
 * import { rawRequest, type RawResponse, type TestApiServer } from '@kindex/testing';
 * declare const server: TestApiServer;
 *
 * // Check that anonymous requests are refused (401, or 403 where anonymous auth is on).
 * const response: RawResponse = await rawRequest(server.kubeConfig, { path: '/api/v1/namespaces', authenticate: false });
 * console.log(response.status === 401 || response.status === 403);
 * ```
 */
export interface RawResponse {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  /** The body decoded as UTF-8. */
  readonly text: string;
  /** The body's bytes, for binary answers (protobuf). */
  readonly bytes: Buffer;
}

/**
 * Sends one HTTP request to the cluster of `kubeConfig` and reads the whole answer, for malformed
 * bodies, missing credentials and wire-format checks.
 *
 * It works over http and over https with the kubeconfig's CA or skipTLSVerify, so the same call
 * reaches the embedded server and a real kube-apiserver.
 *
 * @example
 * ```ts
 * import { rawRequest, type TestApiServer } from '@kindex/testing';
 * declare const server: TestApiServer;
 *
 * // Exactly the bytes the server sends, for what a typed client would hide (headers, odd bodies).
 * const response = await rawRequest(server.kubeConfig, { path: '/api/v1/namespaces/default/configmaps?limit=1' });
 * console.log(response.status, response.headers['content-type'], response.text.length);
 * ```
 */
export async function rawRequest(kubeConfig: KubeConfig, request: RawRequest): Promise<RawResponse> {
  const cluster = kubeConfig.getCurrentCluster();
  if (cluster === null) throw new Error('rawRequest: the kubeconfig has no current cluster');
  const url = new URL(request.path, cluster.server);
  const options: https.RequestOptions = { method: request.method ?? 'GET', headers: {} };
  if (request.authenticate ?? true) {
    await kubeConfig.applyToHTTPSOptions(options);
  } else {
    // Still trust the server's certificate; only the credentials are left out.
    const withAuth: https.RequestOptions = { headers: {} };
    await kubeConfig.applyToHTTPSOptions(withAuth);
    options.ca = withAuth.ca;
    options.rejectUnauthorized = withAuth.rejectUnauthorized;
  }
  options.headers = { ...(options.headers as Record<string, string>), ...request.headers };
  if (request.body !== undefined) {
    (options.headers as Record<string, string>)['content-length'] = String(Buffer.byteLength(request.body));
  }
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<RawResponse>((resolve, reject) => {
    const req = transport.request(url, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const bytes = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: bytes.toString('utf8'), bytes });
      });
    });
    req.setTimeout(request.timeoutMs ?? 30_000, () => req.destroy(new Error(`rawRequest: ${options.method} ${request.path} timed out`)));
    req.on('error', reject);
    req.end(request.body);
  });
}
