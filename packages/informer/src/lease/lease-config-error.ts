import { InvalidOptionError } from '@kindex/core';

/**
 * An option of lease-based coordination (`leaderElection` or `sharding`) is out of range: names
 * the option, its value and the fix, before anything runs. {@link LeaderElectionConfigError} and
 * {@link ShardingConfigError} extend it, so one check catches either. A kind of `InvalidOptionError`
 * (code `KINDEX_INVALID_OPTION`), as every bad option is.
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
export class LeaseConfigError extends InvalidOptionError {
  override readonly name: string = 'LeaseConfigError';
  /** The option holding the field: `leaderElection` or `sharding`. */
  readonly option: string;
  /** The field at fault, for example `renewDeadlineMs`. */
  readonly field: string;

  constructor(option: string, field: string, value: unknown, fix: string) {
    super({ options: option, key: field, value, problem: 'out of range', fix }, `${option}.${field} = ${JSON.stringify(value)}: ${fix}`);
    this.option = option;
    this.field = field;
  }
}
