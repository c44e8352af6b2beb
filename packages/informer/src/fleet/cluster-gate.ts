import { NEVER, type Observable } from 'rxjs';
import { fnv1a64Hex } from '@kindex/core/internal';
import { NotLeaderError } from '../leader-election/leader-election-errors.js';
import type { ShardOwnership } from '../sharding/shard-ownership.js';

/**
 * @internal Which engaged clusters this replica runs now, and the fence of their writes: the
 * fleet's counterpart of a controller's distribution. A cluster the gate refuses is not run here
 * (its caches are not even started); one it stops admitting is disengaged, its reconciles aborted
 * with the refusal.
 */
export interface ClusterGate {
  /** Why this replica may not run `cluster` now, or undefined when it may. */
  refusal(cluster: string): Error | undefined;
  /**
   * Why this replica, running the clusters' caches, may not reconcile nor write now (a warm
   * standby), or undefined when it may. Absent: never held back.
   */
  standby?(): Error | undefined;
  /** Emits when the answers may have changed. */
  readonly changes$: Observable<unknown>;
}

/** @internal The parts of the leader elector a fleet follows. */
export interface FleetElector {
  readonly isLeader: boolean;
  readonly identity: string;
  readonly lease: string;
  readonly isLeader$: Observable<boolean>;
}

/** @internal The parts of the shard coordinator a fleet follows. */
export interface FleetShards {
  readonly identity: string;
  readonly shards: number;
  readonly ownership: ShardOwnership;
  readonly ownership$: Observable<ShardOwnership>;
}

/** @internal Every replica runs every cluster. */
export const everyReplica: ClusterGate = { refusal: () => undefined, changes$: NEVER };

/**
 * @internal Only the leader reconciles the fleet: one operator, one lease, whatever the number of
 * clusters. Every replica engages the clusters and keeps their caches warm, as leader-elected
 * controllers do (controller-runtime starts caches whatever the leadership): a new leader
 * reconciles at once instead of listing every cluster first.
 */
export function leaderElected(elector: FleetElector): ClusterGate {
  return {
    refusal: () => undefined,
    standby: () => (elector.isLeader ? undefined : new NotLeaderError(elector.identity, elector.lease)),
    changes$: elector.isLeader$,
  };
}

/**
 * @internal The shard of a cluster: the low bits of the FNV-1a hash of its name, modulo the shards. Not the
 * shard map's ranges of the high bits, balanced for the namespaces it was built from: names that
 * differ in their last characters (`eu-1`, `eu-2`) share their high bits and would all land in
 * one shard, while the low bits tell them apart.
 */
export function clusterShard(cluster: string, shards: number): number {
  return parseInt(fnv1a64Hex(cluster).slice(-8), 16) % shards;
}

/**
 * @internal Clusters spread over the replicas by the operator's shards (its Leases and their
 * owners): the replica owning a cluster's {@link clusterShard} runs it.
 */
export function sharded(shards: FleetShards): ClusterGate {
  return {
    refusal: (cluster) => {
      const shard = clusterShard(cluster, shards.shards);
      if (shards.ownership.owned.includes(shard)) return undefined;
      return new Error(`cluster ${cluster} belongs to shard ${shard}, which replica ${shards.identity} does not own now`);
    },
    changes$: shards.ownership$,
  };
}

/** @internal The gate of a fleet registered with `distribution` on an operator with these mechanisms. */
export function gateFor(
  distribution: 'leader-elected' | 'sharded' | 'every-replica',
  elector: FleetElector | undefined,
  shards: FleetShards | undefined,
): ClusterGate {
  if (distribution === 'leader-elected' && elector !== undefined) return leaderElected(elector);
  if (distribution === 'sharded' && shards !== undefined) return sharded(shards);
  return everyReplica;
}
