import type { KubeClient } from '../client/kube-client.js';
import { KubeLeases } from '../lease/kube-leases.js';
import type { Lease, LeaseSpec } from '../lease/lease.js';
import type { LeaseStore } from './lease-store.js';

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
  readonly #leases: KubeLeases;
  readonly #name: string;

  constructor(client: KubeClient, lease: { readonly name: string; readonly namespace: string }) {
    this.#leases = new KubeLeases(client, lease.namespace);
    this.#name = lease.name;
    this.description = `${lease.namespace}/${lease.name}`;
  }

  get(): Promise<Lease | undefined> {
    return this.#leases.get(this.#name);
  }

  create(spec: LeaseSpec): Promise<Lease> {
    return this.#leases.create(this.#name, spec);
  }

  update(current: Lease, spec: LeaseSpec): Promise<Lease> {
    return this.#leases.update(current, spec);
  }
}
