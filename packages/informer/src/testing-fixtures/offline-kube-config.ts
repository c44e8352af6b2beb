import { KubeConfig } from '@kubernetes/client-node';

/** A kubeconfig for clients and Operators that must not reach any server (nothing listens on port 1). */
export function offlineKubeConfig(): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://127.0.0.1:1' }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kubeConfig;
}
