import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';
import { LEADER_ELECTION_TIMING_OPTIONS, type LeaderElectionStatus, type LeaderElectionTiming } from './leader-elector.js';

/**
 * The `leaderElection` option of `Operator`: run several replicas, one reconciling at a time.
 *
 * Every replica starts its controllers and syncs its caches (warm standby: a failover costs the
 * lease wait, not a relist); only the lease holder dispatches the reconciles of leader-elected
 * controllers (every controller, unless one is registered with another `distribution`), with
 * optimistic locking on their writes to primaries and every write fenced by its leadership.
 * Combines with `sharding`: sharded controllers then run on every replica, on their own shards.
 *
 * @example
 * ```ts
 * import { Operator, type OperatorLeaderElectionOptions } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * // On losing the lease, stop reconciling but keep the caches warm to take over quickly.
 * const leaderElection: OperatorLeaderElectionOptions = { leaseName: 'web-operator', leaseNamespace: 'operators', onLost: 'standby' };
 * const operator = new Operator({ kubeConfig, leaderElection });
 * ```
 */
export interface OperatorLeaderElectionOptions extends LeaderElectionTiming {
  /** Name of the Lease (one per operator, shared by its replicas). */
  readonly leaseName: string;
  /** Namespace of the Lease, usually the operator's own (the Downward API's `metadata.namespace`). */
  readonly leaseNamespace: string;
  /**
   * What a replica does when it loses the lease it held (could not renew before the renew
   * deadline, or found another holder). It has stopped dispatching already either way.
   * - `'exit'`: stop the operator (bounded by 5 s) and exit the process with code 1, as JOSDK
   *   does; the Deployment restarts it as a fresh candidate with fresh caches.
   * - `'standby'`: stay a warm candidate and lead again when the lease is free.
   * - a function: called with the status; the operator stays a stopped candidate.
   *
   * Only leader-elected controllers stop; with `sharding` too, sharded and every-replica
   * controllers go on, until `'exit'` stops the process (releasing its shards to the others, as
   * controller-runtime's manager exits with all its runnables).
   *
   * Defaults to `'exit'`.
   */
  readonly onLost?: 'exit' | 'standby' | ((status: LeaderElectionStatus) => void);
}

/** {@link OperatorLeaderElectionOptions}' keys and value checks. */
export const OPERATOR_LEADER_ELECTION_OPTIONS = defineOptions<OperatorLeaderElectionOptions>('leaderElection', {
  ...LEADER_ELECTION_TIMING_OPTIONS.properties,
  leaseName: Type.Unknown(),
  leaseNamespace: Type.Unknown(),
  onLost: Type.Optional(Type.Unknown()),
});
