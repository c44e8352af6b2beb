import { startTestApiServer } from '../start-test-api-server.js';
import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';
import { TEST_API_SERVER_OPTIONS, type TestApiServer, type TestApiServerOptions } from '../test-api-server.js';

/**
 * Options of {@link useTestApiServer}: the server's options, plus whether suites may share it.
 *
 * @example
 * ```ts
 * import { useTestApiServer, type UseTestApiServerOptions } from '@kindex/testing';
 *
 * describe('ConfigMap reconciler', () => {
 *   // Reuse the server of earlier suites that asked for the same options (a real kube-apiserver takes
 *   // seconds to start); in exchange, inject no faults and keep to namespaces of this suite.
 *   const options: UseTestApiServerOptions = { shared: true };
 *   const server = useTestApiServer(options);
 *   it('starts', () => {
 *     console.log(server().url);
 *   });
 * });
 * ```
 */
export interface UseTestApiServerOptions extends TestApiServerOptions {
  /**
   * Lets consecutive suites of one mocha run that ask for the same server options share one
   * server instead of starting their own; a real kube-apiserver with etcd takes seconds to start.
   * Only for suites that inject no faults and keep to their own namespaces. Defaults to false.
   */
  readonly shared?: boolean;
}

/** {@link UseTestApiServerOptions}' keys and value checks: unknown keys are rejected, not ignored. */
const USE_TEST_API_SERVER_OPTIONS = defineOptions<UseTestApiServerOptions>('useTestApiServer options', {
  ...TEST_API_SERVER_OPTIONS.properties,
  shared: Type.Optional(Type.Boolean({ description: 'true or false' })),
});

/**
 * Starts one server (see {@link startTestApiServer}) for the enclosing mocha `describe` and stops
 * it afterwards; returns a getter, valid inside tests and hooks of that suite.
 *
 * Call it at the top of a `describe` body, before any hook that uses the server.
 *
 * @example
 * ```ts
 * import { useTestApiServer } from '@kindex/testing';
 * describe('ConfigMaps', () => {
 *   const server = useTestApiServer();
 *   it('creates', async () => { console.log(server().kubeConfig.getCurrentCluster()?.server); });
 * });
 * ```
 */
export function useTestApiServer(options: UseTestApiServerOptions = {}): () => TestApiServer {
  USE_TEST_API_SERVER_OPTIONS.check(options);
  const { shared = false, ...serverOptions } = options;
  let server: TestApiServer | undefined;
  let release: (() => void) | undefined;
  before(async function () {
    // A real kube-apiserver with etcd takes several seconds to come up.
    this.timeout(180_000);
    if (shared) {
      const lease = await sharedServers.acquire(serverOptions);
      server = lease.server;
      release = lease.release;
    } else {
      server = await startTestApiServer(serverOptions);
    }
  });
  after(async function () {
    this.timeout(60_000);
    const running = server;
    server = undefined;
    if (release !== undefined) {
      release();
      release = undefined;
    } else {
      await running?.stop();
    }
  });
  return () => {
    if (server === undefined) throw new Error('useTestApiServer: the server is only available inside tests and hooks');
    return server;
  };
}

// How long an unused shared server waits for the next suite before stopping. Mocha runs the next
// suite's `before` right after the previous `after`, so a short grace suffices; at the end of a
// run the timer keeps the process alive just long enough to stop the server cleanly.
const SHARED_GRACE_MS = 1_000;

interface PooledServer {
  readonly server: Promise<TestApiServer>;
  users: number;
  stopTimer: NodeJS.Timeout | undefined;
}

class SharedServerPool {
  readonly #servers = new Map<string, PooledServer>();

  async acquire(options: TestApiServerOptions): Promise<{ server: TestApiServer; release: () => void }> {
    const key = JSON.stringify({
      historyWindow: options.historyWindow,
      bookmarkIntervalMs: options.bookmarkIntervalMs,
      shardedListAndWatch: options.shardedListAndWatch,
      cborServingAndStorage: options.cborServingAndStorage,
      authorization: options.authorization,
    });
    let pooled = this.#servers.get(key);
    if (pooled === undefined) {
      pooled = { server: startTestApiServer(options), users: 0, stopTimer: undefined };
      this.#servers.set(key, pooled);
      // A server that failed to start must not be handed to the next suite.
      pooled.server.catch(() => this.#servers.delete(key));
    }
    clearTimeout(pooled.stopTimer);
    pooled.stopTimer = undefined;
    pooled.users++;
    const entry = pooled;
    const server = await entry.server;
    let released = false;
    return {
      server,
      release: () => {
        if (released) return;
        released = true;
        if (--entry.users > 0) return;
        entry.stopTimer = setTimeout(() => {
          this.#servers.delete(key);
          server.stop().catch((error: unknown) => {
            console.error('useTestApiServer: stopping a shared server failed', error);
          });
        }, SHARED_GRACE_MS);
      },
    };
  }
}

const sharedServers = new SharedServerPool();
