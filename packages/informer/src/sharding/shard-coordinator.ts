/**
 * The sharding stage: N replicas of an operator split the primaries, each caching and
 * reconciling only its share (JOSDK passes a shard selector through but leaves ownership to the
 * user; controller-runtime has nothing).
 *
 * The hash space is cut into `shards` shards (by the shard map below); each shard has a Lease
 * `<group>-shard-<i>`, and each replica renews a membership Lease `<group>-member-<hash>`.
 * Every `retryPeriodMs` a replica lists the group's leases, counts the live members, and:
 * - renews the shards it holds, and its membership;
 * - releases shards above its fair share (`floor(shards / live)`, plus one for the first
 *   `shards mod live` members by lease name, so the shares add up) when a replica joined: it stops
 *   owning them first, waits for `onRelease` (the caller drains in-flight work), then empties
 *   their holder, so the next owner starts at once;
 * - takes free shards, and shards whose holder has not renewed for `leaseDurationMs` as measured
 *   by its OWN clock since it saw the lease change (a replica died), up to its fair share.
 *
 * Safety is the leader elector's, per shard: ownership lasts `renewDeadlineMs` after the last
 * renewal was sent and is checked synchronously ({@link ShardCoordinator.owns}); nobody else may
 * take the shard before `leaseDurationMs` > `renewDeadlineMs` has passed since it saw that
 * renewal; every write carries the resourceVersion read, so two replicas never both win a race.
 * Writes on behalf of a shard's primaries check {@link ShardCoordinator.writeRefusal}, read from
 * the clock as each is sent, so a process that resumes from a pause past its deadline writes
 * nothing even before its timers have run.
 * A shard is therefore owned by at most one replica at any instant. A shard lost without a
 * handover (the deadline passed, by a timer of its own even while a lease call hangs, or the
 * lease moved to another holder) is announced on {@link ShardCoordinator.lost$} at once, so work
 * still running on it can be aborted before anyone else may take the shard.
 *
 * Which hashes make up a shard is a {@link ShardMap}: equal slices (epoch 0) until, given a
 * `population` (the namespace names present), the owner of shard 0 publishes one cut at the
 * quantiles of their hashes on the Lease `<group>-map`, and a newer one when the load passes
 * {@link ShardMap.needsRebalance}'s bound. A map change is a rebalance of values, made as safe as
 * one of shards (see shard-map-lease.ts): on adopting epoch `e` a replica stops reconciling the
 * values that moved, waits for `onMapChange` to drain them, then writes `e` on its shard Leases;
 * a moved value is reconciled by its new owner ({@link ShardCoordinator.ownsHash}) only once
 * every shard Lease with a holder says `e` (an expired one too, until it is taken over: its
 * holder may yet land a renewal sent on the older map), and a holder counts its own write only
 * after a later list showed the map still at `e` (a replica that acquired a shard on a stale view
 * of the map must not reconcile by it). Values that did not move are reconciled throughout.
 *
 * @module
 */
import { BehaviorSubject, Subject, distinctUntilChanged, type Observable } from 'rxjs';
import { ShardMap, fnv1a64Hex, rejectUnknownOptions, type Clock, type OptionKeysOf, type ShardField, type TimerHandle } from '@kindex/core';
import { checkHolderIdentity } from '../lease/holder-identity.js';
import type { Lease, LeaseSpec } from '../lease/lease.js';
import { claimSpec, releaseSpec } from '../lease/lease-claim.js';
import { unlessConflict } from '../lease/lease-conflict-error.js';
import { LeaseSightings } from '../lease/lease-sightings.js';
import { LEASE_TIMING_KEYS, resolveLeaseTiming, type LeaseTiming, type LeaseTimingRules } from '../lease/lease-timing.js';
import { monotonicClock } from '../lease/monotonic-clock.js';
import { ShardingConfigError } from './sharding-config-error.js';
import type { ShardLeaseStore } from './shard-lease-store.js';
import { SHARD_EPOCH_ANNOTATION, ackedEpoch, readShardMap, shardMapAnnotations } from './shard-map-lease.js';
import { microTime } from '../client/micro-time.js';

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

/**
 * One replica's share of a sharded operator, kept on Leases.
 *
 * @example
 * ```ts
 * import { KubeShardLeaseStore, ShardCoordinator, type Controller, type KubeClient } from '@kindex/informer';
 * declare const client: KubeClient;
 * declare const controller: Controller;
 * declare const namespaceNames: () => Promise<string[]>;
 *
 * // By hand what the Operator's sharding option does: follow ownership, under the shard map, with the controller's caches;
 * // reconcile a primary only while coordinator.ownsValue(its namespace) says so.
 * const store = new KubeShardLeaseStore(client, { name: 'jobs', namespace: 'ops' });
 * const coordinator = new ShardCoordinator({ group: 'jobs', shards: 8, identity: process.env['POD_NAME'] ?? 'local', store, population: namespaceNames });
 * coordinator.ownership$.subscribe(({ owned, map }) => {
 *   if (owned.length > 0) void controller.changeShardSelector(map.selectorFor(owned));
 * });
 * await coordinator.start();
 * ```
 */
export class ShardCoordinator {
  /** Prefix of the lease names, shared by all replicas. */
  readonly group: string;
  readonly identity: string;
  readonly shards: number;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  /** Owned shards and live replicas, replayed to new subscribers; emits on change. */
  readonly ownership$: Observable<ShardOwnership>;
  /** The field the shard map hashes. */
  readonly field: ShardField;
  /** Failed calls on the leases (retried next round). */
  readonly problems$: Observable<unknown>;
  /**
   * Shards lost without a handover, as soon as it happens (not at the next round): abort what
   * still runs on them, since another replica may take them over `leaseDurationMs -
   * renewDeadlineMs` later. Shards given back for a rebalance are not lost: they drain first.
   */
  readonly lost$: Observable<ShardLoss>;

  readonly #store: ShardLeaseStore;
  readonly #clock: Clock;
  readonly #onRelease: (shard: number) => Promise<void>;
  readonly #ownership: BehaviorSubject<ShardOwnership>;
  readonly #problems = new Subject<unknown>();
  readonly #lost = new Subject<ShardLoss>();
  /** Held shards whose deadline passed (reported once; a later renewal clears it). */
  readonly #lapsed = new Set<number>();
  #deadlineTimer: TimerHandle | undefined;
  readonly #sightings: LeaseSightings;
  /**
   * Shards held, with the lease as last written, until when ownership lasts, and the map epoch
   * the lease said in a list that showed that same epoch as the map's (see the module comment).
   */
  readonly #held = new Map<number, { lease: Lease; validUntil: number; confirmed: number | undefined }>();
  readonly #population: (() => Promise<readonly string[]>) | undefined;
  readonly #onMapChange: (previous: ShardMap, next: ShardMap) => Promise<void>;
  /** The map followed, and the one published before it (tells which values did not move). */
  #map: ShardMap;
  #previousMap: ShardMap | undefined;
  /** The map epoch written on our shard leases: the last map whose moved values have drained. */
  #acked = 0;
  #mapChanges: Promise<void> = Promise.resolve();
  #roundsSinceCheck = 0;
  #settled = true;
  /** Shards given back for a rebalance and draining, with their last renewal's deadline. */
  readonly #draining = new Map<number, number>();
  readonly #memberName: string;
  #member: Lease | undefined;
  #live = 1;
  #timer: TimerHandle | undefined;
  #wake: (() => void) | undefined;
  #loop: Promise<void> | undefined;
  #stopping = false;

  constructor(options: ShardCoordinatorOptions) {
    rejectUnknownOptions('ShardCoordinator options', options, SHARD_COORDINATOR_OPTION_KEYS);
    this.identity = options.identity;
    checkHolderIdentity(this.identity, configError);
    this.shards = options.shards;
    if (!Number.isInteger(this.shards) || this.shards < 1 || this.shards > 1024) {
      throw new ShardingConfigError('shards', this.shards, 'must be an integer from 1 to 1024');
    }
    ({
      leaseDurationMs: this.leaseDurationMs,
      renewDeadlineMs: this.renewDeadlineMs,
      retryPeriodMs: this.retryPeriodMs,
    } = resolveLeaseTiming(options, TIMING_RULES));
    this.#sightings = new LeaseSightings(this.leaseDurationMs);
    this.group = options.group;
    this.#store = options.store;
    this.#clock = options.clock ?? monotonicClock;
    this.#onRelease = options.onRelease ?? (() => Promise.resolve());
    this.field = options.field ?? 'object.metadata.namespace';
    this.#population = options.population;
    this.#onMapChange = options.onMapChange ?? (() => Promise.resolve());
    this.#map = ShardMap.equal(this.field, this.shards);
    this.#memberName = `${this.group}-member-${fnv1a64Hex(this.identity)}`;
    this.#ownership = new BehaviorSubject<ShardOwnership>({ owned: [], liveReplicas: 1, map: this.#map, ready: [], settled: true });
    this.ownership$ = this.#ownership.pipe(
      distinctUntilChanged(
        (a, b) =>
          a.owned.join() === b.owned.join() &&
          a.liveReplicas === b.liveReplicas &&
          a.map === b.map &&
          a.ready.join() === b.ready.join() &&
          a.settled === b.settled,
      ),
    );
    this.problems$ = this.#problems.asObservable();
    this.lost$ = this.#lost.asObservable();
  }

  /** The name of shard `i`'s lease. */
  shardLeaseName(i: number): string {
    return `${this.group}-shard-${i}`;
  }

  /** The name of the lease that carries the shard map. */
  get mapLeaseName(): string {
    return `${this.group}-map`;
  }

  /** The shard map this replica follows now. */
  get map(): ShardMap {
    return this.#map;
  }

  /**
   * Whether this replica may reconcile, right now, the objects whose `field` hashes to `hash` (16
   * lowercase hex digits): it owns their shard under its map, and no other replica may still
   * reconcile them under the map before (see the module comment). Check it synchronously before
   * every reconcile; {@link owns} alone is not enough while a map change is under way.
   */
  ownsHash(hash: string): boolean {
    const shard = this.#map.shardOfHash(hash);
    if (!this.owns(shard)) return false;
    const confirmed = this.#held.get(shard)!.confirmed;
    const epoch = this.#map.epoch;
    if (confirmed === epoch && this.#settled) return true;
    if (confirmed !== epoch && confirmed !== epoch - 1) return false;
    // Mid-change: only what stayed in this shard, which no other replica may own.
    const previous = this.#previousMap;
    return previous !== undefined && previous.epoch === epoch - 1 && previous.shardOfHash(hash) === shard;
  }

  /**
   * Whether work on `hash` counts as work of `shard` here: its shard under the map, or, while
   * this replica still drains a map change, under the map before. Aborting a lost shard's work
   * or draining a released one must include both: the new owner of a value that moved waits for
   * this replica's leases, not for a shard it no longer holds.
   */
  belongsTo(hash: string, shard: number): boolean {
    if (this.#map.shardOfHash(hash) === shard) return true;
    return this.#acked < this.#map.epoch && this.#previousMap?.shardOfHash(hash) === shard;
  }

  /** {@link ownsHash} of a value of `field` (a namespace name or a uid). */
  ownsValue(value: string): boolean {
    return this.ownsHash(fnv1a64Hex(value));
  }

  /**
   * Whether this replica owns `shard` right now: it holds the lease and renewed it less than
   * `renewDeadlineMs` ago by its own clock. Check it synchronously before every fenced action.
   */
  owns(shard: number): boolean {
    const held = this.#held.get(shard);
    return held !== undefined && this.#clock.now() < held.validUntil;
  }

  /**
   * Why this replica may not write on behalf of `shard`'s primaries right now, or undefined when
   * it may: it owns the shard, or is draining it for a handover (writes of the reconciles being
   * drained still count, until the deadline of its last renewal). Read from the clock, not from
   * a timer: a process paused past its deadline is refused on its first write after resuming,
   * before the timer announcing the loss on {@link lost$} has run.
   */
  writeRefusal(shard: number): ShardLoss | undefined {
    if (this.owns(shard)) return undefined;
    const draining = this.#draining.get(shard);
    if (draining !== undefined && this.#clock.now() < draining) return undefined;
    return { shard, reason: this.#held.has(shard) || draining !== undefined ? 'renew-deadline' : 'moved' };
  }

  /**
   * {@link writeRefusal} for a reconcile of the objects whose `field` hashes to `hash`: refused
   * unless one of the shards it {@link belongsTo} here may still be written for. While a map
   * change drains, a value that moved away is still this replica's to finish (its new owner waits
   * for our ack); once acked, only its shard under the current map counts.
   */
  writeRefusalOfHash(hash: string): ShardLoss | undefined {
    const shard = this.#map.shardOfHash(hash);
    const refusal = this.writeRefusal(shard);
    if (refusal === undefined) return undefined;
    const before = this.#previousMap?.shardOfHash(hash);
    if (before === undefined || before === shard || !this.belongsTo(hash, before)) return refusal;
    // Still ours to drain under the map before, if we hold or drain its old shard.
    const old = this.writeRefusal(before);
    if (old === undefined) return undefined;
    // Name the shard that was ours (its deadline lapsed) rather than one we never held.
    return refusal.reason === 'moved' && old.reason === 'renew-deadline' ? old : refusal;
  }

  /** The shards owned now (each passing {@link owns}), ascending. */
  owned(): number[] {
    return [...this.#held.keys()].filter((s) => this.owns(s)).sort((a, b) => a - b);
  }

  /** The current ownership. */
  get ownership(): ShardOwnership {
    return this.#ownership.value;
  }

  /** Starts the rounds; resolves after the first one. */
  async start(): Promise<void> {
    if (this.#loop !== undefined) throw new Error(`shard coordinator ${this.identity} of ${this.group} started already`);
    await this.#roundReporting();
    this.#loop = this.#run();
  }

  /**
   * Stops: owns nothing at once, then (when `release`, the default) empties the holder of every
   * shard and of its membership, so the survivors take over without waiting out the leases.
   * Call it after the work the shards protect has stopped.
   */
  async stop(options: { release?: boolean } = {}): Promise<void> {
    this.#stopping = true;
    this.#wake?.();
    await this.#loop;
    const held = [...this.#held.values()].map((h) => h.lease);
    this.#held.clear();
    this.#lapsed.clear();
    this.#draining.clear();
    this.#publish();
    if (options.release === false) return;
    await Promise.all([...held, ...(this.#member ? [this.#member] : [])].map((lease) => this.#release(lease)));
  }

  async #run(): Promise<void> {
    while (!this.#stopping) {
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        this.#timer = this.#clock.setTimeout(resolve, this.retryPeriodMs);
      });
      this.#clock.clearTimeout(this.#timer);
      this.#wake = undefined;
      if (this.#stopping) break;
      await this.#roundReporting();
    }
  }

  async #roundReporting(): Promise<void> {
    try {
      await this.#round();
    } catch (error) {
      this.#problems.next(error);
    }
    this.#publish();
  }

  /** Lists the group's leases, notes when each changed, and follows the map they show. */
  async #read(): Promise<Map<string, Lease>> {
    const leases = await this.#store.list();
    const seenAt = this.#clock.now();
    const byName = new Map<string, Lease>();
    for (const lease of leases) {
      const name = lease.metadata?.name;
      if (name === undefined) continue;
      byName.set(name, lease);
      this.#sightings.see(name, lease, seenAt);
    }
    this.#followMap(byName);
    return byName;
  }

  /** Adopts a newer published map, and notes which held shards are confirmed and whether the change has settled. */
  #followMap(byName: ReadonlyMap<string, Lease>): void {
    let published: ReturnType<typeof readShardMap>;
    try {
      published = readShardMap(byName.get(this.mapLeaseName));
    } catch (error) {
      this.#problems.next(error);
      return;
    }
    const listedEpoch = published?.map.epoch ?? 0;
    if (published !== undefined && published.map.epoch > this.#map.epoch) {
      const { map: next, previous } = published;
      if (next.field !== this.field || next.shards !== this.shards) {
        this.#problems.next(
          new ShardingConfigError(
            'shards',
            this.shards,
            `lease ${this.mapLeaseName} holds a map of ${next.shards} shards by ${next.field}; every replica of group ${this.group} needs the same shards and field`,
          ),
        );
        return;
      }
      const before = this.#map;
      this.#previousMap = previous;
      this.#map = next;
      // Ack only once the values that moved have drained; wake the loop to write it at once.
      this.#mapChanges = this.#mapChanges
        .then(() => this.#onMapChange(before, next))
        .catch((error: unknown) => this.#problems.next(error))
        .then(() => {
          this.#acked = Math.max(this.#acked, next.epoch);
          this.#wake?.();
        });
    }
    let settled = true;
    for (let shard = 0; shard < this.shards; shard++) {
      const name = this.shardLeaseName(shard);
      const lease = byName.get(name);
      if (lease === undefined) continue;
      const ack = ackedEpoch(lease);
      const mine = lease.spec?.holderIdentity === this.identity;
      const held = this.#held.get(shard);
      if (held !== undefined && mine) {
        if (ack === listedEpoch && listedEpoch === this.#map.epoch) held.confirmed = ack;
        else if (held.confirmed !== undefined && held.confirmed < this.#map.epoch - 1) held.confirmed = undefined;
      }
      // Any holder counts, live or not: a holder whose lease looks expired here may still land a
      // renewal sent on its older map; only a takeover (or a release) clears its old ack.
      if ((lease.spec?.holderIdentity ?? '') !== '' && ack < this.#map.epoch) settled = false;
    }
    this.#settled = settled;
  }

  async #round(): Promise<void> {
    let byName = await this.#read();
    if (this.#stopping) return;
    // Membership first: the count of live replicas decides the fair share.
    this.#member = await this.#claim(this.#memberName, byName.get(this.#memberName));
    const memberPrefix = `${this.group}-member-`;
    const members = [this.#memberName];
    for (const [name, lease] of byName) {
      if (!name.startsWith(memberPrefix) || name === this.#memberName) continue;
      if (this.#sightings.isHeld(name, lease, this.#clock.now())) members.push(name);
    }
    this.#live = members.length;
    // Exact shares that add up to the shard count: the first `shards mod live` members (by lease
    // name, the same order for everyone) take one more. A plain ceil would let 4 shards settle
    // as 2+2+0 on three replicas.
    members.sort();
    const rank = members.indexOf(this.#memberName);
    const share = Math.floor(this.shards / this.#live) + (rank < this.shards % this.#live ? 1 : 0);

    // Renew what is held; a lease that moved on (another holder, a lost race) is lost at once.
    for (const [shard, held] of [...this.#held]) {
      if (this.#stopping) return;
      const current = byName.get(this.shardLeaseName(shard));
      if (current === undefined || current.spec?.holderIdentity !== this.identity) {
        this.#lose(shard);
        continue;
      }
      const sentAt = this.#clock.now();
      try {
        const written = await unlessConflict(() => this.#store.update(current, this.#spec(current.spec, sentAt), this.#ack()));
        if (written === undefined) {
          this.#lose(shard);
          continue;
        }
        this.#held.set(shard, {
          lease: written,
          validUntil: Math.max(held.validUntil, sentAt + this.renewDeadlineMs),
          confirmed: this.#held.get(shard)?.confirmed,
        });
        this.#lapsed.delete(shard);
      } catch (error) {
        this.#problems.next(error);
      }
    }
    this.#publish();

    // Above the fair share: give the highest shards back, after they stopped being owned.
    const extra = [...this.#held.keys()].sort((a, b) => b - a).slice(0, Math.max(0, this.#held.size - share));
    for (const shard of extra) {
      if (this.#stopping) return;
      const { lease, validUntil } = this.#held.get(shard)!;
      this.#held.delete(shard);
      this.#lapsed.delete(shard);
      this.#draining.set(shard, validUntil);
      this.#publish();
      try {
        await this.#onRelease(shard);
      } finally {
        // Before the release: once the holder is empty, the next owner may write at once.
        this.#draining.delete(shard);
      }
      await this.#release(lease);
    }

    // Below it: take free or abandoned shards, starting at a point of our own to spread contention.
    const start = parseInt(fnv1a64Hex(this.identity).slice(0, 8), 16) % this.shards;
    for (let k = 0; k < this.shards && this.#held.size < share; k++) {
      if (this.#stopping) return;
      const shard = (start + k) % this.shards;
      if (this.#held.has(shard)) continue;
      const name = this.shardLeaseName(shard);
      const current = byName.get(name);
      if (current !== undefined && this.#sightings.isHeld(name, current, this.#clock.now())) continue;
      const sentAt = this.#clock.now();
      try {
        const written = await unlessConflict(() =>
          current === undefined
            ? this.#store.create(name, this.#spec(undefined, sentAt), this.#ack())
            : this.#store.update(current, this.#spec(current.spec, sentAt), this.#ack()),
        );
        if (written === undefined) continue;
        this.#held.set(shard, { lease: written, validUntil: sentAt + this.renewDeadlineMs, confirmed: undefined });
        this.#publish();
      } catch (error) {
        this.#problems.next(error);
      }
    }

    // Held shards written with the current epoch but not confirmed yet: one more list confirms
    // them now rather than a round later (a fresh owner reconciles nothing until then).
    const epoch = this.#map.epoch;
    if (this.#acked === epoch && [...this.#held.values()].some((h) => h.confirmed !== epoch)) {
      if (this.#stopping) return;
      byName = await this.#read();
      this.#publish();
    }
    await this.#rebalance(byName);
  }

  /**
   * The owner of shard 0, once the last map change has settled, publishes a map cut at the
   * quantiles of the population when there is none yet or the load passed the bound.
   */
  async #rebalance(byName: ReadonlyMap<string, Lease>): Promise<void> {
    const current = this.#map;
    if (this.#population === undefined || this.#stopping || !this.#settled || this.#acked !== current.epoch) return;
    if (!this.owns(0) || this.#held.get(0)?.confirmed !== current.epoch) return;
    if (current.epoch > 0 && ++this.#roundsSinceCheck < REBALANCE_CHECK_ROUNDS) return;
    this.#roundsSinceCheck = 0;
    const values = await this.#population();
    if (values.length === 0 || (current.epoch > 0 && !current.needsRebalance(values))) return;
    const next = ShardMap.balanced(this.field, this.shards, values, current.epoch + 1);
    if (current.epoch > 0 && next.sameCuts(current)) return;
    const lease = byName.get(this.mapLeaseName);
    const now = this.#clock.now();
    const spec: LeaseSpec = { holderIdentity: this.identity, acquireTime: microTime(now), renewTime: microTime(now) };
    try {
      // With the resourceVersion read (the lease that showed `current`): a newer map is never overwritten.
      // A lost race means another replica published first: nothing to do.
      await unlessConflict(() =>
        lease === undefined
          ? this.#store.create(this.mapLeaseName, spec, shardMapAnnotations(next, current))
          : this.#store.update(lease, spec, shardMapAnnotations(next, current)),
      );
    } catch (error) {
      this.#problems.next(error);
    }
  }

  /** The annotation that says which map epoch this replica reconciles by. */
  #ack(): Record<string, string> {
    return { [SHARD_EPOCH_ANNOTATION]: String(this.#acked) };
  }

  async #claim(name: string, current: Lease | undefined): Promise<Lease | undefined> {
    const sentAt = this.#clock.now();
    try {
      return current === undefined
        ? await this.#store.create(name, this.#spec(undefined, sentAt))
        : await this.#store.update(current, this.#spec(current.spec, sentAt));
    } catch (error) {
      this.#problems.next(error);
      return this.#member;
    }
  }

  #spec(current: LeaseSpec | undefined, at: number): LeaseSpec {
    return claimSpec(this.identity, this.leaseDurationMs, current, at);
  }

  /** Gives a lease back (see `releaseSpec`) when this replica holds it. */
  async #release(lease: Lease): Promise<void> {
    if (lease.spec?.holderIdentity !== this.identity) return;
    try {
      await this.#store.update(lease, releaseSpec(lease, this.#clock.now()));
    } catch (error) {
      // Moved on (409) or unreachable: the lease expires on its own.
      this.#problems.next(error);
    }
  }

  /** A held shard whose lease moved on: gone now, announced unless its deadline already was. */
  #lose(shard: number): void {
    if (!this.#held.delete(shard)) return;
    if (!this.#lapsed.delete(shard)) this.#lost.next({ shard, reason: 'moved' });
  }

  #publish(): void {
    this.#armDeadline();
    if (this.#ownership.closed) return;
    const owned = this.owned();
    const epoch = this.#map.epoch;
    this.#ownership.next({
      owned,
      liveReplicas: this.#live,
      map: this.#map,
      ready: owned.filter((s) => {
        const confirmed = this.#held.get(s)?.confirmed;
        return confirmed === epoch || (!this.#settled && confirmed === epoch - 1);
      }),
      settled: this.#settled,
    });
  }

  /**
   * Times the earliest deadline of the shards still owned: a round can hang on a lease call far
   * past it (a server that stopped answering), and ownership must end on time anyway.
   */
  #armDeadline(): void {
    if (this.#deadlineTimer !== undefined) this.#clock.clearTimeout(this.#deadlineTimer);
    this.#deadlineTimer = undefined;
    let earliest = Infinity;
    for (const [shard, { validUntil }] of this.#held) if (!this.#lapsed.has(shard) && validUntil < earliest) earliest = validUntil;
    if (earliest === Infinity) return;
    this.#deadlineTimer = this.#clock.setTimeout(
      () => {
        this.#deadlineTimer = undefined;
        const now = this.#clock.now();
        for (const [shard, { validUntil }] of this.#held) {
          if (validUntil > now || this.#lapsed.has(shard)) continue;
          this.#lapsed.add(shard);
          this.#lost.next({ shard, reason: 'renew-deadline' });
        }
        this.#publish();
      },
      Math.max(0, earliest - this.#clock.now()),
    );
  }
}

const configError = (field: string, value: unknown, fix: string): Error => new ShardingConfigError(field, value, fix);

const TIMING_RULES: LeaseTimingRules = {
  holder: 'an owner',
  // Rounds run every retry period, unjittered: a deadline within one would lapse before each renewal.
  retryPeriodsPerDeadline: 1,
  renewDeadlineReason: 'so an owner renews before its ownership lapses',
  configError,
};

/**
 * Rounds between two reads of the population by the owner of shard 0 once a map exists: a
 * namespace list every 5 rounds (10 s at the default retry period) keeps the cost of following
 * namespaces small, and a map moves only past the load bound anyway.
 */
const REBALANCE_CHECK_ROUNDS = 5;
