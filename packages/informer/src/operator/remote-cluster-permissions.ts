/**
 * RBAC for remote clusters: what each cluster an operator reads or writes besides its own must
 * grant the operator there. Remote event sources and remote dependents reach their cluster as
 * the user of its kubeconfig, not as the operator's ServiceAccount, so `requiredPermissions`
 * leaves them out and these list them, one manifest per cluster.
 *
 * @module
 */
import type { KubernetesObject } from '@kindex/core';
import type { Controller } from '../controller/controller.js';
import type { FleetController } from '../fleet/fleet-controller.js';
import { Kinds } from '../kind/resource-kind.js';
import { InformerEventSource } from '../source/informer-event-source.js';
import { rbacManifest, type RbacManifest, type RequiredPermission } from '../rbac/rbac-manifest.js';
import { DEPENDENT_WRITE_VERBS, permission, READ_VERBS, requiredPermissions, type RbacListingOptions } from './required-permissions.js';

/**
 * What each remote cluster must grant the operator there (the user of that cluster's
 * kubeConfig), by cluster name, least privilege as `requiredPermissions` lists the
 * operator's own cluster (which leaves these out): read verbs on the kind of each remote event
 * source, and `create`, `patch` and `delete` on a remote dependent's kind, in the namespaces
 * they watch there. `Operator.rbacManifest()` turns each cluster's list into a manifest of its
 * own (`clusters`). Prepares the event sources as `requiredPermissions` does.
 *
 * @example
 * ```ts
 * import { rbacManifest, remoteClusterPermissions, type Operator } from '@kindex/informer';
 * declare const operator: Operator;
 *
 * for (const [cluster, permissions] of await remoteClusterPermissions(operator.controllers)) {
 *   console.log(`# apply to cluster ${cluster}, bound to the user of its kubeconfig`);
 *   console.log(rbacManifest(permissions, { name: 'web-operator' }).yaml);
 * }
 * ```
 */
export async function remoteClusterPermissions(
  controllers: readonly Controller<KubernetesObject>[],
  options: Pick<RbacListingOptions, 'secondaryVerbs'> = {},
): Promise<ReadonlyMap<string, readonly RequiredPermission[]>> {
  const secondaryVerbs = options.secondaryVerbs ?? READ_VERBS;
  const out = new Map<string, RequiredPermission[]>();
  const add = (cluster: string, p: RequiredPermission): void => {
    const list = out.get(cluster);
    if (list === undefined) out.set(cluster, [p]);
    else list.push(p);
  };
  for (const c of controllers) {
    for (const source of await c.prepareEventSources()) {
      const cluster = source instanceof InformerEventSource ? source.configuration.cluster?.name : undefined;
      if (cluster === undefined || !(source instanceof InformerEventSource)) continue;
      const why = `controller ${c.name}: event source ${source.name}`;
      // Namespaces chosen by labels, there or (inherited) here, are known only at run time.
      const selected = source.namespaceSelector !== undefined || (source.inheritsNamespaces && c.namespaceSelector !== undefined);
      if (source.namespaceSelector !== undefined)
        add(cluster, permission(Kinds.Namespace, 'namespaces', ['list', 'watch'], 'all', `${why} namespace selector`));
      const namespaces = selected ? 'all' : source.cache.namespaces;
      const kind = source.resourceType;
      add(cluster, permission(kind, kind.plural, secondaryVerbs, namespaces, why));
      // A remote dependent's event source carries its name.
      const dependent = c.dependents.find((d) => d.cluster?.name === cluster && d.name === source.name);
      if (dependent !== undefined) {
        add(cluster, permission(kind, kind.plural, DEPENDENT_WRITE_VERBS, namespaces, `controller ${c.name}: dependent ${dependent.name}`));
      }
    }
  }
  return out;
}

/**
 * One RBAC manifest per remote cluster, by cluster name, from {@link remoteClusterPermissions}:
 * Roles and ClusterRole named `name`, without bindings (bind them to the user of that cluster's
 * kubeconfig there); what `Operator.rbacManifest()` returns as `clusters`.
 *
 * @example
 * ```ts
 * import { remoteClusterManifests, type Operator } from '@kindex/informer';
 * import { writeFileSync } from 'node:fs';
 * declare const operator: Operator;
 *
 * for (const [cluster, manifest] of await remoteClusterManifests(operator.controllers, { name: 'web-operator' })) {
 *   writeFileSync(`deploy/rbac-${cluster}.yaml`, manifest.yaml);
 * }
 * ```
 */
export async function remoteClusterManifests(
  controllers: readonly Controller<KubernetesObject>[],
  options: Pick<RbacListingOptions, 'secondaryVerbs' | 'name'> = {},
): Promise<ReadonlyMap<string, RbacManifest>> {
  const remote = await remoteClusterPermissions(controllers, options.secondaryVerbs ? { secondaryVerbs: options.secondaryVerbs } : {});
  return new Map([...remote].map(([cluster, p]) => [cluster, rbacManifest(p, options.name !== undefined ? { name: options.name } : {})]));
}

/**
 * One RBAC manifest per fleet, by fleet name: what every member cluster must grant the identity
 * of its kubeconfig there (the fleet's primary kind, its secondaries, dependents and Events, least
 * privilege as `requiredPermissions` lists them), without bindings; what `Operator.rbacManifest()`
 * returns as `fleets`. Member clusters come and go at run time, so one manifest serves them all.
 *
 * @example
 * ```ts
 * import { type FleetController } from '@kindex/informer';
 * import { fleetMemberManifests } from '@kindex/informer/internal';
 * declare const fleet: FleetController;
 *
 * for (const [name, manifest] of await fleetMemberManifests([fleet], { name: 'web-operator' })) {
 *   console.log(`# apply to every member cluster of fleet ${name}`);
 *   console.log(manifest.yaml);
 * }
 * ```
 */
export async function fleetMemberManifests(
  fleets: readonly FleetController<KubernetesObject>[],
  options: Pick<RbacListingOptions, 'secondaryVerbs' | 'events' | 'name'> = {},
): Promise<ReadonlyMap<string, RbacManifest>> {
  const { name, secondaryVerbs, events } = options;
  const listing = { ...(secondaryVerbs !== undefined ? { secondaryVerbs } : {}), ...(events !== undefined ? { events } : {}) };
  const out = new Map<string, RbacManifest>();
  for (const fleet of fleets) {
    const permissions = await requiredPermissions([fleet.memberTemplate], listing);
    out.set(fleet.name, rbacManifest(permissions, name !== undefined ? { name } : {}));
  }
  return out;
}
