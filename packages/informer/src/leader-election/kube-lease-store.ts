import { ResourceID } from '@kindex/core';
import { KubeApiError, type KubeClient } from '../client/kube-client.js';
import { Kinds } from '../kind/resource-kind.js';
import { LeaseConflictError, type Lease, type LeaseSpec, type LeaseStore } from './lease-store.js';

/**
 * A {@link LeaseStore} on the API server: one `coordination.k8s.io/v1` Lease read with GET and
 * written with POST and PUT through a {@link KubeClient}. PUT carries the resourceVersion the
 * candidate read, so the server refuses a write based on a stale view (409).
 *
 * @example
 * ```ts
 * import { KubeClient, KubeLeaseStore, LeaderElector } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * // Elect a leader on a coordination.k8s.io/v1 Lease outside an Operator (for a singleton job).
 * const store = new KubeLeaseStore(new KubeClient(kubeConfig), { name: 'nightly-report', namespace: 'operators' });
 * const elector = new LeaderElector({ store, identity: process.env['HOSTNAME'] ?? 'local' });
 * await elector.start();
 * ```
 */
export class KubeLeaseStore implements LeaseStore {
  readonly description: string;
  readonly #id: ResourceID;

  constructor(
    private readonly client: KubeClient,
    lease: { readonly name: string; readonly namespace: string },
  ) {
    this.#id = ResourceID.of(lease.name, lease.namespace);
    this.description = this.#id.key;
  }

  get(): Promise<Lease | undefined> {
    return this.client.get<Lease>(Kinds.Lease, this.#id);
  }

  async create(spec: LeaseSpec): Promise<Lease> {
    const lease: Lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: this.#id.name, namespace: this.#id.namespace },
      spec,
    };
    try {
      return await this.client.create(Kinds.Lease, lease);
    } catch (error) {
      throw asConflict(error, this.description);
    }
  }

  async update(current: Lease, spec: LeaseSpec): Promise<Lease> {
    if (current.metadata?.resourceVersion === undefined) {
      throw new Error(`lease ${this.description}: cannot update without the resourceVersion read (optimistic concurrency)`);
    }
    try {
      return await this.client.update<Lease>(Kinds.Lease, { ...current, spec });
    } catch (error) {
      throw asConflict(error, this.description);
    }
  }
}

function asConflict(error: unknown, lease: string): unknown {
  return error instanceof KubeApiError && error.status === 409 ? new LeaseConflictError(lease, { cause: error }) : error;
}
