import type { ShardField } from '@kindex/core';
import { Kinds } from '../kind/resource-kind.js';
import type { RequiredPermission } from './rbac-manifest.js';

/**
 * Where an operator's coordination Leases live: the `leaderElection` and `sharding` options of
 * `Operator` (only the namespaces matter here).
 *
 * @example
 * ```ts
 * import { leasePermissions, type LeaseOwners } from '@kindex/informer';
 *
 * const owners: LeaseOwners = { leaderElection: { leaseNamespace: 'operators' } };
 * const permissions = leasePermissions(owners);
 * ```
 */
export interface LeaseOwners {
  readonly leaderElection?: { readonly leaseNamespace: string } | undefined;
  /** `field` decides whether sharding lists Namespaces too (see {@link leasePermissions}); it defaults to the namespace, as in `Operator`. */
  readonly sharding?: { readonly namespace: string; readonly field?: ShardField | undefined } | undefined;
}

/**
 * The permissions on `coordination.k8s.io` Leases that leader election and sharding use, in
 * their namespace, with the verbs their lease stores send: leader election reads its one Lease
 * by name, creates it when missing and renews it with PUT (`get`, `create`, `update`); sharding
 * lists its group's Leases by label and creates and renews them (`list`, `create`, `update`), the
 * `<group>-map` Lease that carries the shard map included (no `get`: it comes with the list).
 * Sharding by namespace (the default `field`) also lists the Namespaces present, cluster-wide,
 * to cut the shard map at their quantiles (`list` on `namespaces`, in the ClusterRole).
 * `Operator.rbacManifest()` adds these to the controllers' {@link requiredPermissions}.
 *
 * @example
 * ```ts
 * import { leasePermissions, rbacManifest, requiredPermissions, type Operator } from '@kindex/informer';
 * declare const operator: Operator;
 *
 * // The same rules as operator.rbacManifest(), for an operator that runs sharded in "ops".
 * const permissions = [...(await requiredPermissions(operator.controllers)), ...leasePermissions({ sharding: { namespace: 'ops' } })];
 * const { yaml } = rbacManifest(permissions);
 * ```
 */
export function leasePermissions(owners: LeaseOwners): RequiredPermission[] {
  const lease = (namespace: string, verbs: readonly string[], neededBy: string): RequiredPermission => ({
    group: Kinds.Lease.group,
    resource: Kinds.Lease.plural,
    verbs,
    namespaces: [namespace],
    clusterScoped: false,
    neededBy,
  });
  const out: RequiredPermission[] = [];
  if (owners.leaderElection !== undefined)
    out.push(lease(owners.leaderElection.leaseNamespace, ['get', 'create', 'update'], 'leader election'));
  if (owners.sharding !== undefined) {
    out.push(lease(owners.sharding.namespace, ['list', 'create', 'update'], 'sharding'));
    // One list every few rounds by the owner of shard 0 (sharding/namespace-population.ts): no watch, no get.
    if ((owners.sharding.field ?? 'object.metadata.namespace') === 'object.metadata.namespace') {
      out.push({
        group: Kinds.Namespace.group,
        resource: Kinds.Namespace.plural,
        verbs: ['list'],
        namespaces: 'all',
        clusterScoped: true,
        neededBy: 'sharding: the namespaces the shard map balances',
      });
    }
  }
  return out;
}
