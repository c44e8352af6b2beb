import { LeaseConfigError } from '../lease/lease-config-error.js';

/**
 * A leader election option is out of range. Names the option, the value and the fix; thrown by
 * the `LeaderElector` constructor (and so by `new Operator(...)`), before anything runs.
 *
 * @example
 * ```ts
 * import { LeaderElectionConfigError, Operator } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * try {
 *   // The renew deadline must be shorter than the lease duration.
 *   new Operator({ kubeConfig, leaderElection: { leaseName: 'web-operator', leaseNamespace: 'operators', leaseDurationMs: 10_000, renewDeadlineMs: 15_000 } });
 * } catch (error) {
 *   if (error instanceof LeaderElectionConfigError) console.error(`${error.field}=${String(error.value)}: ${error.message}`);
 * }
 * ```
 */
export class LeaderElectionConfigError extends LeaseConfigError {
  override readonly name = 'LeaderElectionConfigError';
  constructor(field: string, value: unknown, fix: string) {
    super('leaderElection', field, value, fix);
  }
}

/**
 * The first attempt on the lease failed for a reason retrying will not fix (401, 403, 404 on a
 * missing namespace, 400): `start()` rejects with this instead of retrying forever.
 *
 * @example
 * ```ts
 * import { LeaderElectionStartError, type Operator } from '@kindex/informer';
 * declare const operator: Operator;
 *
 * try {
 *   await operator.start();
 * } catch (error) {
 *   // Usually 403: the ServiceAccount may not get/create/update Leases in that namespace.
 *   if (error instanceof LeaderElectionStartError) console.error(`lease ${error.lease}: HTTP ${error.status}: ${error.message}`);
 * }
 * ```
 */
export class LeaderElectionStartError extends Error {
  override readonly name = 'LeaderElectionStartError';
  readonly code = 'KINDEX_LEADER_ELECTION_START_FAILED';
  constructor(
    readonly lease: string,
    readonly status: number,
    options: { cause: unknown },
  ) {
    super(`leader election on lease ${lease} failed (HTTP ${status}): ${hint(status, lease)}`, options);
  }
}

function hint(status: number, lease: string): string {
  const namespace = lease.split('/')[0] ?? '';
  switch (status) {
    case 401:
      return 'the credentials were refused; check the kubeconfig or service account token';
    case 403:
      return `grant get, create and update on leases.coordination.k8s.io in namespace ${JSON.stringify(namespace)} to the operator's service account`;
    case 404:
      return `namespace ${JSON.stringify(namespace)} does not exist; create it or set leaderElection.leaseNamespace`;
    default:
      return 'the server rejected the lease; check leaderElection.leaseName and leaseNamespace';
  }
}

/**
 * A write or reconcile was refused because this replica does not hold the lease (fencing): it
 * never was leader, or it could not renew before the renew deadline.
 *
 * @example
 * ```ts
 * import { NotLeaderError } from '@kindex/informer';
 * import type { EventProcessor } from '@kindex/core';
 * declare const processor: EventProcessor;
 *
 * // A reconcile cut short because this replica lost the lease is not a failure of the primary.
 * processor.events$.subscribe((e) => {
 *   if (e.type === 'finished' && e.outcome.type === 'error' && e.outcome.error instanceof NotLeaderError) console.info('lost leadership mid-reconcile');
 * });
 * ```
 */
export class NotLeaderError extends Error {
  override readonly name = 'NotLeaderError';
  readonly code = 'KINDEX_NOT_LEADER';
  constructor(
    readonly identity: string,
    readonly lease: string,
  ) {
    super(`${identity} does not hold lease ${lease}: refusing to reconcile or write (fenced)`);
  }
}
