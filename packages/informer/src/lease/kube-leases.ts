import { ResourceID } from '@kindex/core';
import type { KubeClient } from '../client/kube-client.js';
import { Kinds } from '../kind/resource-kind.js';
import { asLeaseConflict } from './lease-conflict-error.js';
import type { Lease, LeaseSpec } from './lease.js';

/**
 * @internal `coordination.k8s.io/v1` Leases of one namespace on the API server, read with GET and
 * written with POST and PUT through a {@link KubeClient}. PUT carries the resourceVersion the
 * caller read, so the server refuses a write based on a stale view; that 409 (and a POST's, when
 * the lease exists already) is thrown as a `LeaseConflictError`, the lost race both lease stores
 * promise their callers.
 */
export class KubeLeases {
  constructor(
    readonly client: KubeClient,
    readonly namespace: string,
  ) {}

  /** The lease `name`, or undefined when it does not exist. */
  get(name: string): Promise<Lease | undefined> {
    return this.client.get<Lease>(Kinds.Lease, ResourceID.of(name, this.namespace));
  }

  /** Creates the lease `name` with `spec`, and `labels` and `annotations` if given. */
  async create(
    name: string,
    spec: LeaseSpec,
    metadata: { readonly labels?: Readonly<Record<string, string>>; readonly annotations?: Readonly<Record<string, string>> } = {},
  ): Promise<Lease> {
    const lease: Lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name,
        namespace: this.namespace,
        ...(metadata.labels !== undefined ? { labels: { ...metadata.labels } } : {}),
        ...(metadata.annotations !== undefined ? { annotations: { ...metadata.annotations } } : {}),
      },
      spec,
    };
    try {
      return await this.client.create(Kinds.Lease, lease);
    } catch (error) {
      throw asLeaseConflict(error, this.#key(name));
    }
  }

  /**
   * Replaces the spec of `current` if its resourceVersion is still the server's; `annotations`
   * are set over the lease's own.
   */
  async update(current: Lease, spec: LeaseSpec, annotations?: Readonly<Record<string, string>>): Promise<Lease> {
    const key = this.#key(current.metadata?.name ?? '?');
    if (current.metadata?.resourceVersion === undefined) {
      throw new Error(`lease ${key}: cannot update without the resourceVersion read (optimistic concurrency)`);
    }
    const metadata =
      annotations === undefined
        ? current.metadata
        : { ...current.metadata, annotations: { ...current.metadata.annotations, ...annotations } };
    try {
      return await this.client.update<Lease>(Kinds.Lease, { ...current, metadata, spec });
    } catch (error) {
      throw asLeaseConflict(error, key);
    }
  }

  #key(name: string): string {
    return ResourceID.of(name, this.namespace).key;
  }
}
