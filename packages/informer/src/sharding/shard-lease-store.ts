import type { Lease, LeaseSpec } from '../lease/lease.js';

/**
 * The API a {@link ShardCoordinator} uses on its group of Leases (one per shard, one per
 * replica): list them all, create one, and replace one with a resourceVersion precondition.
 *
 * Contract: `create` and `update` throw `LeaseConflictError` when they lose a race (the lease
 * exists already; its resourceVersion moved on); any other error is a failed call.
 *
 * @example
 * ```ts
 * import { ShardCoordinator, type ShardLeaseStore } from '@kindex/informer';
 * declare const inMemoryLeases: ShardLeaseStore; // a test double with the same contract
 *
 * // Property tests drive the ownership algorithm on a store like this, with a fake clock.
 * const coordinator = new ShardCoordinator({ group: 'g', shards: 4, identity: 'r1', store: inMemoryLeases });
 * ```
 */
export interface ShardLeaseStore {
  /** Where the leases live, for messages (for example `ops/my-operator`). */
  readonly description: string;
  /** Every lease of the group. */
  list(): Promise<readonly Lease[]>;
  /** Creates the lease `name`, with `annotations` if given. */
  create(name: string, spec: LeaseSpec, annotations?: Readonly<Record<string, string>>): Promise<Lease>;
  /**
   * Replaces the spec of `current` if its resourceVersion is still the server's; `annotations`
   * are set over the lease's own (the shard map, a holder's map epoch).
   */
  update(current: Lease, spec: LeaseSpec, annotations?: Readonly<Record<string, string>>): Promise<Lease>;
}
