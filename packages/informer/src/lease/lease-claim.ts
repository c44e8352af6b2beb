import { microTime } from '../client/micro-time.js';
import type { Lease, LeaseSpec } from './lease.js';

/**
 * @internal The spec with which `identity` takes (or renews) a lease whose spec is `current`
 * (undefined when the lease does not exist yet), written at `at` (ms, the holder's clock). A
 * renewal keeps `acquireTime` and the count of transitions; a takeover counts one more.
 */
export function claimSpec(identity: string, leaseDurationMs: number, current: LeaseSpec | undefined, at: number): LeaseSpec {
  const time = microTime(at);
  const renewal = current?.holderIdentity === identity;
  return {
    holderIdentity: identity,
    leaseDurationSeconds: Math.ceil(leaseDurationMs / 1000),
    renewTime: time,
    acquireTime: renewal ? (current?.acquireTime ?? time) : time,
    leaseTransitions: renewal ? (current?.leaseTransitions ?? 0) : current === undefined ? 0 : (current.leaseTransitions ?? 0) + 1,
  };
}

/**
 * @internal client-go's release: an empty holder and a one-second duration, the transitions kept,
 * so the next holder may take the lease at once instead of waiting it out.
 */
export function releaseSpec(lease: Lease, at: number): LeaseSpec {
  const time = microTime(at);
  return {
    holderIdentity: '',
    leaseDurationSeconds: 1,
    acquireTime: time,
    renewTime: time,
    leaseTransitions: lease.spec?.leaseTransitions ?? 0,
  };
}

/** @internal The holder of `lease`; undefined when it is free (no holder, or an empty one). */
export function holderOf(lease: Lease | undefined): string | undefined {
  const holder = lease?.spec?.holderIdentity;
  return holder === undefined || holder === '' ? undefined : holder;
}
