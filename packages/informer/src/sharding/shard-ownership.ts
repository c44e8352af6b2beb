import type { ShardMap } from '@kindex/core';

/**
 * What a replica sees of the group.
 *
 * @example
 * ```ts
 * import type { ShardCoordinator, ShardOwnership } from '@kindex/informer';
 * declare const coordinator: ShardCoordinator;
 *
 * const report = ({ owned, liveReplicas }: ShardOwnership) => console.log(`owns ${owned.join(',')} of ${liveReplicas} replicas`);
 * coordinator.ownership$.subscribe(report);
 * ```
 */
export interface ShardOwnership {
  /** The shards this replica owns now, ascending. */
  readonly owned: readonly number[];
  /** Live replicas seen in the last round (this one included). */
  readonly liveReplicas: number;
  /** The shard map this replica follows (the hash ranges of each shard). */
  readonly map: ShardMap;
  /**
   * The owned shards whose values this replica reconciles now: held since a list confirmed the
   * map's epoch. While `settled` is false, only values that did not move in the last map change.
   */
  readonly ready: readonly number[];
  /** Whether every shard holder switched to `map` (no map change under way). */
  readonly settled: boolean;
}

/**
 * A shard this replica stopped owning without handing it over.
 *
 * @example
 * ```ts
 * import type { ShardCoordinator, ShardLoss } from '@kindex/informer';
 * declare const coordinator: ShardCoordinator;
 *
 * coordinator.lost$.subscribe(({ shard, reason }: ShardLoss) => console.warn(`lost shard ${shard}: ${reason}`));
 * ```
 */
export interface ShardLoss {
  readonly shard: number;
  /**
   * `renew-deadline`: no renewal succeeded within `renewDeadlineMs` (the API server is slow or
   * unreachable, or this process was paused); ownership resumes if a later renewal finds the
   * lease still ours. `moved`: the lease has another holder or changed under us.
   */
  readonly reason: 'renew-deadline' | 'moved';
}
