import { type Clock, type ShardField, type ShardMap } from '@kindex/core';
import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';
import { LEASE_TIMING_OPTIONS, type LeaseTiming } from '../lease/lease-timing.js';
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

/** The `field` option: the two fields a shard selector can hash. */
const SHARD_FIELD_SCHEMA = Type.Union([Type.Literal('object.metadata.namespace'), Type.Literal('object.metadata.uid')], {
  description: "'object.metadata.namespace' or 'object.metadata.uid'",
});

/**
 * {@link ShardCoordinatorOptions}' keys and value checks; `shards`, `identity` and the lease
 * timing keep the constructor's checks, which know how they bound each other.
 */
export const SHARD_COORDINATOR_OPTIONS = defineOptions<ShardCoordinatorOptions>('ShardCoordinator options', {
  group: Type.String({ minLength: 1, description: 'the name shared by all replicas, such as my-operator' }),
  shards: Type.Unknown(),
  store: Type.Unknown(),
  identity: Type.Unknown(),
  ...LEASE_TIMING_OPTIONS.properties,
  onRelease: Type.Optional(Type.Function([Type.Number()], Type.Unknown(), { description: 'a function of a shard returning a promise' })),
  clock: Type.Optional(Type.Unknown()),
  field: Type.Optional(SHARD_FIELD_SCHEMA),
  population: Type.Optional(Type.Function([], Type.Unknown(), { description: 'a function returning a promise of the values present' })),
  onMapChange: Type.Optional(
    Type.Function([Type.Unknown(), Type.Unknown()], Type.Unknown(), {
      description: 'a function of the previous and next maps returning a promise',
    }),
  ),
});
