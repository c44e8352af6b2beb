/**
 * Remote sources: an {@link InformerEventSource} that watches another cluster than the operator's
 * own (JOSDK's InformerEventSource with its own KubernetesClient), named by a
 * {@link RemoteCluster}. Owner references do not cross clusters, so a remote source maps its
 * objects to primaries with a mapper of its own (`fromAnnotations`, `fromLabels`); the reverse
 * index and `getSecondaryResources` work as for any source.
 *
 * @module
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { assertUsableKubeConfig } from '../kubeconfig/assert-usable-kube-config.js';

/**
 * Another cluster an event source watches: its name (in health, metrics, logs and startup
 * errors) and how to reach it.
 *
 * Caveats: `start()` waits for the remote cluster's initial list as for any source, so a cluster
 * that is down when the operator starts fails the start once `cacheSyncTimeoutMs` passes, with
 * the cluster named (JOSDK fails the start too). Once synced, a cluster that goes away only makes
 * this source unhealthy while it reconnects with backoff; the other sources and the reconciles go
 * on, reading the last state cached from it.
 *
 * @example
 * ```ts
 * import { KubeConfig } from '@kubernetes/client-node';
 * import { fromAnnotations, InformerEventSource, Kinds, type RemoteCluster } from '@kindex/informer';
 *
 * const kubeConfig = new KubeConfig();
 * kubeConfig.loadFromFile('/etc/fleet/cluster-b.kubeconfig');
 * const clusterB: RemoteCluster = { name: 'cluster-b', kubeConfig };
 * // Secrets of cluster B, each naming its primary (here a ConfigMap) in annotations.
 * const secrets = InformerEventSource.from(Kinds.Secret, Kinds.ConfigMap)
 *   .withRemoteCluster(clusterB)
 *   .withSecondaryToPrimaryMapper(fromAnnotations());
 * ```
 */
export interface RemoteCluster {
  /** A short name for messages and metric labels: lowercase letters, digits, `-` and `.`. */
  readonly name: string;
  /** Where and as whom to connect to it. */
  readonly kubeConfig: KubeConfig;
}

const NAME = /^[a-z0-9]([-a-z0-9.]{0,61}[a-z0-9])?$/;

/** Checks a remote cluster; throws one line naming the owner, the field and the fix. */
export function checkRemoteCluster(owner: string, cluster: unknown): RemoteCluster {
  if (cluster === null || typeof cluster !== 'object') {
    throw new TypeError(`${owner}: withRemoteCluster takes { name, kubeConfig }, got ${JSON.stringify(cluster)}`);
  }
  const { name, kubeConfig } = cluster as Partial<RemoteCluster>;
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new TypeError(
      `${owner}: the remote cluster's name must be lowercase letters, digits, '-' and '.' (at most 63), got ${JSON.stringify(name)}; name it as your fleet does, e.g. 'cluster-b'`,
    );
  }
  if (kubeConfig === undefined || kubeConfig === null) {
    throw new TypeError(`${owner}: the remote cluster ${name} has no kubeConfig; load one for it (new KubeConfig(), loadFromFile)`);
  }
  assertUsableKubeConfig(kubeConfig);
  return Object.freeze({ name, kubeConfig });
}
