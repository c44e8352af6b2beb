import { KubeApiError } from '../client/kube-api-error.js';
import type { Lease } from './lease.js';

/**
 * A write lost an optimistic-concurrency race: another candidate created or changed the lease
 * first (HTTP 409). Leader election and sharding treat it as "not acquired this round" (or, on a
renewal, as the lease lost), never as a failed call.
 *
 * @example
 * ```ts
 * import { LeaseConflictError, type Lease, type LeaseSpec, type LeaseStore } from '@kindex/informer';
 * declare const store: LeaseStore;
 * declare const current: Lease;
 * declare const renewed: LeaseSpec;
 *
 * try {
 *   await store.update(current, renewed);
 * } catch (error) {
 *   // Someone else wrote the Lease since we read it: read it again before deciding.
 *   if (!(error instanceof LeaseConflictError)) throw error;
 * }
 * ```
 */
export class LeaseConflictError extends Error {
  override readonly name = 'LeaseConflictError';
  readonly code = 'KINDEX_LEASE_CONFLICT';
  constructor(
    readonly lease: string,
    options?: { cause?: unknown },
  ) {
    super(`lease ${lease} was changed by another candidate first`, options);
  }
}

/**
 * @internal The conflict error a lease store throws for `error` when it is the API server's 409
 * (the lease exists already; its resourceVersion moved on); any other error unchanged.
 */
export function asLeaseConflict(error: unknown, lease: string): unknown {
  return error instanceof KubeApiError && error.status === 409 ? new LeaseConflictError(lease, { cause: error }) : error;
}

/**
 * @internal Runs one lease write and tells a lost race apart from a failure: the written lease,
 * or undefined when another writer got there first. Any other error is thrown.
 */
export async function unlessConflict(write: () => Promise<Lease>): Promise<Lease | undefined> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof LeaseConflictError) return undefined;
    throw error;
  }
}
