import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { uniqueName } from './unique-name.js';

/**
 * Creates a namespace (a fresh {@link uniqueName} unless `name` is given) and returns its name.
 *
 * Tests never delete it: on a real kube-apiserver without controllers namespace deletion never
 * finishes, and each server is thrown away after its suite anyway.
 *
 * @example
 * ```ts
 * import { createNamespace, useTestApiServer } from '@kindex/testing';
 *
 * describe('WebApp controller', () => {
 *   const server = useTestApiServer({ shared: true });
 *   it('creates the ConfigMap', async () => {
 *     // A fresh namespace per test: tests sharing a server do not see each other's objects.
 *     const namespace = await createNamespace(server().kubeConfig);
 *     console.log(namespace);
 *   });
 * });
 * ```
 */
export async function createNamespace(kubeConfig: KubeConfig, name: string = uniqueName('ns')): Promise<string> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } });
  return name;
}
