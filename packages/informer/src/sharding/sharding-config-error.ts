import { LeaseConfigError } from '../lease/lease-config-error.js';

/**
 * A sharding option that cannot work, named with its value and the fix.
 *
 * @example
 * ```ts
 * import { KubeConfig } from '@kubernetes/client-node';
 * import { Operator, ShardingConfigError } from '@kindex/informer';
 * declare const kubeConfig: KubeConfig;
 *
 * try {
 *   new Operator({ kubeConfig, sharding: { group: 'jobs', namespace: 'ops', shards: 0 } });
 * } catch (e) {
 *   if (e instanceof ShardingConfigError) console.error(e.field, e.message); // "shards", with the fix
 * }
 * ```
 */
export class ShardingConfigError extends LeaseConfigError {
  override readonly name = 'ShardingConfigError';
  constructor(field: string, value: unknown, fix: string) {
    super('sharding', field, value, fix);
  }
}
