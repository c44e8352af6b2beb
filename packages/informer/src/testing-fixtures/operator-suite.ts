// Test fixture, no tests of its own: the set-up of the informer suites that run an Operator (or a
// Controller) against a test API server with one custom resource installed. Not exported from
// the package index; not a *.test.ts file, so mocha never loads it as a suite.
import { ApiextensionsV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import { createTestCrd, useTestApiServer, type TestApiServer, type TestCrdOptions } from '@kindex/testing';
import { KubeClient, type Operator } from '../index.js';

/** Options of {@link useOperatorSuite}. */
export interface OperatorSuiteOptions<Client extends KubeClient> {
  /** The custom resource installed once before the suite's tests (`createTestCrd` options). Defaults to none. */
  readonly crd?: TestCrdOptions;
  /** Makes the suite's client from the server's kubeconfig. Defaults to `new KubeClient(kubeConfig)`. */
  readonly client?: (kubeConfig: KubeConfig) => Client;
}

/** What a suite gets from {@link useOperatorSuite}; `server` and `client` are valid inside tests and hooks only. */
export interface OperatorSuite<Client extends KubeClient = KubeClient> {
  readonly server: TestApiServer;
  readonly client: Client;
  /** The operator the current test runs: stopped after the test (draining for 5 s) and cleared. */
  operator: Operator | undefined;
}

/**
 * One test server for the enclosing `describe` (`useTestApiServer`), the CRD of `options.crd` (if
 * any) installed on it and a client; call it at the top of the `describe` body.
 *
 * After each test, the faults it injected are undone (watch events resumed, no failing requests,
 * no latency) so that its operator can drain, then `operator` is stopped. After the suite, the
 * client's informers stop before the server does.
 */
export function useOperatorSuite<Client extends KubeClient = KubeClient>(
  options: OperatorSuiteOptions<Client> = {},
): OperatorSuite<Client> {
  const makeClient = options.client ?? ((kubeConfig: KubeConfig) => new KubeClient(kubeConfig) as Client);
  let client: Client | undefined;
  // Registered before useTestApiServer's own `after`, so that it runs first: informers stop
  // watching before their server goes away.
  after(async () => {
    await client?.registry?.stopAll();
    client = undefined;
  });
  const server = useTestApiServer();
  const suite: OperatorSuite<Client> = {
    get server() {
      return server();
    },
    get client() {
      if (client === undefined) throw new Error('useOperatorSuite: the client is only available inside tests and hooks');
      return client;
    },
    operator: undefined,
  };
  before(async () => {
    const kubeConfig = server().kubeConfig;
    client = makeClient(kubeConfig);
    if (options.crd !== undefined) {
      await createTestCrd(kubeConfig.makeApiClient(ApiextensionsV1Api), kubeConfig.makeApiClient(CustomObjectsApi), options.crd);
    }
  });
  afterEach(async () => {
    const { faults } = server();
    faults.resumeEvents?.();
    faults.failNextRequests?.(0, { status: 500 });
    faults.setLatency?.(0);
    await suite.operator?.stop({ drainTimeoutMs: 5_000 });
    suite.operator = undefined;
  });
  return suite;
}
