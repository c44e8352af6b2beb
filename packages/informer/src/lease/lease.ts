/**
 * The lease stage: what leader election and sharding share about `coordination.k8s.io/v1`
 * Leases, so both follow one set of rules (client-go's tools/leaderelection).
 *
 * - {@link Lease} and {@link LeaseSpec}: the object as the API server keeps it; timestamps are
 *   `metav1.MicroTime`, written with `microTime` (client/micro-time.ts).
 * - `LeaseTiming` (lease-timing.ts): lease duration, renew deadline and retry period, their
 *   defaults and the rules that keep at most one holder at a time; a value out of range is a
 *   `LeaseConfigError` (lease-config-error.ts) naming the option, the field and the fix.
 * - `claimSpec`, `releaseSpec` (lease-claim.ts): the spec a holder writes to take, renew or
 *   give back a lease.
 * - `LeaseSightings` (lease-sightings.ts): whether a holder is alive, measured on this
 *   process's own clock from when it saw the lease change, never by comparing clocks.
 * - `KubeLeases` (kube-leases.ts): get, create and update a Lease with a resourceVersion
 *   precondition; a lost race is a {@link LeaseConflictError} (lease-conflict-error.ts).
 * - `monotonicClock` (monotonic-clock.ts) and `defaultHolderIdentity` (holder-identity.ts).
 *
 * Leader election (one Lease, one holder) and sharding (one Lease per shard and per replica)
 * build on these; each declares the narrow store it needs beside itself (`LeaseStore`,
 * `ShardLeaseStore`).
 *
 * @module
 */
import type { KubernetesObject } from '@kindex/core';

/**
 * The fields of a `coordination.k8s.io/v1` Lease that leader election reads and writes.
 *
 * @example
 * ```ts
 * import { microTime, type LeaseSpec, type LeaseStore } from '@kindex/informer';
 * declare const store: LeaseStore;
 *
 * // MicroTime fields take six fractional digits: kube-apiserver refuses toISOString()'s three.
 * const now = microTime(Date.now());
 * const spec: LeaseSpec = { holderIdentity: 'web-operator-7d9f', leaseDurationSeconds: 15, acquireTime: now, renewTime: now, leaseTransitions: 0 };
 * await store.create(spec);
 * ```
 */
export interface LeaseSpec {
  /** The current holder; empty or absent when nobody holds the lease. */
  readonly holderIdentity?: string;
  /** How long a holder's claim lasts after its last renewal, in seconds. */
  readonly leaseDurationSeconds?: number;
  /** When the current holder acquired the lease (RFC 3339 with microseconds). */
  readonly acquireTime?: string;
  /** When the holder last renewed (RFC 3339 with microseconds). */
  readonly renewTime?: string;
  /** How many times the lease changed hands. */
  readonly leaseTransitions?: number;
}

/**
 * A `coordination.k8s.io/v1` Lease as the API server returns it (plain JSON).
 *
 * @example
 * ```ts
 * import type { Lease, LeaseStore } from '@kindex/informer';
 * declare const store: LeaseStore;
 *
 * const lease: Lease | undefined = await store.get();
 * console.log(`held by ${lease?.spec?.holderIdentity ?? 'nobody'} since ${lease?.spec?.acquireTime ?? '-'}`);
 * ```
 */
export interface Lease extends KubernetesObject {
  readonly spec?: LeaseSpec;
}
