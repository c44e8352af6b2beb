import type { KubeClient } from '../client/kube-client.js';
import { Kinds } from '../kind/resource-kind.js';
import { KubeLeases } from '../lease/kube-leases.js';
import type { Lease, LeaseSpec } from '../lease/lease.js';
import { listItems } from './internal/list-items.js';
import type { ShardLeaseStore } from './shard-lease-store.js';

/**
 * The label that ties a group's leases together, so one list finds them all.
 *
 * @example
 * ```ts
 * import { SHARD_GROUP_LABEL } from '@kindex/informer';
 *
 * // kubectl get leases -n ops -l sharding.kindex.dev/group=jobs
 * const selector = `${SHARD_GROUP_LABEL}=jobs`;
 * ```
 */
export const SHARD_GROUP_LABEL = 'sharding.kindex.dev/group';

/**
 * A {@link ShardLeaseStore} on the API server: `coordination.k8s.io/v1` Leases in one namespace,
 * labelled {@link SHARD_GROUP_LABEL}`=<group>`, listed with that label selector and written with
 * POST and PUT (the PUT carries the resourceVersion read: a stale write gets 409).
 *
 * @example
 * ```ts
 * import { KubeClient, KubeShardLeaseStore, ShardCoordinator, loadKubeConfig } from '@kindex/informer';
 * const kubeConfig = loadKubeConfig(); // --kubeconfig, KUBECONFIG, ~/.kube/config or the pod's service account
 *
 * // The shard and member Leases of group "jobs" in namespace "ops".
 * const store = new KubeShardLeaseStore(new KubeClient(kubeConfig), { name: 'jobs', namespace: 'ops' });
 * const coordinator = new ShardCoordinator({ group: 'jobs', shards: 8, identity: 'replica-a', store });
 * ```
 */
export class KubeShardLeaseStore implements ShardLeaseStore {
  readonly description: string;
  readonly #leases: KubeLeases;
  readonly #labels: Readonly<Record<string, string>>;

  constructor(
    private readonly client: KubeClient,
    private readonly group: { readonly name: string; readonly namespace: string },
  ) {
    this.description = `${group.namespace}/${group.name}`;
    this.#leases = new KubeLeases(client, group.namespace);
    this.#labels = { [SHARD_GROUP_LABEL]: group.name };
  }

  list(): Promise<readonly Lease[]> {
    return listItems<Lease>(this.client, Kinds.Lease, this.group.namespace, `${SHARD_GROUP_LABEL}=${this.group.name}`);
  }

  create(name: string, spec: LeaseSpec, annotations?: Readonly<Record<string, string>>): Promise<Lease> {
    return this.#leases.create(name, spec, { labels: this.#labels, ...(annotations !== undefined ? { annotations } : {}) });
  }

  update(current: Lease, spec: LeaseSpec, annotations?: Readonly<Record<string, string>>): Promise<Lease> {
    return this.#leases.update(current, spec, annotations);
  }
}
