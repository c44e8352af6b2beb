import type { KubeConfig } from '@kubernetes/client-node';
import { KubeConfigContextError, KubeConfigInsecureServerError, KubeConfigNotFoundError } from './kube-config-errors.js';

/**
 * Checks, without a request, that a KubeConfig can reach a cluster: it has a current context that
 * exists, whose cluster exists and is not plain HTTP without `insecure-skip-tls-verify`, and it is
 * not empty nor client-node's fallback (`http://localhost:8080`, what `loadFromDefault()` leaves
 * when it found no kubeconfig). `new KubeClient()` (so `new Operator()`) calls it, so a KubeConfig
 * that cannot work fails at construction rather than after minutes of retried requests.
 *
 * Caveats: it checks the shape only; a server that is down, a wrong token or an expired
 * certificate show up on the first request (as `CacheSyncError` at startup).
 *
 * @param origin How messages name the KubeConfig, for example `kubeconfig /home/u/.kube/config`.
 *   Defaults to `the KubeConfig`.
 * @throws KubeConfigNotFoundError, KubeConfigContextError or KubeConfigInsecureServerError.
 *
 * @example
 * ```ts
 * import { assertUsableKubeConfig } from '@kindex/informer/internal';
 * import { KubeConfig } from '@kubernetes/client-node';
 *
 * const kubeConfig = new KubeConfig();
 * kubeConfig.loadFromOptions({
 *   clusters: [{ name: 'dev', server: 'https://dev.example.com:6443' }],
 *   users: [{ name: 'me', token: process.env['TOKEN'] ?? '' }],
 *   contexts: [{ name: 'dev', cluster: 'dev', user: 'me' }],
 *   currentContext: 'dev',
 * });
 * assertUsableKubeConfig(kubeConfig); // throws a KubeConfigError naming what is missing
 * ```
 */
export function assertUsableKubeConfig(kubeConfig: KubeConfig, origin = 'the KubeConfig'): void {
  // A stand-in that is not a KubeConfig (`{} as KubeConfig` in unit tests that never send a
  // request) has nothing to check.
  if (typeof (kubeConfig as Partial<KubeConfig>).getContexts !== 'function') return;
  const contexts = kubeConfig.getContexts() ?? [];
  const clusters = kubeConfig.getClusters() ?? [];
  const names = contexts.map((c) => c.name);
  if (isFallback(kubeConfig)) {
    throw new KubeConfigNotFoundError(
      `${origin} holds only client-node's fallback cluster http://localhost:8080: loadFromDefault() found no kubeconfig (KUBECONFIG unset, no ~/.kube/config, not in a pod)`,
      [],
      'load the kubeconfig with loadKubeConfig() from @kindex/informer (it says where it looked), or set KUBECONFIG or create ~/.kube/config first.',
    );
  }
  if (contexts.length === 0 && clusters.length === 0) {
    throw new KubeConfigNotFoundError(
      `${origin} is empty: it has no clusters and no contexts`,
      [],
      'load one first: loadKubeConfig() from @kindex/informer (--kubeconfig, KUBECONFIG, ~/.kube/config or the pod), or kubeConfig.loadFromFile(path).',
    );
  }
  const current = kubeConfig.getCurrentContext();
  const useOne = `\`kubectl config use-context <name>\`${names.length ? ` with one of: ${names.join(', ')}` : ' after adding a context'}, or pass --context.`;
  if (!current) {
    throw new KubeConfigContextError(`${origin} sets no current-context; it has ${listOf('context', names)}`, undefined, names, useOne);
  }
  const context = kubeConfig.getContextObject(current);
  if (context === null) {
    throw new KubeConfigContextError(
      `the current-context "${current}" of ${origin} is not one of its contexts; it has ${listOf('context', names)}`,
      current,
      names,
      useOne,
    );
  }
  const cluster = kubeConfig.getCluster(context.cluster);
  if (cluster === null) {
    const clusterNames = clusters.map((c) => c.name);
    throw new KubeConfigContextError(
      `context "${current}" of ${origin} names cluster "${context.cluster}", which it does not define; it has ${listOf('cluster', clusterNames)}`,
      current,
      names,
      `\`kubectl config set-context ${current} --cluster=<name>\` with a defined cluster, or add cluster "${context.cluster}" with \`kubectl config set-cluster\`.`,
    );
  }
  // client-node's createAgent throws on every request for this (a proxy makes it fine).
  if (cluster.server.startsWith('http:') && cluster.skipTLSVerify !== true && !cluster.proxyUrl) {
    throw new KubeConfigInsecureServerError(cluster.name, cluster.server, origin);
  }
}

/** What `loadFromDefault()` loads when it finds nothing (client-node 1.x and 2.x). */
function isFallback(kubeConfig: KubeConfig): boolean {
  const clusters = kubeConfig.getClusters() ?? [];
  const users = kubeConfig.getUsers() ?? [];
  const user = users[0];
  return (
    kubeConfig.getCurrentContext() === 'loaded-context' &&
    clusters.length === 1 &&
    clusters[0]!.name === 'cluster' &&
    clusters[0]!.server === 'http://localhost:8080' &&
    clusters[0]!.skipTLSVerify !== true &&
    users.length === 1 &&
    user!.name === 'user' &&
    !user!.token &&
    !user!.certData &&
    !user!.certFile &&
    !user!.exec &&
    !user!.authProvider &&
    !user!.username
  );
}

function listOf(noun: string, names: readonly string[]): string {
  return names.length === 0 ? `no ${noun}s` : `${noun}s: ${names.join(', ')}`;
}
