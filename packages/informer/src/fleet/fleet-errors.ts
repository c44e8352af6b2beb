/**
 * A cluster name a fleet already runs, engaged again from another source: the second is
 * refused (the first keeps running). The message names both sources.
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
export class ClusterNameConflictError extends Error {
  override readonly name = 'ClusterNameConflictError';
  readonly code = 'KINDEX_CLUSTER_NAME_CONFLICT';
  constructor(
    /** The name used twice. */
    readonly cluster: string,
    /** Where the engaged cluster came from. */
    readonly first: string,
    /** Where the refused one came from. */
    readonly second: string,
  ) {
    super(
      `cluster name ${JSON.stringify(cluster)} is used twice: by ${first} and by ${second}; ` +
        `the second is ignored until the first is gone: give one of them another name`,
    );
  }
}

/**
 * A Secret of a {@link KubeconfigSecretProvider} that does not describe a cluster: no data under
 * the kubeconfig key, or data that is not a kubeconfig. It names the Secret, the key and the fix.
 *
 * @example
 * ```ts
 * import { KubeconfigSecretError } from '@kindex/informer';
 * declare const error: unknown;
 * if (error instanceof KubeconfigSecretError) console.error(`${error.namespace}/${error.secret}`, error.key, error.message);
 * ```
 */
export class KubeconfigSecretError extends Error {
  override readonly name = 'KubeconfigSecretError';
  readonly code = 'KINDEX_KUBECONFIG_SECRET';
  constructor(
    readonly namespace: string,
    /** The Secret's name. */
    readonly secret: string,
    /** The data key the kubeconfig was looked for under. */
    readonly key: string,
    problem: string,
    fix: string,
    options?: ErrorOptions,
  ) {
    super(`Secret ${namespace}/${secret}: ${problem}; ${fix}`, options);
  }
}
