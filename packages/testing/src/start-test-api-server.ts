import { startEmbeddedApiServer } from './apiserver/embedded-api-server.js';
import { TEST_API_SERVER_OPTIONS, type TestApiServer, type TestApiServerOptions } from './test-api-server.js';

/**
 * The values `KINDEX_APISERVER` may take.
 *
 * @example
 * ```ts
 * import { apiServerFlavorFromEnvironment, type ApiServerFlavor } from '@kindex/testing/internal';
 *
 * // Real servers take seconds to start: give their suites longer timeouts.
 * const flavor: ApiServerFlavor = apiServerFlavorFromEnvironment();
 * const timeoutMs = flavor === 'real' ? 60_000 : 10_000;
 * ```
 */
export type ApiServerFlavor = TestApiServer['flavor'];

/**
 * Thrown by {@link startTestApiServer} when `KINDEX_APISERVER` names no known server.
 *
 * @example
 * ```ts
 * import { startTestApiServer, UnknownApiServerFlavorError } from '@kindex/testing';
 *
 * try {
 *   const server = await startTestApiServer(); // KINDEX_APISERVER=kind names no server kindex has
 *   await server.stop();
 * } catch (error) {
 *   if (error instanceof UnknownApiServerFlavorError) console.error(`KINDEX_APISERVER=${error.value}: ${error.message}`);
 * }
 * ```
 */
export class UnknownApiServerFlavorError extends Error {
  override readonly name = 'UnknownApiServerFlavorError';
  readonly code = 'KINDEX_UNKNOWN_APISERVER_FLAVOR';
  constructor(readonly value: string) {
    super(`KINDEX_APISERVER must be 'embedded' or 'real', got '${value}'`);
  }
}

/**
 * Reads `KINDEX_APISERVER` (`embedded`, the default when unset or empty, or `real`).
 *
 * @throws UnknownApiServerFlavorError for any other value.
 *
 * @example
 * ```ts
 * import { apiServerFlavorFromEnvironment } from '@kindex/testing/internal';
 *
 * // KINDEX_APISERVER=real selects the real kube-apiserver; unset means embedded.
 * const flavor = apiServerFlavorFromEnvironment();
 * const slow = flavor === 'real';
 * ```
 */
export function apiServerFlavorFromEnvironment(env: NodeJS.ProcessEnv = process.env): ApiServerFlavor {
  const value = (env['KINDEX_APISERVER'] ?? '').trim();
  if (value === '' || value === 'embedded') return 'embedded';
  if (value === 'real') return 'real';
  throw new UnknownApiServerFlavorError(value);
}

/**
 * Starts the API server a test run asked for through `KINDEX_APISERVER`: the embedded server
 * (default) or a real kube-apiserver with etcd (`real`), so one suite runs unchanged on both.
 *
 * It also sets `KINDEX_INSPECTION=true` in this process's environment unless it is set: the
 * default of the Operator's `inspection` option, so operators under test keep what
 * `describePrimary` and `/debug/controllers` show (production operators do not, by default).
 *
 * @throws UnknownApiServerFlavorError when `KINDEX_APISERVER` has another value.
 * @example
 * ```ts
 * import { startTestApiServer } from '@kindex/testing';
 * const server = await startTestApiServer({ historyWindow: 20 });
 * try { console.log(server.kubeConfig.getCurrentCluster()?.server); } finally { await server.stop(); }
 * ```
 */
export async function startTestApiServer(options: TestApiServerOptions = {}): Promise<TestApiServer> {
  // Checked here, not only by the chosen launcher: a key one server accepts (`tls` of the
  // embedded one) would otherwise pass on that server and fail on the other.
  TEST_API_SERVER_OPTIONS.check(options);
  // Read by @kindex/informer (which this package does not import) when an Operator or
  // Controller has no `inspection` option; an explicit setting, either way, stays.
  process.env['KINDEX_INSPECTION'] ??= 'true';
  const flavor = apiServerFlavorFromEnvironment();
  if (flavor === 'real') {
    // Loaded only when chosen: the real launcher brings process management and binaries that
    // the embedded path never needs.
    const { startRealApiServer } = await import('./real-apiserver/real-api-server.js');
    return startRealApiServer(options);
  }
  return startEmbeddedApiServer(options);
}
