/**
 * Remote sources: an {@link InformerEventSource} that watches another cluster than the operator's
 * own (JOSDK's InformerEventSource with its own KubernetesClient), named by a
 * {@link RemoteCluster}. Owner references do not cross clusters, so a remote source maps its
 * objects to primaries with a mapper of its own (`fromAnnotations`, `fromLabels`); the reverse
 * index and `getSecondaryResources` work as for any source. Dependents take one too: see
 * kubernetes-dependent-resource.ts. One name is one cluster within an operator
 * ({@link claimRemoteCluster}).
 *
 * @module
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Observable } from 'rxjs';
import type { EventSourceHealth } from '@kindex/core';
import { assertUsableKubeConfig } from '../kubeconfig/assert-usable-kube-config.js';
import { ClusterNameConflictError } from './cluster-name-conflict-error.js';
import type { CacheSyncCluster } from '../startup/startup-errors.js';

/**
 * Another cluster an event source watches, or a dependent lives in (`KubernetesDependentResource`'s
 * `cluster` option): its name (in health, metrics, logs and startup errors) and how to reach it.
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

/** What a claim on a cluster name holds of its user: its name and whether it has stopped. */
interface ClusterUser {
  readonly name: string;
  readonly health$: Observable<EventSourceHealth>;
}

/** Per operator client (the scope), each remote cluster name's kubeconfig and users. */
type Claims = Map<string, { kubeConfig: KubeConfig; users: WeakRef<ClusterUser>[] }>;
const claims = new WeakMap<object, Claims>();

/**
 * Claims `cluster.name` for `source` within `scope` (the operator's client); returns
 * `source`. One name means one cluster, in metric labels and messages alike: the same name with a
 * kubeConfig that reaches another server, or as another user, is refused naming both, while a
 * source of the other kubeConfig still runs (stopped and collected ones free the name, so a
 * fleet can engage a cluster again with new credentials).
 * @throws {ClusterNameConflictError} naming both sources and what each kubeConfig reaches.
 */
export function claimRemoteCluster<S extends ClusterUser>(scope: object, cluster: RemoteCluster | undefined, source: S): S {
  if (cluster === undefined) return source;
  let byName = claims.get(scope);
  if (byName === undefined) claims.set(scope, (byName = new Map() as Claims));
  const claim = byName.get(cluster.name);
  const live = (claim?.users ?? []).filter((ref) => {
    const user = ref.deref();
    return user !== undefined && !stopped(user);
  });
  if (claim === undefined || live.length === 0) {
    byName.set(cluster.name, { kubeConfig: cluster.kubeConfig, users: [new WeakRef(source)] });
    return source;
  }
  if (claim.kubeConfig !== cluster.kubeConfig && identity(claim.kubeConfig) !== identity(cluster.kubeConfig)) {
    const first = `event source ${live[0]!.deref()!.name}`;
    const second = `event source ${source.name}`;
    throw new ClusterNameConflictError(
      cluster.name,
      first,
      second,
      `remote cluster ${cluster.name} is named twice with different kubeconfigs: ${first} reaches ${describe(claim.kubeConfig)}, ` +
        `${second} reaches ${describe(cluster.kubeConfig)}; give each cluster its own name, or share one RemoteCluster`,
    );
  }
  claim.users = [...live, new WeakRef(source)];
  return source;
}

/** Whether the source has stopped: its health is held, so subscribing reads it at once. */
function stopped(user: ClusterUser): boolean {
  let status: EventSourceHealth['status'] | undefined;
  user.health$.subscribe((h) => (status = h.status)).unsubscribe();
  return status === 'stopped';
}

/**
 * Whom a kubeConfig reaches, as whom: its current cluster's server and its current user's
 * credentials (not the user's name, a local label), keys sorted so that a kubeconfig loaded
 * twice compares equal.
 */
function identity(kubeConfig: KubeConfig): string {
  const { name: _label, ...credentials } = kubeConfig.getCurrentUser() ?? {};
  const sorted = (_key: string, value: unknown): unknown =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([x], [y]) => (x < y ? -1 : 1)))
      : value;
  return JSON.stringify([kubeConfig.getCurrentCluster()?.server, credentials], sorted);
}

function describe(kubeConfig: KubeConfig): string {
  return `${kubeConfig.getCurrentCluster()?.server ?? 'no server'} as ${kubeConfig.getCurrentUser()?.name ?? 'no user'}`;
}

/** @internal A remote cluster as a startup error names it: its name, and its RemoteCluster's kubeConfig as where its credentials are. */
export function remoteCacheSyncCluster(cluster: string | undefined): CacheSyncCluster | undefined {
  return cluster === undefined ? undefined : { name: cluster, credentials: "the RemoteCluster's kubeConfig" };
}
