/**
 * The leader election stage: which of several replicas of an operator reconciles, decided on a
 * `coordination.k8s.io/v1` Lease with client-go's semantics (tools/leaderelection).
 *
 * - A candidate acquires the lease when nobody holds it, or when its holder has not renewed for
 *   `leaseDurationSeconds` as measured by the candidate's OWN clock from the moment it saw the
 *   record change (clocks of different machines are never compared).
 * - The leader renews every `retryPeriodMs`. It stays leader only until `renewDeadlineMs` after
 *   its last successful renewal was sent; past that it stands down at once (fencing), before any
 *   other candidate may take over (`leaseDurationMs` > `renewDeadlineMs`).
 * - Every write is an optimistic-concurrency update carrying the resourceVersion read, so two
 *   candidates racing for a free lease never both win.
 * - On `stop()` the leader empties `holderIdentity` (client-go `ReleaseOnCancel`), so the next
 *   leader starts at once instead of waiting out the lease.
 *
 * Use it through `Operator`'s `leaderElection` option, which also keeps followers' caches warm
 * and pauses dispatching when leadership is lost. Use `LeaderElector` directly for anything else
 * that must run on one replica only.
 *
 * What it shares with sharding lives in lease/: the Lease types, the timing rules, the claim and
 * release specs, expiry measured by our own clock, the Lease client and its 409 mapping. This
 * folder holds the election itself, its narrow `LeaseStore` and `KubeLeaseStore` over lease/'s
 * client, its errors and the `Operator` option.
 *
 * @module
 */
import { BehaviorSubject, distinctUntilChanged, map, Subject, type Observable } from 'rxjs';
import { type Clock, type TimerHandle } from '@kindex/core';
import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';
import { KubeApiError } from '../client/kube-api-error.js';
import { checkHolderIdentity, defaultHolderIdentity } from '../lease/holder-identity.js';
import type { Lease } from '../lease/lease.js';
import { claimSpec, holderOf, releaseSpec } from '../lease/lease-claim.js';
import { unlessConflict } from '../lease/lease-conflict-error.js';
import { LeaseSightings } from '../lease/lease-sightings.js';
import { LEASE_TIMING_OPTIONS, resolveLeaseTiming, type LeaseTiming, type LeaseTimingRules } from '../lease/lease-timing.js';
import { monotonicClock } from '../lease/monotonic-clock.js';
import { LeaderElectionConfigError, LeaderElectionStartError } from './leader-election-errors.js';
import type { LeaseStore } from './lease-store.js';

/**
 * Timing and identity of a candidate (the `Operator` option adds the lease's name).
 *
 * @example
 * ```ts
 * import type { LeaderElectionTiming } from '@kindex/informer';
 *
 * // Fail over faster in a small cluster where the API server answers quickly.
 * const fast: LeaderElectionTiming = { leaseDurationMs: 8_000, renewDeadlineMs: 5_000, retryPeriodMs: 1_000, releaseOnCancel: true };
 * ```
 */
export interface LeaderElectionTiming extends LeaseTiming {
  /** This candidate's name in `holderIdentity`. Defaults to `$POD_NAME` (or the hostname) plus `_` and a random suffix. */
  readonly identity?: string;
  /**
   * Empty `holderIdentity` on `stop()` so the next leader need not wait out the lease. Differs
   * from client-go's default (false) because `Operator.stop()` only releases after in-flight
   * reconciles have drained. Defaults to true.
   */
  readonly releaseOnCancel?: boolean;
}

/** {@link LeaderElectionTiming}'s keys and value checks. */
export const LEADER_ELECTION_TIMING_OPTIONS = defineOptions<LeaderElectionTiming>('leaderElection', {
  ...LEASE_TIMING_OPTIONS.properties,
  identity: Type.Optional(Type.Unknown()),
  releaseOnCancel: Type.Optional(Type.Boolean({ description: 'true or false' })),
});

/**
 * Options of {@link LeaderElector}.
 *
 * @example
 * ```ts
 * import { LeaderElector, type LeaderElectorOptions, type LeaseStore } from '@kindex/informer';
 * declare const store: LeaseStore;
 *
 * // client-go's defaults: 15 s lease, 10 s renew deadline, retry every 2 s; keep competing after a loss.
 * const options: LeaderElectorOptions = { store, leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000, afterLoss: 'rejoin' };
 * const elector = new LeaderElector(options);
 * ```
 */
export interface LeaderElectorOptions extends LeaderElectionTiming {
  /** Where the lease lives (a `KubeLeaseStore` on the API server). */
  readonly store: LeaseStore;
  /**
   * What to do after losing the lease: `'stop'` ends the election (status `stopped`),
   * `'rejoin'` goes back to being a candidate. Defaults to `'stop'`.
   */
  readonly afterLoss?: 'stop' | 'rejoin';
  /** Time source. Defaults to a monotonic clock (wall-clock jumps must not extend a lease). */
  readonly clock?: Clock;
  /** Random numbers in [0, 1) for the acquire jitter. Defaults to `Math.random`. */
  readonly random?: () => number;
}

/** {@link LeaderElectorOptions}' keys and value checks. */
export const LEADER_ELECTOR_OPTIONS = defineOptions<LeaderElectorOptions>('LeaderElector options', {
  ...LEADER_ELECTION_TIMING_OPTIONS.properties,
  store: Type.Unknown(),
  afterLoss: Type.Optional(Type.Union([Type.Literal('stop'), Type.Literal('rejoin')], { description: "'stop' or 'rejoin'" })),
  clock: Type.Optional(Type.Unknown()),
  random: Type.Optional(Type.Function([], Type.Number(), { description: 'a function returning a number in [0, 1)' })),
});

/**
 * Where a candidate stands.
 *
 * @example
 * ```ts
 * import type { LeaderElectionStatus, LeaderElector } from '@kindex/informer';
 * declare const elector: LeaderElector;
 *
 * elector.status$.subscribe((status: LeaderElectionStatus) => console.log(`${status.role} (leader: ${status.holderIdentity ?? 'none'}): ${status.reason}`));
 * ```
 */
export interface LeaderElectionStatus {
  /** `leader` while holding a lease renewed within the deadline; `stopped` after `stop()` or a loss with `afterLoss: 'stop'`. */
  readonly role: 'candidate' | 'leader' | 'stopped';
  /** The holder this candidate last saw on the lease (itself when leading); undefined when unheld or not read yet. */
  readonly holderIdentity: string | undefined;
  /** Why the role last changed (`acquired`, `renew deadline passed`, `lease taken by x`, `stopped`...). */
  readonly reason: string;
}

/** client-go's JitterFactor: acquire attempts wait between 1 and 2.2 retry periods. */
const JITTER_FACTOR = 1.2;

/** Statuses that retrying will not fix; the first attempt fails fast on them. */
const NON_TRANSIENT = new Set([400, 401, 403, 404, 422]);

/**
 * One candidate in a leader election on one Lease.
 *
 * @example
 * ```ts
 * import { KubeLeaseStore, LeaderElector, type KubeClient } from '@kindex/informer';
 * declare const client: KubeClient;
 * const elector = new LeaderElector({ store: new KubeLeaseStore(client, { name: 'my-operator', namespace: 'ops' }) });
 * elector.isLeader$.subscribe((leading) => console.log(leading ? 'leading' : 'following'));
 * await elector.start();
 * // ... on shutdown:
 * await elector.stop(); // releases the lease if held
 * ```
 */
export class LeaderElector {
  readonly identity: string;
  readonly leaseDurationMs: number;
  readonly renewDeadlineMs: number;
  readonly retryPeriodMs: number;
  /** The role and observed holder, replayed to new subscribers. */
  readonly status$: Observable<LeaderElectionStatus>;
  /** Whether this candidate leads, replayed to new subscribers; emits only changes. */
  readonly isLeader$: Observable<boolean>;
  /** Failed calls on the lease (the elector retries them). */
  readonly problems$: Observable<unknown>;

  readonly #store: LeaseStore;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #releaseOnCancel: boolean;
  readonly #afterLoss: 'stop' | 'rejoin';
  readonly #status: BehaviorSubject<LeaderElectionStatus>;
  readonly #problems = new Subject<unknown>();
  readonly #sightings: LeaseSightings;
  #observed: Lease | undefined;
  #validUntil = 0;
  #deadline: TimerHandle | undefined;
  #sleepers = new Set<() => void>();
  #loop: Promise<void> | undefined;
  #stopping = false;

  constructor(options: LeaderElectorOptions) {
    LEADER_ELECTOR_OPTIONS.check(options);
    this.#store = options.store;
    this.#clock = options.clock ?? monotonicClock;
    this.#random = options.random ?? Math.random;
    this.#releaseOnCancel = options.releaseOnCancel ?? true;
    this.#afterLoss = options.afterLoss ?? 'stop';
    this.identity = options.identity ?? defaultHolderIdentity();
    checkHolderIdentity(this.identity, configError);
    ({
      leaseDurationMs: this.leaseDurationMs,
      renewDeadlineMs: this.renewDeadlineMs,
      retryPeriodMs: this.retryPeriodMs,
    } = resolveLeaseTiming(options, TIMING_RULES));
    this.#sightings = new LeaseSightings(this.leaseDurationMs);
    this.#status = new BehaviorSubject<LeaderElectionStatus>({ role: 'candidate', holderIdentity: undefined, reason: 'created' });
    this.status$ = this.#status.asObservable();
    this.isLeader$ = this.#status.pipe(
      map((s) => s.role === 'leader'),
      distinctUntilChanged(),
    );
    this.problems$ = this.#problems.asObservable();
  }

  /** `namespace/name` of the lease. */
  get lease(): string {
    return this.#store.description;
  }

  /**
   * Whether this candidate leads right now: it holds the lease and its last renewal was sent
   * less than `renewDeadlineMs` ago by its own clock. Checked synchronously before every
   * fenced action, so a process resumed after a long pause (SIGSTOP, a GC stall) sees false at
   * once, before its deadline timer has had a chance to run.
   */
  get isLeader(): boolean {
    return this.#status.value.role === 'leader' && this.#clock.now() < this.#validUntil;
  }

  /** The current status. */
  get status(): LeaderElectionStatus {
    return this.#status.value;
  }

  /**
   * Starts campaigning. Resolves after the first attempt (acquired, or saw another holder);
   * rejects with {@link LeaderElectionStartError} when that attempt failed for a reason retrying
   * will not fix. Transient failures are retried every retry period and reported on `problems$`.
   */
  async start(): Promise<void> {
    if (this.#loop !== undefined) throw new Error(`leader elector ${this.identity} on ${this.lease} started already`);
    let first: { acquired: boolean; sentAt: number };
    try {
      first = await this.#attempt();
    } catch (error) {
      const status = error instanceof KubeApiError ? error.status : undefined;
      if (status !== undefined && NON_TRANSIENT.has(status)) {
        this.#stopping = true;
        this.#loop = Promise.resolve();
        this.#setRole('stopped', 'failed to start');
        throw new LeaderElectionStartError(this.lease, status, { cause: error });
      }
      this.#problems.next(error);
      first = { acquired: false, sentAt: 0 };
    }
    this.#loop = this.#run(first);
  }

  /**
   * Stops campaigning. A leader stands down first (`isLeader` false), then, with
   * `releaseOnCancel`, empties `holderIdentity` so the next leader starts at once. Call it only
   * after the work the lease protects has stopped.
   */
  async stop(): Promise<void> {
    if (this.#stopping && this.#status.value.role === 'stopped') return this.#loop;
    this.#stopping = true;
    this.#setRole('stopped', 'stopped');
    this.#wake();
    await this.#loop;
    // Also releases a lease acquired by an attempt that was in flight when stop() was called.
    if (this.#releaseOnCancel) await this.#release();
  }

  async #run(first: { acquired: boolean; sentAt: number }): Promise<void> {
    let pending: { acquired: boolean; sentAt: number } | undefined = first;
    while (!this.#stopping) {
      let acquired = pending;
      pending = undefined;
      while (!this.#stopping && !acquired?.acquired) {
        if (acquired !== undefined) await this.#sleep(this.retryPeriodMs * (1 + this.#random() * JITTER_FACTOR));
        if (this.#stopping) break;
        acquired = await this.#attemptReporting();
      }
      if (this.#stopping || acquired === undefined) break;
      this.#extend(acquired.sentAt);
      this.#setRole('leader', 'acquired');
      while (!this.#stopping && this.#status.value.role === 'leader') {
        await this.#sleep(this.retryPeriodMs);
        if (this.#stopping || this.#status.value.role !== 'leader') break;
        const renewed = await this.#attemptReporting();
        if (this.#stopping || this.#status.value.role !== 'leader') break;
        if (renewed.acquired) this.#extend(renewed.sentAt);
        else if (this.#observedHolder() !== undefined && this.#observedHolder() !== this.identity) {
          this.#lose(`lease taken by ${this.#observedHolder()}`);
        }
      }
      if (this.#stopping) break;
      if (this.#afterLoss === 'stop') {
        this.#stopping = true;
        this.#setRole('stopped', this.#status.value.reason);
      }
    }
  }

  /** One acquire-or-renew; failures are reported and count as "not acquired". */
  async #attemptReporting(): Promise<{ acquired: boolean; sentAt: number }> {
    try {
      return await this.#attempt();
    } catch (error) {
      this.#problems.next(error);
      return { acquired: false, sentAt: 0 };
    }
  }

  /** client-go's tryAcquireOrRenew, bounded by the renew deadline so a hung call cannot stall the loop. */
  async #attempt(): Promise<{ acquired: boolean; sentAt: number }> {
    let timer: TimerHandle | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = this.#clock.setTimeout(
        () => reject(new Error(`lease ${this.lease}: no answer within ${this.renewDeadlineMs} ms`)),
        this.renewDeadlineMs,
      );
    });
    try {
      return await Promise.race([this.#tryAcquireOrRenew(), timeout]);
    } finally {
      this.#clock.clearTimeout(timer);
    }
  }

  async #tryAcquireOrRenew(): Promise<{ acquired: boolean; sentAt: number }> {
    const lease = await this.#store.get();
    // Taken after the read: a follower waits from when it saw the record at the latest.
    const seenAt = this.#clock.now();
    if (lease !== undefined) {
      this.#observe(lease, seenAt);
      const holder = holderOf(lease);
      if (holder !== undefined && holder !== this.identity && this.#sightings.isHeld(this.lease, lease, this.#clock.now())) {
        return { acquired: false, sentAt: seenAt };
      }
    }
    // Taken before the write: the leader's deadline runs from before followers can see the renewal.
    const sentAt = this.#clock.now();
    const claim = claimSpec(this.identity, this.leaseDurationMs, lease === undefined ? undefined : (lease.spec ?? {}), sentAt);
    const written = await unlessConflict(() => (lease === undefined ? this.#store.create(claim) : this.#store.update(lease, claim)));
    if (written === undefined) return { acquired: false, sentAt };
    this.#observe(written, sentAt);
    return { acquired: true, sentAt };
  }

  #observe(lease: Lease, at: number): void {
    this.#observed = lease;
    if (this.#sightings.see(this.lease, lease, at)) {
      const s = this.#status.value;
      if (s.holderIdentity !== this.#observedHolder()) this.#status.next({ ...s, holderIdentity: this.#observedHolder() });
    }
  }

  #observedHolder(): string | undefined {
    return holderOf(this.#observed);
  }

  /** Leadership lasts until renewDeadline after `sentAt`; a timer stands down then unless renewed. */
  #extend(sentAt: number): void {
    this.#validUntil = sentAt + this.renewDeadlineMs;
    if (this.#deadline !== undefined) this.#clock.clearTimeout(this.#deadline);
    this.#deadline = this.#clock.setTimeout(() => {
      this.#deadline = undefined;
      if (this.#status.value.role === 'leader') this.#lose('renew deadline passed');
    }, this.#validUntil - this.#clock.now());
  }

  #lose(reason: string): void {
    this.#validUntil = 0;
    this.#setRole('candidate', reason);
    this.#wake();
  }

  #setRole(role: LeaderElectionStatus['role'], reason: string): void {
    if (role !== 'leader') {
      this.#validUntil = 0;
      if (this.#deadline !== undefined) this.#clock.clearTimeout(this.#deadline);
      this.#deadline = undefined;
    }
    const holderIdentity = role === 'leader' ? this.identity : this.#observedHolder();
    const s = this.#status.value;
    if (s.role === role && s.holderIdentity === holderIdentity) return;
    this.#status.next({ role, holderIdentity, reason });
  }

  /** Gives the lease back (see `releaseSpec`) when this candidate holds it. */
  async #release(): Promise<void> {
    const lease = this.#observed;
    if (lease === undefined || lease.spec?.holderIdentity !== this.identity) return;
    try {
      const written = await this.#store.update(lease, releaseSpec(lease, this.#clock.now()));
      this.#observe(written, this.#clock.now());
    } catch (error) {
      // Someone else moved the lease on (409), or the server is gone: the lease expires on its own.
      this.#problems.next(error);
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        this.#clock.clearTimeout(timer);
        this.#sleepers.delete(wake);
        resolve();
      };
      const timer = this.#clock.setTimeout(wake, ms);
      this.#sleepers.add(wake);
    });
  }

  #wake(): void {
    for (const wake of [...this.#sleepers]) wake();
  }
}

const configError = (field: string, value: unknown, fix: string): Error => new LeaderElectionConfigError(field, value, fix);

const TIMING_RULES: LeaseTimingRules = {
  holder: 'a leader',
  retryPeriodsPerDeadline: JITTER_FACTOR,
  renewDeadlineReason: 'so a leader gets more than one try to renew',
  configError,
};
