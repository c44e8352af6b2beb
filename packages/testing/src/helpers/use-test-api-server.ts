import { startTestApiServer, type TestApiServerOptions } from '../start-test-api-server.js';
import type { TestApiServer } from '../test-api-server.js';

/**
 * Starts one server (see {@link startTestApiServer}) for the enclosing mocha `describe` and stops
 * it afterwards; returns a getter, valid inside tests and hooks of that suite.
 *
 * Call it at the top of a `describe` body, before any hook that uses the server.
 *
 * @example
 * ```ts
 * describe('ConfigMaps', () => {
 *   const server = useTestApiServer();
 *   it('creates', async () => { server().kubeConfig ... });
 * });
 * ```
 */
export function useTestApiServer(options: TestApiServerOptions = {}): () => TestApiServer {
  let server: TestApiServer | undefined;
  before(async function () {
    // A real kube-apiserver with etcd takes several seconds to come up.
    this.timeout(120_000);
    server = await startTestApiServer(options);
  });
  after(async function () {
    this.timeout(60_000);
    const running = server;
    server = undefined;
    await running?.stop();
  });
  return () => {
    if (server === undefined) throw new Error('useTestApiServer: the server is only available inside tests and hooks');
    return server;
  };
}
