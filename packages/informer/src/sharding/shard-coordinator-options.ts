import type { Clock, OptionKeysOf, ShardField, ShardMap } from '@kindex/core';
import { LEASE_TIMING_KEYS, type LeaseTiming } from '../lease/lease-timing.js';
import type { ShardLeaseStore } from './shard-lease-store.js';

/**
 * Options of {@link ShardCoordinator}.
 *
 * @example
 * ```ts
 * import type { ShardCoordinatorOptions, ShardLeaseStore } from '@kindex/informer';
 * declare const store: ShardLeaseStore;
 *
 * // A shorter lease than client-go's default: faster takeover, more writes.
 * const options: ShardCoordinatorOptions = { group: 'jobs', shards: 8, identity: 'replica-a', store, leaseDurationMs: 6_000, renewDeadlineMs: 4_000, retryPeriodMs: 1_000 };
 * ```
 */
export interface ShardCoordinatorOptions extends LeaseTiming {
  /** Prefix of the lease names (`<group>-shard-<i>`, `<group>-member-<hash>`, `<group>-map`). */
  readonly group: string;
  /** How many shards the hash space is cut into; fixed for the life of the group. */
  readonly shards: number;
  /** Where the leases live. */
  readonly store: ShardLeaseStore;
  /** This replica's name in `holderIdentity`; unique per replica (for example the pod name). */
  readonly identity: string;
  /**
   * Called after a shard stopped being owned for a rebalance and before its lease is released:
   * resolve once work on the shard has drained. Defaults to resolving at once.
   */
  readonly onRelease?: (shard: number) => Promise<void>;
  /** Time source. Defaults to a monotonic clock. */
  readonly clock?: Clock;
  /** The field the shard map hashes. Defaults to `object.metadata.namespace`. */
  readonly field?: ShardField;
  /**
   * The values of `field` present (for namespace sharding: the namespace names), read every 5 rounds
   * by the owner of shard 0 to cut a balanced map. Defaults to none: equal slices, which suit
   * random values such as uids.
   */
  readonly population?: () => Promise<readonly string[]>;
  /**
   * Called when this replica switches from map `previous` to `next`, after it stopped starting
   * reconciles of the values that moved: resolve once those running have drained. Defaults to
   * resolving at once.
   */
  readonly onMapChange?: (previous: ShardMap, next: ShardMap) => Promise<void>;
}

/** The keys of {@link ShardCoordinatorOptions}: unknown ones are rejected, not ignored. */
export const SHARD_COORDINATOR_OPTION_KEYS = {
  group: true,
  shards: true,
  store: true,
  identity: true,
  ...LEASE_TIMING_KEYS,
  onRelease: true,
  clock: true,
  field: true,
  population: true,
  onMapChange: true,
} as const satisfies OptionKeysOf<ShardCoordinatorOptions>;
