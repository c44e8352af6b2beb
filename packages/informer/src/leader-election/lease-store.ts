import type { Lease, LeaseSpec } from '../lease/lease.js';

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
