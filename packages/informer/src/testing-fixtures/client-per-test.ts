// Test fixture, no tests of its own: the set-up of the informer suites that send requests through
// a KubeClient to a server shared with other suites. Not exported from the package index; not a
// *.test.ts file, so mocha never loads it as a suite.
import { createNamespace, useTestApiServer, type TestApiServer } from '@kindex/testing';
import { KubeClient } from '../index.js';

/** What each test gets from {@link useClientPerTest}; valid inside tests and hooks only. */
export interface ClientPerTest {
  readonly server: TestApiServer;
  /** A client made for the running test, field manager `kindex-test`. */
  readonly client: KubeClient;
  /** A namespace created for the running test alone. */
  readonly namespace: string;
}

/**
 * A server shared with the other suites that ask for one (`useTestApiServer({ shared: true })`),
 * and before each test a new client and a fresh namespace; call it at the top of a `describe` body.
 */
export function useClientPerTest(): ClientPerTest {
  const server = useTestApiServer({ shared: true });
  let current: { client: KubeClient; namespace: string } | undefined;
  beforeEach(async function () {
    this.timeout(60_000);
    current = undefined;
    const client = new KubeClient(server().kubeConfig, { fieldManager: 'kindex-test' });
    current = { client, namespace: await createNamespace(server().kubeConfig) };
  });
  const test = (): { client: KubeClient; namespace: string } => {
    if (current === undefined) throw new Error('useClientPerTest: the client and namespace are only available inside tests and hooks');
    return current;
  };
  return {
    get server() {
      return server();
    },
    get client() {
      return test().client;
    },
    get namespace() {
      return test().namespace;
    },
  };
}
