import type { KubernetesObject } from '@kindex/core';

/** The fields of a `coordination.k8s.io/v1` Lease that leader election reads and writes. */
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

/** A `coordination.k8s.io/v1` Lease as the API server returns it (plain JSON). */
export interface Lease extends KubernetesObject {
  readonly spec?: LeaseSpec;
}

/**
 * A write lost an optimistic-concurrency race: another candidate created or changed the lease
 * first (HTTP 409). The elector treats it as "not acquired this round", never as a failure.
 */
export class LeaseConflictError extends Error {
  override readonly name = 'LeaseConflictError';
  constructor(
    readonly lease: string,
    options?: { cause?: unknown },
  ) {
    super(`lease ${lease} was changed by another candidate first`, options);
  }
}

/**
 * The subset of the API a {@link LeaderElector} uses on its one Lease: read it, create it, and
 * replace it with a resourceVersion precondition.
 *
 * Contract: `create` and `update` throw {@link LeaseConflictError} when they lose a race
 * (the lease exists already; its resourceVersion moved on); any other error is a failed call.
 */
export interface LeaseStore {
  /** `namespace/name` of the lease, for messages. */
  readonly description: string;
  /** The lease, or undefined when it does not exist. */
  get(): Promise<Lease | undefined>;
  /** Creates the lease. */
  create(spec: LeaseSpec): Promise<Lease>;
  /** Replaces the spec of `current` if its resourceVersion is still the server's. */
  update(current: Lease, spec: LeaseSpec): Promise<Lease>;
}
