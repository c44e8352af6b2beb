/**
 * The error of an object that cannot be a server-side apply configuration.
 *
 * @module
 */

/**
 * Thrown by `KubeClient.apply` before any request when the object cannot be an apply
 * configuration: it has no name (or no namespace, of a namespaced kind), or its apiVersion or
 * kind is not the kind's.
 *
 * @example
 * ```ts
 * import { InvalidApplyConfigurationError, Kinds, type KubeClient } from '@kindex/informer';
 * declare const client: KubeClient;
 *
 * try {
 *   await client.apply(Kinds.ConfigMap, { metadata: { namespace: 'shop' } }); // no name
 * } catch (error) {
 *   if (error instanceof InvalidApplyConfigurationError) console.error(error.message); // names the missing field
 * }
 * ```
 */
export class InvalidApplyConfigurationError extends Error {
  override readonly name = 'InvalidApplyConfigurationError';
  readonly code = 'KINDEX_INVALID_APPLY_CONFIGURATION';
}
