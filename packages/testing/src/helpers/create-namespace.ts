import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { uniqueName } from './unique-name.js';

/**
 * Creates a namespace (a fresh {@link uniqueName} unless `name` is given) and returns its name.
 *
 * Tests never delete it: on a real kube-apiserver without controllers namespace deletion never
 * finishes, and each server is thrown away after its suite anyway.
 */
export async function createNamespace(kubeConfig: KubeConfig, name: string = uniqueName('ns')): Promise<string> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name } } });
  return name;
}
