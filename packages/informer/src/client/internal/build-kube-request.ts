import http from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { httpAgent, httpsAgent } from './keep-alive-agents.js';

/** A request ready for Node's http(s): where it goes, and options carrying current credentials. */
export interface KubeRequest {
  /** The full URL, query included. */
  readonly url: URL;
  /** Method, headers, authentication and TLS settings for `transport.request(url, options)`. */
  readonly options: https.RequestOptions;
  /** `node:https` or `node:http`, after the URL's protocol. */
  readonly transport: Pick<typeof https, 'request'>;
  /** `METHOD /path?query`, for error messages. */
  readonly description: string;
}

/**
 * Builds every request kindex sends itself (the reflector's reads and KubeClient's writes): the
 * URL from the current cluster, and the KubeConfig's authentication and TLS settings (bearer
 * tokens, exec plugins, client certificates, CA) read afresh for this request.
 *
 * Why not the agent client-node returns: from 2.0 `applyToHTTPSOptions` hands out an `https.Agent`
 * cached per (cluster, user) and built from the first call's certificates, and Node lets an
 * agent's TLS options override the request's. A rotated client certificate or CA (a file rewritten
 * on disk, a reloaded kubeconfig) would then never reach the server. So the request goes through
 * kindex's own keep-alive agents (`keep-alive-agents.ts`), which hold no TLS options: the
 * request's decide, and Node keeps connections with other TLS settings apart.
 *
 * Caveat: through a proxy (`proxyUrl` on the cluster) only client-node's agent knows how to
 * connect, so it is kept; with client-node 2.x a rotated client certificate there takes effect
 * only with a new KubeConfig object. Tokens are headers and stay fresh either way.
 */
export async function buildKubeRequest(
  kubeConfig: KubeConfig,
  method: string,
  path: string,
  query: Readonly<Record<string, string | undefined>> = {},
  headers: Readonly<Record<string, string>> = {},
): Promise<KubeRequest> {
  const cluster = kubeConfig.getCurrentCluster();
  if (cluster === null) {
    throw new Error(
      `the KubeConfig has no current cluster (current context '${kubeConfig.getCurrentContext()}'); set one with setCurrentContext() or load a kubeconfig`,
    );
  }
  const url = new URL(cluster.server.replace(/\/+$/, '') + path);
  for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, v);
  const options: https.RequestOptions = {};
  await kubeConfig.applyToHTTPSOptions(options);
  const secure = url.protocol === 'https:';
  if (cluster.proxyUrl === undefined) options.agent = secure ? httpsAgent : httpAgent;
  options.method = method;
  // The caller's codec names the Accept header (client/codec.ts).
  options.headers = { ...options.headers, ...headers };
  return {
    url,
    options,
    transport: secure ? https : http,
    description: `${method} ${url.pathname}${url.search}`,
  };
}
