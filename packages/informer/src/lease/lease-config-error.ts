/**
 * An option of lease-based coordination (`leaderElection` or `sharding`) is out of range: names
 * the option, its value and the fix, before anything runs. {@link LeaderElectionConfigError} and
 * {@link ShardingConfigError} extend it, so one check catches either.
 *
 * @example
 * ```ts
 * import { LeaseConfigError, Operator } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * try {
 *   new Operator({ kubeConfig, sharding: { group: 'jobs', namespace: 'ops', shards: 8, renewDeadlineMs: 20_000 } });
 * } catch (error) {
 *   // "sharding.leaseDurationMs = 15000: must exceed renewDeadlineMs (20000) ..."
 *   if (error instanceof LeaseConfigError) console.error(`${error.option}.${error.field}: ${error.message}`);
 * }
 * ```
 */
export class LeaseConfigError extends Error {
  override readonly name: string = 'LeaseConfigError';
  constructor(
    /** The option holding the field: `leaderElection` or `sharding`. */
    readonly option: string,
    readonly field: string,
    readonly value: unknown,
    fix: string,
  ) {
    super(`${option}.${field} = ${JSON.stringify(value)}: ${fix}`);
  }
}
