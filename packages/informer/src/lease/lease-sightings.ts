import type { Lease } from './lease.js';

/**
 * @internal When this process first saw each lease as it is now, by its own clock: the basis of
 * expiry. A holder is alive while its lease changed less than its duration ago by OUR clock,
 * because the clocks of two machines are never compared (client-go's observedTime): the
 * `renewTime` written on the lease is for people, not for this decision.
 */
export class LeaseSightings {
  /** Per lease name: the spec last seen, serialized, and when it was first seen. */
  readonly #seen = new Map<string, { spec: string; at: number }>();

  /** @param defaultDurationMs the duration of a lease that does not say its own. */
  constructor(private readonly defaultDurationMs: number) {}

  /** Notes `lease` as seen at `at`; returns whether its spec changed since the last sighting. */
  see(name: string, lease: Lease, at: number): boolean {
    const spec = JSON.stringify(lease.spec ?? {});
    if (this.#seen.get(name)?.spec === spec) return false;
    this.#seen.set(name, { spec, at });
    return true;
  }

  /** Whether `lease` has a holder that renewed within its duration, by our clock at `now`. */
  isHeld(name: string, lease: Lease, now: number): boolean {
    const holder = lease.spec?.holderIdentity ?? '';
    if (holder === '') return false;
    const durationMs = (lease.spec?.leaseDurationSeconds ?? this.defaultDurationMs / 1000) * 1000;
    return (this.#seen.get(name)?.at ?? -Infinity) + durationMs > now;
  }
}
