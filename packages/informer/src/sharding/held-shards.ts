import { Subject, type Observable } from 'rxjs';
import type { Clock, TimerHandle } from '@kindex/core';
import type { Lease } from '../lease/lease.js';
import type { ShardLoss } from './shard-ownership.js';

/** @internal One shard this replica holds. */
export interface HeldShard {
  /** The lease as last written. */
  readonly lease: Lease;
  /** Until when ownership lasts, by our clock: `renewDeadlineMs` after the last renewal was sent. */
  readonly validUntil: number;
  /**
   * The map epoch the lease said in a list that showed that same epoch as the map's (see the
   * module comment of shard-coordinator.ts); undefined until one did.
   */
  confirmed: number | undefined;
}

/**
 * @internal The fencing ledger of a {@link ShardCoordinator}: which shards this replica holds,
 * which it drains for a handover, and until when each may be acted on by its own clock. Ownership
 * is read from the clock as each question is asked, so a process resumed after a pause answers
 * "no" before any timer has run; a timer at the earliest deadline announces each lapse on
 * `lost$` once, even while a round hangs on a lease call.
 */
export class HeldShards {
  /** Shards lost without a handover, once each (a renewal that finds the lease ours clears a lapse). */
  readonly lost$: Observable<ShardLoss>;

  readonly #held = new Map<number, HeldShard>();
  /** Held shards whose deadline passed (reported once; a later renewal clears it). */
  readonly #lapsed = new Set<number>();
  /** Shards given back for a rebalance and draining, with their last renewal's deadline. */
  readonly #draining = new Map<number, number>();
  readonly #lost = new Subject<ShardLoss>();
  #deadlineTimer: TimerHandle | undefined;

  /** @param onLapse called after the deadline timer announced lapses (the coordinator publishes its ownership). */
  constructor(
    private readonly clock: Clock,
    private readonly renewDeadlineMs: number,
    private readonly onLapse: () => void,
  ) {
    this.lost$ = this.#lost.asObservable();
  }

  get size(): number {
    return this.#held.size;
  }

  get(shard: number): HeldShard | undefined {
    return this.#held.get(shard);
  }

  /** The shards held, owned or lapsed, with their records. */
  entries(): [number, HeldShard][] {
    return [...this.#held];
  }

  /** Whether this replica owns `shard` now: held, and its deadline not passed by the clock. */
  owns(shard: number): boolean {
    const held = this.#held.get(shard);
    return held !== undefined && this.clock.now() < held.validUntil;
  }

  /** The shards owned now, ascending. */
  owned(): number[] {
    return [...this.#held.keys()].filter((s) => this.owns(s)).sort((a, b) => a - b);
  }

  /** Why this replica may not write for `shard` now (see `ShardCoordinator.writeRefusal`), or undefined. */
  writeRefusal(shard: number): ShardLoss | undefined {
    if (this.owns(shard)) return undefined;
    const draining = this.#draining.get(shard);
    if (draining !== undefined && this.clock.now() < draining) return undefined;
    return { shard, reason: this.#held.has(shard) || draining !== undefined ? 'renew-deadline' : 'moved' };
  }

  /** Records a shard taken with a write sent at `sentAt`; its epoch is unconfirmed until a list shows it. */
  acquired(shard: number, lease: Lease, sentAt: number): void {
    this.#held.set(shard, { lease, validUntil: sentAt + this.renewDeadlineMs, confirmed: undefined });
  }

  /**
   * Records a renewal sent at `sentAt` of the shard held as `before`: ownership extends (never
   * shrinks: a slow answer to an earlier write must not cut a later one short) and a lapse ends.
   */
  renewed(shard: number, lease: Lease, sentAt: number, before: HeldShard): void {
    this.#held.set(shard, {
      lease,
      validUntil: Math.max(before.validUntil, sentAt + this.renewDeadlineMs),
      confirmed: this.#held.get(shard)?.confirmed,
    });
    this.#lapsed.delete(shard);
  }

  /** A held shard whose lease moved on: gone now, announced unless its deadline already was. */
  lose(shard: number): void {
    if (!this.#held.delete(shard)) return;
    if (!this.#lapsed.delete(shard)) this.#lost.next({ shard, reason: 'moved' });
  }

  /** Stops owning `shard` for a handover; its writes still count until its last deadline. Returns its lease. */
  startDraining(shard: number): Lease {
    const { lease, validUntil } = this.#held.get(shard)!;
    this.#held.delete(shard);
    this.#lapsed.delete(shard);
    this.#draining.set(shard, validUntil);
    return lease;
  }

  /** The drain of `shard` is over: its writes are refused from now on. */
  doneDraining(shard: number): void {
    this.#draining.delete(shard);
  }

  /** Forgets every shard at once (stop); returns the leases held, to release. */
  clear(): Lease[] {
    const leases = [...this.#held.values()].map((h) => h.lease);
    this.#held.clear();
    this.#lapsed.clear();
    this.#draining.clear();
    return leases;
  }

  /**
   * Times the earliest deadline of the shards still owned: a round can hang on a lease call far
   * past it (a server that stopped answering), and ownership must end on time anyway.
   */
  armDeadline(): void {
    if (this.#deadlineTimer !== undefined) this.clock.clearTimeout(this.#deadlineTimer);
    this.#deadlineTimer = undefined;
    let earliest = Infinity;
    for (const [shard, { validUntil }] of this.#held) if (!this.#lapsed.has(shard) && validUntil < earliest) earliest = validUntil;
    if (earliest === Infinity) return;
    this.#deadlineTimer = this.clock.setTimeout(
      () => {
        this.#deadlineTimer = undefined;
        const now = this.clock.now();
        for (const [shard, { validUntil }] of this.#held) {
          if (validUntil > now || this.#lapsed.has(shard)) continue;
          this.#lapsed.add(shard);
          this.#lost.next({ shard, reason: 'renew-deadline' });
        }
        this.onLapse();
      },
      Math.max(0, earliest - this.clock.now()),
    );
  }
}
