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
 * The files, by job: this one runs the rounds (membership, renew, release, acquire, publish a
 * map); held-shards.ts is the fencing ledger (which shards are owned or draining, until when);
 * shard-map-follower.ts follows map changes and answers which values may be reconciled;
 * fair-share.ts splits the shards; shard-map-lease.ts is the map's wire format. What leader
 * election shares (timing rules, claim and release specs, expiry by our own clock, the Lease
 * client and its conflict mapping) lives in lease/.
 *
 * @module
 */
import { BehaviorSubject, Subject, distinctUntilChanged, type Observable } from 'rxjs';
import { ShardMap, type Clock, type ShardField, type TimerHandle } from '@kindex/core';
import { fnv1a64Hex } from '@kindex/core/internal';
import { microTime } from '../client/micro-time.js';
import { checkHolderIdentity } from '../lease/holder-identity.js';
import type { Lease, LeaseSpec } from '../lease/lease.js';
import { claimSpec, releaseSpec } from '../lease/lease-claim.js';
import { unlessConflict } from '../lease/lease-conflict-error.js';
import { LeaseSightings } from '../lease/lease-sightings.js';
import { resolveLeaseTiming, type LeaseTimingRules } from '../lease/lease-timing.js';
import { monotonicClock } from '../lease/monotonic-clock.js';
import { fairShare } from './fair-share.js';
import { HeldShards } from './held-shards.js';
import { ShardMapFollower } from './shard-map-follower.js';
import { SHARD_COORDINATOR_OPTIONS, type ShardCoordinatorOptions } from './shard-coordinator-options.js';
import type { ShardLeaseStore } from './shard-lease-store.js';
import { SHARD_EPOCH_ANNOTATION, shardMapAnnotations } from './shard-map-lease.js';
import type { ShardLoss, ShardOwnership } from './shard-ownership.js';
import { ShardingConfigError } from './sharding-config-error.js';

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
  readonly #sightings: LeaseSightings;
  /** The shards held and drained, and until when each may be acted on. */
  readonly #held: HeldShards;
  readonly #population: (() => Promise<readonly string[]>) | undefined;
  /** The map followed, the one before it, and how far the change to it has got. */
  readonly #mapFollower: ShardMapFollower;
  readonly #memberName: string;
  #member: Lease | undefined;
  #live = 1;
  #timer: TimerHandle | undefined;
  #wake: (() => void) | undefined;
  #loop: Promise<void> | undefined;
  #stopping = false;

  constructor(options: ShardCoordinatorOptions) {
    SHARD_COORDINATOR_OPTIONS.check(options);
    this.#clock = options.clock ?? monotonicClock;
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
    this.#held = new HeldShards(this.#clock, this.renewDeadlineMs, () => this.#publish());
    this.group = options.group;
    this.#store = options.store;
    this.#onRelease = options.onRelease ?? (() => Promise.resolve());
    this.field = options.field ?? 'object.metadata.namespace';
    this.#population = options.population;
    this.#mapFollower = new ShardMapFollower({
      group: this.group,
      identity: this.identity,
      shards: this.shards,
      field: this.field,
      mapLeaseName: this.mapLeaseName,
      shardLeaseName: (i) => this.shardLeaseName(i),
      onMapChange: options.onMapChange ?? (() => Promise.resolve()),
      problems: (error) => this.#problems.next(error),
      wake: () => this.#wake?.(),
    });
    this.#memberName = `${this.group}-member-${fnv1a64Hex(this.identity)}`;
    this.#ownership = new BehaviorSubject<ShardOwnership>({
      owned: [],
      liveReplicas: 1,
      map: this.#mapFollower.map,
      ready: [],
      settled: true,
    });
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
    this.lost$ = this.#held.lost$;
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
    return this.#mapFollower.map;
  }

  /**
   * Whether this replica may reconcile, right now, the objects whose `field` hashes to `hash` (16
   * lowercase hex digits): it owns their shard under its map, and no other replica may still
   * reconcile them under the map before (see the module comment). Check it synchronously before
   * every reconcile; {@link owns} alone is not enough while a map change is under way.
   */
  ownsHash(hash: string): boolean {
    return this.#mapFollower.ownsHash(hash, this.#held);
  }

  /**
   * Whether work on `hash` counts as work of `shard` here: its shard under the map, or, while
   * this replica still drains a map change, under the map before. Aborting a lost shard's work
   * or draining a released one must include both: the new owner of a value that moved waits for
   * this replica's leases, not for a shard it no longer holds.
   */
  belongsTo(hash: string, shard: number): boolean {
    return this.#mapFollower.belongsTo(hash, shard);
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
    return this.#held.owns(shard);
  }

  /**
   * Why this replica may not write on behalf of `shard`'s primaries right now, or undefined when
   * it may: it owns the shard, or is draining it for a handover (writes of the reconciles being
   * drained still count, until the deadline of its last renewal). Read from the clock, not from
   * a timer: a process paused past its deadline is refused on its first write after resuming,
   * before the timer announcing the loss on {@link lost$} has run.
   */
  writeRefusal(shard: number): ShardLoss | undefined {
    return this.#held.writeRefusal(shard);
  }

  /**
   * {@link writeRefusal} for a reconcile of the objects whose `field` hashes to `hash`: refused
   * unless one of the shards it {@link belongsTo} here may still be written for. While a map
   * change drains, a value that moved away is still this replica's to finish (its new owner waits
   * for our ack); once acked, only its shard under the current map counts.
   */
  writeRefusalOfHash(hash: string): ShardLoss | undefined {
    return this.#mapFollower.writeRefusalOfHash(hash, this.#held);
  }

  /** The shards owned now (each passing {@link owns}), ascending. */
  owned(): number[] {
    return this.#held.owned();
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
    const held = this.#held.clear();
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
    this.#mapFollower.follow(byName, this.#held);
    return byName;
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
    const share = fairShare(this.shards, members, this.#memberName);

    // Renew what is held; a lease that moved on (another holder, a lost race) is lost at once.
    for (const [shard, held] of this.#held.entries()) {
      if (this.#stopping) return;
      const current = byName.get(this.shardLeaseName(shard));
      if (current === undefined || current.spec?.holderIdentity !== this.identity) {
        this.#held.lose(shard);
        continue;
      }
      const sentAt = this.#clock.now();
      try {
        const written = await unlessConflict(() => this.#store.update(current, this.#spec(current.spec, sentAt), this.#ack()));
        if (written === undefined) this.#held.lose(shard);
        else this.#held.renewed(shard, written, sentAt, held);
      } catch (error) {
        this.#problems.next(error);
      }
    }
    this.#publish();

    // Above the fair share: give the highest shards back, after they stopped being owned.
    const extra = this.#held
      .entries()
      .map(([shard]) => shard)
      .sort((a, b) => b - a)
      .slice(0, Math.max(0, this.#held.size - share));
    for (const shard of extra) {
      if (this.#stopping) return;
      const lease = this.#held.startDraining(shard);
      this.#publish();
      try {
        await this.#onRelease(shard);
      } finally {
        // Before the release: once the holder is empty, the next owner may write at once.
        this.#held.doneDraining(shard);
      }
      await this.#release(lease);
    }

    // Below it: take free or abandoned shards, starting at a point of our own to spread contention.
    const start = parseInt(fnv1a64Hex(this.identity).slice(0, 8), 16) % this.shards;
    for (let k = 0; k < this.shards && this.#held.size < share; k++) {
      if (this.#stopping) return;
      const shard = (start + k) % this.shards;
      if (this.#held.get(shard) !== undefined) continue;
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
        this.#held.acquired(shard, written, sentAt);
        this.#publish();
      } catch (error) {
        this.#problems.next(error);
      }
    }

    // Held shards written with the current epoch but not confirmed yet: one more list confirms
    // them now rather than a round later (a fresh owner reconciles nothing until then).
    const epoch = this.#mapFollower.map.epoch;
    if (this.#mapFollower.acked === epoch && this.#held.entries().some(([, h]) => h.confirmed !== epoch)) {
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
    const current = this.#mapFollower.map;
    if (this.#population === undefined || this.#stopping || !this.#mapFollower.settled || this.#mapFollower.acked !== current.epoch) return;
    if (!this.owns(0) || this.#held.get(0)?.confirmed !== current.epoch) return;
    if (!this.#mapFollower.populationCheckDue()) return;
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
    return { [SHARD_EPOCH_ANNOTATION]: String(this.#mapFollower.acked) };
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

  /** The spec that claims or renews a lease whose spec is `current` for this replica. */
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

  #publish(): void {
    this.#held.armDeadline();
    if (this.#ownership.closed) return;
    const owned = this.owned();
    const follower = this.#mapFollower;
    this.#ownership.next({
      owned,
      liveReplicas: this.#live,
      map: follower.map,
      ready: owned.filter((shard) => follower.isReady(this.#held.get(shard)?.confirmed)),
      settled: follower.settled,
    });
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
