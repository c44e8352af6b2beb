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

/**
 * A write lost an optimistic-concurrency race: another candidate created or changed the lease
 * first (HTTP 409). The elector treats it as "not acquired this round", never as a failure.
 *
 * @example
 * ```ts
 * import { LeaseConflictError, microTime, type Lease, type LeaseStore } from '@kindex/informer';
 * declare const store: LeaseStore;
 * declare const current: Lease;
 *
 * try {
 *   await store.update(current, { ...current.spec, renewTime: microTime(Date.now()) });
 * } catch (error) {
 *   // Someone else wrote the Lease since we read it: read it again before deciding.
 *   if (!(error instanceof LeaseConflictError)) throw error;
 * }
 * ```
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
 *
 * @example
 * ```ts
 * import { LeaderElector, LeaseConflictError, type Lease, type LeaseSpec, type LeaseStore } from '@kindex/informer';
 *
 * // An in-memory store: test leader election without an API server.
 * class MemoryLeaseStore implements LeaseStore {
 *   readonly description = 'memory lease';
 *   #lease: Lease | undefined;
 *   #version = 0;
 *   async get(): Promise<Lease | undefined> { return this.#lease; }
 *   async create(spec: LeaseSpec): Promise<Lease> {
 *     if (this.#lease) throw new LeaseConflictError(this.description);
 *     return (this.#lease = { metadata: { name: 'lease', resourceVersion: String(++this.#version) }, spec });
 *   }
 *   async update(current: Lease, spec: LeaseSpec): Promise<Lease> {
 *     if (current.metadata?.resourceVersion !== this.#lease?.metadata?.resourceVersion) throw new LeaseConflictError(this.description);
 *     return (this.#lease = { metadata: { name: 'lease', resourceVersion: String(++this.#version) }, spec });
 *   }
 * }
 * const elector = new LeaderElector({ store: new MemoryLeaseStore() });
 * ```
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
