import { ShardMap, type ShardField } from '@kindex/core';
import type { Lease } from '../lease/lease.js';
import type { HeldShards } from './held-shards.js';
import { ackedEpoch, readShardMap } from './shard-map-lease.js';
import type { ShardLoss } from './shard-ownership.js';
import { ShardingConfigError } from './sharding-config-error.js';

/** @internal What a {@link ShardMapFollower} needs of its coordinator. */
export interface ShardMapFollowerOptions {
  readonly group: string;
  readonly identity: string;
  readonly shards: number;
  readonly field: ShardField;
  /** The name of the Lease that carries the map. */
  readonly mapLeaseName: string;
  /** The name of shard `i`'s Lease. */
  readonly shardLeaseName: (i: number) => string;
  /** Resolves once the reconciles of the values that moved from `previous` to `next` have drained. */
  readonly onMapChange: (previous: ShardMap, next: ShardMap) => Promise<void>;
  /** Reports a problem (a map that does not parse or does not fit the group). */
  readonly problems: (error: unknown) => void;
  /** Wakes the coordinator's loop, to write a new ack at once. */
  readonly wake: () => void;
}

/**
 * @internal One replica's side of a shard map change (see the module comment of
 * shard-coordinator.ts): it adopts a newer map published on the `<group>-map` Lease, acks it once
 * the values that moved have drained, notes which held shards a list confirmed on the current
 * epoch and whether every holder switched, and answers from that which values this replica may
 * reconcile and write for right now.
 */
export class ShardMapFollower {
  /** The map followed, and the one published before it (tells which values did not move). */
  #map: ShardMap;
  #previous: ShardMap | undefined;
  /** The map epoch written on our shard leases: the last map whose moved values have drained. */
  #acked = 0;
  #mapChanges: Promise<void> = Promise.resolve();
  #settled = true;
  #roundsSinceCheck = 0;

  constructor(private readonly options: ShardMapFollowerOptions) {
    this.#map = ShardMap.equal(options.field, options.shards);
  }

  /** The map followed now. */
  get map(): ShardMap {
    return this.#map;
  }

  /** The epoch of the last map whose moved values drained here (written on our shard leases). */
  get acked(): number {
    return this.#acked;
  }

  /** Whether every shard holder switched to the map (no change under way). */
  get settled(): boolean {
    return this.#settled;
  }

  /** Whether a held shard whose lease was confirmed at `confirmed` may reconcile its values now. */
  isReady(confirmed: number | undefined): boolean {
    const epoch = this.#map.epoch;
    return confirmed === epoch || (!this.#settled && confirmed === epoch - 1);
  }

  /** Whether the owner of shard 0 reads the population this round: every round until a map exists, then every few. */
  populationCheckDue(): boolean {
    if (this.#map.epoch > 0 && ++this.#roundsSinceCheck < REBALANCE_CHECK_ROUNDS) return false;
    this.#roundsSinceCheck = 0;
    return true;
  }

  /** Adopts a newer published map, and notes which held shards are confirmed and whether the change has settled. */
  follow(byName: ReadonlyMap<string, Lease>, held: HeldShards): void {
    let published: ReturnType<typeof readShardMap>;
    try {
      published = readShardMap(byName.get(this.options.mapLeaseName));
    } catch (error) {
      this.options.problems(error);
      return;
    }
    const listedEpoch = published?.map.epoch ?? 0;
    if (published !== undefined && published.map.epoch > this.#map.epoch) {
      const { map: next, previous } = published;
      if (next.field !== this.options.field || next.shards !== this.options.shards) {
        this.options.problems(
          new ShardingConfigError(
            'shards',
            this.options.shards,
            `lease ${this.options.mapLeaseName} holds a map of ${next.shards} shards by ${next.field}; every replica of group ${this.options.group} needs the same shards and field`,
          ),
        );
        return;
      }
      const before = this.#map;
      this.#previous = previous;
      this.#map = next;
      // Ack only once the values that moved have drained; wake the loop to write it at once.
      this.#mapChanges = this.#mapChanges
        .then(() => this.options.onMapChange(before, next))
        .catch((error: unknown) => this.options.problems(error))
        .then(() => {
          this.#acked = Math.max(this.#acked, next.epoch);
          this.options.wake();
        });
    }
    let settled = true;
    for (let shard = 0; shard < this.options.shards; shard++) {
      const name = this.options.shardLeaseName(shard);
      const lease = byName.get(name);
      if (lease === undefined) continue;
      const ack = ackedEpoch(lease);
      const mine = lease.spec?.holderIdentity === this.options.identity;
      const record = held.get(shard);
      if (record !== undefined && mine) {
        if (ack === listedEpoch && listedEpoch === this.#map.epoch) record.confirmed = ack;
        else if (record.confirmed !== undefined && record.confirmed < this.#map.epoch - 1) record.confirmed = undefined;
      }
      // Any holder counts, live or not: a holder whose lease looks expired here may still land a
      // renewal sent on its older map; only a takeover (or a release) clears its old ack.
      if ((lease.spec?.holderIdentity ?? '') !== '' && ack < this.#map.epoch) settled = false;
    }
    this.#settled = settled;
  }

  /** See `ShardCoordinator.ownsHash`. */
  ownsHash(hash: string, held: HeldShards): boolean {
    const shard = this.#map.shardOfHash(hash);
    if (!held.owns(shard)) return false;
    const confirmed = held.get(shard)!.confirmed;
    const epoch = this.#map.epoch;
    if (confirmed === epoch && this.#settled) return true;
    if (confirmed !== epoch && confirmed !== epoch - 1) return false;
    // Mid-change: only what stayed in this shard, which no other replica may own.
    const previous = this.#previous;
    return previous !== undefined && previous.epoch === epoch - 1 && previous.shardOfHash(hash) === shard;
  }

  /** See `ShardCoordinator.belongsTo`. */
  belongsTo(hash: string, shard: number): boolean {
    if (this.#map.shardOfHash(hash) === shard) return true;
    return this.#acked < this.#map.epoch && this.#previous?.shardOfHash(hash) === shard;
  }

  /** See `ShardCoordinator.writeRefusalOfHash`. */
  writeRefusalOfHash(hash: string, held: HeldShards): ShardLoss | undefined {
    const shard = this.#map.shardOfHash(hash);
    const refusal = held.writeRefusal(shard);
    if (refusal === undefined) return undefined;
    const before = this.#previous?.shardOfHash(hash);
    if (before === undefined || before === shard || !this.belongsTo(hash, before)) return refusal;
    // Still ours to drain under the map before, if we hold or drain its old shard.
    const old = held.writeRefusal(before);
    if (old === undefined) return undefined;
    // Name the shard that was ours (its deadline lapsed) rather than one we never held.
    return refusal.reason === 'moved' && old.reason === 'renew-deadline' ? old : refusal;
  }
}

/**
 * Rounds between two reads of the population by the owner of shard 0 once a map exists: a
 * namespace list every 5 rounds (10 s at the default retry period) keeps the cost of following
 * namespaces small, and a map moves only past the load bound anyway.
 */
const REBALANCE_CHECK_ROUNDS = 5;
