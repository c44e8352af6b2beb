import { type EventSource, type KubernetesObject } from '@kindex/core';
import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';
import type { Controller } from '../controller/controller.js';
import { Kinds, resourceKind, type ResourceKind } from '../kind/resource-kind.js';
import type { ResourceType } from '../kind/resource-type.js';
import { InformerEventSource } from '../source/informer-event-source.js';
import type { NamespaceSet } from '../cache/informer-cache-options.js';
import { RBAC_MANIFEST_OPTIONS, type RbacManifestOptions, type RequiredPermission } from '../rbac/rbac-manifest.js';

/**
 * Options of `Operator.rbacManifest()`: what kindex cannot see from the registrations.
 *
 * @example
 * ```ts
 * import type { Operator, RbacListingOptions } from '@kindex/informer';
 * declare const operator: Operator;
 *
 * // Our reconcilers also read Nodes, which no event source watches.
 * const options: RbacListingOptions = {
 *   extraPermissions: [{ group: '', resource: 'nodes', verbs: ['get'], namespaces: 'all', clusterScoped: true }],
 * };
 * const { yaml } = await operator.rbacManifest(options);
 * ```
 */
export interface RbacListingOptions extends RbacManifestOptions {
  /**
   * Verbs on each event source's kind. A source needs `list` and `watch` to cache (and `get`
   * for reads by name); declare what a reconciler writes with the controller's `writes` option
   * instead of widening this for every watched kind. Defaults to `['get', 'list', 'watch']`.
   */
  readonly secondaryVerbs?: readonly string[];
  /** Extra permissions, for what reconcilers do outside the event sources and `writes` (reads of unwatched kinds). */
  readonly extraPermissions?: readonly RequiredPermission[];
  /**
   * Grant `create` and `patch` on events.k8s.io Events where each controller's Events go (its
   * primaries' namespaces; `default` for a cluster-scoped primary), for `context.getEventRecorder()`.
   * Set false when no reconciler records Events; Events about objects elsewhere need
   * `extraPermissions`. Defaults to true.
   */
  readonly events?: boolean;
  /**
   * Include the Leases of leader election and sharding (see `leasePermissions`). Set false
   * to grant them in Roles of their own, as `kindex manifests` does. Defaults to true.
   */
  readonly leases?: boolean;
}

/** {@link RbacListingOptions}' keys and value checks, `rbacManifest`'s own included. */
export const RBAC_LISTING_OPTIONS = defineOptions<RbacListingOptions>('requiredPermissions options', {
  ...RBAC_MANIFEST_OPTIONS.properties,
  secondaryVerbs: Type.Optional(Type.Array(Type.String(), { description: "an array of verbs such as ['get', 'list', 'watch']" })),
  extraPermissions: Type.Optional(Type.Array(Type.Unknown(), { description: 'an array of RequiredPermission' })),
  events: Type.Optional(Type.Boolean({ description: 'true or false' })),
  leases: Type.Optional(Type.Boolean({ description: 'true or false' })),
});

/** What caching a kind takes: list and watch for the informer, get for reads by name. */
export const READ_VERBS = ['get', 'list', 'watch'];
/**
 * What a workflow dependent takes: server-side apply is a PATCH, and kube-apiserver also checks
 * `create` when the apply creates the object; delete when a condition turns false or on cleanup.
 */
export const DEPENDENT_WRITE_VERBS = ['create', 'patch', 'delete'];

/** The kind `context.getEventRecorder()` writes. */
const EVENTS = resourceKind({ group: 'events.k8s.io', version: 'v1', kind: 'Event', plural: 'events', namespaced: true });

/**
 * The permissions a set of controllers needs, least privilege: read verbs (`get`, `list`,
 * `watch`) on every kind a controller watches, and write verbs only on what it writes:
 * - the primary: `patch` when kindex patches it (adding and removing the finalizer, or status
 *   without a status subresource); `/status`: `patch` when the kind has a status subresource;
 *   `/finalizers`: `update` when it has a finalizer or owned dependents (the
 *   OwnerReferencesPermissionEnforcement admission plugin checks it for `blockOwnerDeletion`);
 * - workflow dependents: `create`, `patch` and `delete` (applied with server-side apply);
 * - the kinds declared with the controller's `writes` option, with their verbs.
 *
 * Each permission is in the namespaces the controller (or the event source) watches. Namespaces
 * chosen by a label selector are only known at run time: those permissions go to the
 * ClusterRole, with list and watch on namespaces for the selector's informer. Leases for leader
 * election and sharding are the Operator's, not a controller's: see {@link leasePermissions}
 * (`Operator.rbacManifest()` adds both). Unless `events: false`, each controller may also
 * `create` and `patch` events.k8s.io Events beside its primaries, for `context.getEventRecorder()`.
 *
 * Event sources are known only once a reconciler's `prepareEventSources` ran, so this prepares
 * them (through `Controller.prepareEventSources`, once, shared with `start()`). Sources other than
 * a KubeEventSource are listed when they declare a ResourceKind as `resourceType`.
 *
 * @example
 * ```ts
 * import { rbacManifest, requiredPermissions, type Operator } from '@kindex/informer';
 * declare const operator: Operator;
 *
 * // What the registered controllers need: primaries, what they watch, what they write.
 * const permissions = await requiredPermissions(operator.controllers);
 * for (const p of permissions) console.log(p.group || 'core', p.resource, p.verbs.join(','), p.neededBy);
 * const { yaml } = rbacManifest(permissions);
 * ```
 */
export async function requiredPermissions(
  controllers: readonly Controller<KubernetesObject>[],
  options: RbacListingOptions = {},
): Promise<RequiredPermission[]> {
  RBAC_LISTING_OPTIONS.check(options);
  const secondaryVerbs = options.secondaryVerbs ?? READ_VERBS;
  const out: RequiredPermission[] = [];
  for (const c of controllers) {
    const namespaces = c.namespaceSelector !== undefined ? 'all' : c.primaryCache.namespaces;
    if (c.namespaceSelector !== undefined) {
      out.push(permission(Kinds.Namespace, 'namespaces', ['list', 'watch'], 'all', `controller ${c.name}: namespace selector`));
    }
    const primary = (resource: string, verbs: readonly string[], why: string): RequiredPermission =>
      permission(c.kind, resource, verbs, namespaces, `controller ${c.name}: ${why}`);
    out.push(primary(c.kind.plural, READ_VERBS, 'primary'));
    const writes = c.primaryWrites;
    // Finalizer edits are JSON patches of the primary; without a status subresource so is status.
    if (writes.finalizer !== undefined) out.push(primary(c.kind.plural, ['patch'], 'primary finalizer'));
    if (writes.statusSubresource) out.push(primary(`${c.kind.plural}/status`, ['patch'], 'primary status'));
    else out.push(primary(c.kind.plural, ['patch'], 'primary status (no status subresource)'));
    if (writes.finalizer !== undefined || c.dependents.some((d) => d.ownedByPrimary)) {
      out.push(primary(`${c.kind.plural}/finalizers`, ['update'], 'primary finalizers'));
    }
    for (const d of c.dependents) {
      if (d.cluster !== undefined) continue; // granted in its cluster: see remoteClusterPermissions
      out.push(permission(d.kind, d.kind.plural, DEPENDENT_WRITE_VERBS, namespaces, `controller ${c.name}: dependent ${d.kind.kind}`));
    }
    for (const w of c.declaredWrites) {
      out.push(permission(w.kind, w.kind.plural, w.verbs, w.namespaces ?? namespaces, `controller ${c.name}: writes ${w.kind.kind}`));
    }
    if (options.events !== false) {
      const where = c.kind.namespaced ? namespaces : ['default'];
      out.push({
        ...permission(EVENTS, 'events', ['create', 'patch'], where, `controller ${c.name}: Event recorder`),
        clusterScoped: false,
      });
    }
    for (const source of await c.prepareEventSources()) {
      // A remote source reads another cluster: its permissions are granted there, not to this ServiceAccount.
      if (source instanceof InformerEventSource && source.configuration.cluster !== undefined) continue;
      const kind = kindOf(source);
      if (kind === undefined) continue;
      let sourceNamespaces = namespaces;
      if (source.namespaceSelector !== undefined) {
        sourceNamespaces = 'all';
        out.push(
          permission(
            Kinds.Namespace,
            'namespaces',
            ['list', 'watch'],
            'all',
            `controller ${c.name}: event source ${source.name} namespace selector`,
          ),
        );
      } else if (source.namespaces !== undefined && !(source.inheritsNamespaces === true && c.namespaceSelector !== undefined)) {
        sourceNamespaces = source.namespaces;
      }
      out.push(permission(kind, kind.plural, secondaryVerbs, sourceNamespaces, `controller ${c.name}: event source ${source.name}`));
    }
  }
  out.push(...(options.extraPermissions ?? []));
  return out;
}

/** One permission of `kind`'s `resource` (a subresource too) in `namespaces`. */
export function permission(
  kind: ResourceType,
  resource: string,
  verbs: readonly string[],
  namespaces: NamespaceSet,
  neededBy: string,
): RequiredPermission {
  return { group: kind.group, resource, verbs, namespaces, clusterScoped: !kind.namespaced, neededBy };
}

function kindOf(source: EventSource<unknown, KubernetesObject>): ResourceKind<KubernetesObject> | undefined {
  const t = source.resourceType as Partial<ResourceKind<KubernetesObject>> | undefined;
  return t !== undefined && typeof t.plural === 'string' && typeof t.group === 'string' && typeof t.namespaced === 'boolean'
    ? (t as ResourceKind<KubernetesObject>)
    : undefined;
}
