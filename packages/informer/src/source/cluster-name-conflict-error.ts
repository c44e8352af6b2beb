/**
 * One cluster name given to two clusters: a fleet engaging a name it already runs from another
 * source, or remote sources or dependents naming one cluster with kubeconfigs that reach
 * different servers or identities. The second is refused (the first keeps running); the message
 * names both. A `TypeError`, as the other refusals of a bad `RemoteCluster`.
 *
 * @example
 * ```ts
 * import { ClusterNameConflictError, StaticClusterProvider } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const a: KubeConfig;
 * declare const b: KubeConfig;
 *
 * try {
 *   new StaticClusterProvider([{ name: 'eu-1', kubeConfig: a }, { name: 'eu-1', kubeConfig: b }]);
 * } catch (e) {
 *   if (e instanceof ClusterNameConflictError) console.error(e.cluster, e.first, e.second);
 * }
 * ```
 */
export class ClusterNameConflictError extends TypeError {
  override readonly name = 'ClusterNameConflictError';
  readonly code = 'KINDEX_CLUSTER_NAME_CONFLICT';
  constructor(
    /** The name used twice. */
    readonly cluster: string,
    /** Where the engaged cluster came from. */
    readonly first: string,
    /** Where the refused one came from. */
    readonly second: string,
    /** The whole message, where the caller says more than the two sources (what each reaches). */
    message = `cluster name ${JSON.stringify(cluster)} is used twice: by ${first} and by ${second}; ` +
      `the second is ignored until the first is gone: give one of them another name`,
  ) {
    super(message);
  }
}
