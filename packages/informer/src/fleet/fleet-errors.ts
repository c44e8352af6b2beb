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
