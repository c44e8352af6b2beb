import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';

/** A local HTTP server whose answers a test scripts by hand, and a KubeConfig that points at it. */
export interface HandServer {
  readonly kubeConfig: KubeConfig;
  /** Connections the server has accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

/**
 * Starts a plain HTTP server on a free port of 127.0.0.1: for the client tests that need an
 * answer no API server gives on demand (a 429 on a write, another media type).
 */
export async function startHandServer(handler: RequestListener, options: { keepAliveTimeoutMs?: number } = {}): Promise<HandServer> {
  const server = createServer(handler);
  if (options.keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = options.keepAliveTimeoutMs;
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'c', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return {
    kubeConfig,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        // Kept-alive client connections would hold close() open until they idle out.
        server.closeIdleConnections();
        server.close(() => resolve());
      }),
  };
}
