import type { ShardLoss } from './shard-ownership.js';

/**
 * The reason a running reconcile's signal (`context.getSignal()`) is aborted when this replica
 * loses the shard of its primary without a handover: its lease could not be renewed before the
 * renew deadline, or another replica holds it now. Another replica may reconcile the primary
 * once the lease expires, so stop writing; the attempt counts as failed and, should the shard
 * come back, is retried. Every write the reconcile makes through its client (`context.getClient()`,
 * dependents, the primary's status, resource and finalizer) throws it too, without being sent,
 * from the moment the renew deadline has passed by the local clock: even before the signal is
 * aborted, as when the process resumes from a pause.
 *
 * @example
 * ```ts
 * import { UpdateControl, type KubernetesObject, type Reconciler } from '@kindex/core';
 * import { ShardLostError, type KubeClient } from '@kindex/informer';
 *
 * const reconciler: Reconciler<KubernetesObject, KubeClient> = {
 *   reconcile: async (primary, context) => {
 *     const signal = context.getSignal();
 *     await new Promise((resolve) => setTimeout(resolve, 1_000)); // slow work
 *     if (signal.reason instanceof ShardLostError) console.warn(`stopping: ${signal.reason.message}`);
 *     signal.throwIfAborted();
 *     return UpdateControl.noUpdate();
 *   },
 * };
 * ```
 */
export class ShardLostError extends Error {
  override readonly name = 'ShardLostError';
  readonly code = 'KINDEX_SHARD_LOST';
  readonly shard: number;
  readonly reason: ShardLoss['reason'];

  constructor(
    readonly group: string,
    readonly identity: string,
    loss: ShardLoss,
  ) {
    const why =
      loss.reason === 'moved'
        ? 'its lease has another holder'
        : 'its lease was not renewed within the renew deadline (the API server is slow or unreachable, or the process was paused)';
    super(
      `replica ${JSON.stringify(identity)} lost shard ${loss.shard} of ${JSON.stringify(group)}: ${why}; reconciles of its primaries are aborted and their writes refused`,
    );
    this.shard = loss.shard;
    this.reason = loss.reason;
  }
}
