// Shared set-up of the conformance suite: one server per file, a fresh namespace per test, typed
// clients from @kubernetes/client-node (the only way the suite talks to the server, besides
// rawRequest for what those clients cannot send).
import {
  ApiextensionsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
  type V1ConfigMap,
} from '@kubernetes/client-node';
import { createNamespace } from '../helpers/create-namespace.js';
import { rawRequest, type RawResponse } from '../helpers/raw-request.js';
import { uniqueName } from '../helpers/unique-name.js';
import { useTestApiServer, type UseTestApiServerOptions } from '../helpers/use-test-api-server.js';
import type { TestApiServer } from '../test-api-server.js';

/** What each conformance test gets; valid inside tests and hooks only. */
export interface ConformanceFixture {
  readonly server: TestApiServer;
  readonly kubeConfig: KubeConfig;
  readonly core: CoreV1Api;
  readonly coordination: CoordinationV1Api;
  readonly apiextensions: ApiextensionsV1Api;
  readonly custom: CustomObjectsApi;
  readonly objects: KubernetesObjectApi;
  /** A namespace created for the running test alone. */
  readonly namespace: string;
}

/**
 * Registers the hooks of a conformance file (a server, shared with the other files unless
 * `shared: false`, and a namespace per test) and returns a getter for the running test's fixture.
 * Files that inject faults must pass `shared: false`.
 */
export function useConformanceFixture(options: UseTestApiServerOptions = {}): () => ConformanceFixture {
  const server = useTestApiServer({ shared: true, ...options });
  let fixture: ConformanceFixture | undefined;
  beforeEach(async function () {
    this.timeout(60_000);
    const kubeConfig = server().kubeConfig;
    fixture = {
      server: server(),
      kubeConfig,
      core: kubeConfig.makeApiClient(CoreV1Api),
      coordination: kubeConfig.makeApiClient(CoordinationV1Api),
      apiextensions: kubeConfig.makeApiClient(ApiextensionsV1Api),
      custom: kubeConfig.makeApiClient(CustomObjectsApi),
      objects: KubernetesObjectApi.makeApiClient(kubeConfig),
      namespace: await createNamespace(kubeConfig),
    };
  });
  return () => {
    if (fixture === undefined) throw new Error('the conformance fixture is only available inside tests');
    return fixture;
  };
}

/** Request options that send a patch body with the given content type. */
export const asPatch = {
  merge: () => setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  json: () => setHeaderOptions('Content-Type', PatchStrategy.JsonPatch),
  strategic: () => setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
};

/** Creates a ConfigMap with a fresh name (unless given) in `namespace` and returns it as stored. */
export async function createConfigMap(
  core: CoreV1Api,
  namespace: string,
  overrides: { name?: string; labels?: Record<string, string>; data?: Record<string, string>; finalizers?: string[] } = {},
): Promise<V1ConfigMap> {
  return core.createNamespacedConfigMap({
    namespace,
    body: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: overrides.name ?? uniqueName('cm'),
        ...(overrides.labels ? { labels: overrides.labels } : {}),
        ...(overrides.finalizers ? { finalizers: overrides.finalizers } : {}),
      },
      data: overrides.data ?? { key: 'value' },
    },
  });
}

/** The collection path of `namespace`'s ConfigMaps, for requests sent by hand. */
export function configMapsPath(namespace: string): string {
  return `/api/v1/namespaces/${namespace}/configmaps`;
}

/** A GET of `path` sent by hand with `accept` as its Accept header, as content negotiation tests need. */
export function getAccepting(kubeConfig: KubeConfig, path: string, accept: string): Promise<RawResponse> {
  return rawRequest(kubeConfig, { path, headers: { Accept: accept } });
}

/** Metadata the server must have set; throws naming the missing field. */
export function stored<T extends { metadata?: { name?: string; resourceVersion?: string; uid?: string } }>(
  object: T,
): { name: string; resourceVersion: string; uid: string } {
  const { name, resourceVersion, uid } = object.metadata ?? {};
  if (!name || !resourceVersion || !uid) {
    throw new Error(`object lacks metadata.name, resourceVersion or uid: ${JSON.stringify(object.metadata)}`);
  }
  return { name, resourceVersion, uid };
}
