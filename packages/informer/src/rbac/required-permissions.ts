import type { EventSource, KubernetesObject } from '@kindex/core';
import type { Controller } from '../controller/controller.js';
import { Kinds, resourceKind, type ResourceKind } from '../kind/resource-kind.js';
import { InformerEventSource } from '../source/informer-event-source.js';
import type { NamespaceSet } from '../cache/informer-cache.js';
import type { RbacManifestOptions, RequiredPermission } from './rbac-manifest.js';

/**
 * Options of `Operator.rbacManifest()`: what kindex cannot see from the registrations.
 *
 * @example
 * ```ts
 * import type { Operator, RbacListingOptions } from '@kindex/informer';
 * declare const operator: Operator;
 *
 * // Our reconcilers also create and delete their secondaries, and read Nodes.
 * const options: RbacListingOptions = {
 *   secondaryVerbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'],
 *   extraPermissions: [{ group: '', resource: 'nodes', verbs: ['get'], namespaces: 'all', clusterScoped: true }],
 * };
 * const { yaml } = await operator.rbacManifest(options);
 * ```
 */
export interface RbacListingOptions extends RbacManifestOptions {
  /**
   * Verbs on each event source's kind. A source only needs `list` and `watch` to cache; most
   * reconcilers also create, update and delete what they watch, which kindex cannot see.
   * Defaults to `['get', 'list', 'watch', 'create', 'update', 'patch', 'delete']`.
   */
  readonly secondaryVerbs?: readonly string[];
  /** Extra permissions, for what reconcilers do outside the event sources (Leases, Events, reads). */
  readonly extraPermissions?: readonly RequiredPermission[];
  /**
   * Grant `create` and `patch` on events.k8s.io Events where each controller's Events go (its
   * primaries' namespaces; `default` for a cluster-scoped primary), for `context.getEventRecorder()`.
   * Set false when no reconciler records Events; Events about objects elsewhere need
   * `extraPermissions`. Defaults to true.
   */
  readonly events?: boolean;
}

/** The kind `context.getEventRecorder()` writes. */
const EVENTS = resourceKind({ group: 'events.k8s.io', version: 'v1', kind: 'Event', plural: 'events', namespaced: true });

const DEFAULT_SECONDARY_VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];

/**
 * The permissions a set of controllers needs: per controller, its primary kind (read, watch,
 * patch), `/status` when it writes status through the subresource, `/finalizers` when it has
 * cleanup (needed where OwnerReferencesPermissionEnforcement is on), and every event source's
 * kind with `secondaryVerbs`, each in the namespaces it watches. Namespaces chosen by a label
 * selector are only known at run time: those permissions go to the ClusterRole, with list and
 * watch on namespaces for the selector's informer.
 *
 * Event sources are known only once a reconciler's `prepareEventSources` ran, so this prepares
 * them (through `Controller.prepareEventSources`, once, shared with `start()`). Sources other than
 * InformerEventSource are listed when they declare a ResourceKind as `resourceType`.
 *
 * @example
 * ```ts
 * import { rbacManifest, requiredPermissions, type Operator } from '@kindex/informer';
 * declare const operator: Operator;
 *
 * // What the registered controllers need: primaries, secondaries, leases, events.
 * const permissions = await requiredPermissions(operator.controllers);
 * for (const p of permissions) console.log(p.group || 'core', p.resource, p.verbs.join(','), p.neededBy);
 * const { yaml } = rbacManifest(permissions);
 * ```
 */
export async function requiredPermissions(
  controllers: readonly Controller<KubernetesObject>[],
  options: RbacListingOptions = {},
): Promise<RequiredPermission[]> {
  const secondaryVerbs = options.secondaryVerbs ?? DEFAULT_SECONDARY_VERBS;
  const out: RequiredPermission[] = [];
  for (const c of controllers) {
    const namespaces = c.namespaceSelector !== undefined ? 'all' : c.primaryCache.namespaces;
    if (c.namespaceSelector !== undefined) {
      out.push(permission(Kinds.Namespace, 'namespaces', ['list', 'watch'], 'all', `controller ${c.name}: namespace selector`));
    }
    const primary = (resource: string, verbs: readonly string[]): RequiredPermission =>
      permission(c.kind, resource, verbs, namespaces, `controller ${c.name}: primary`);
    out.push(primary(c.kind.plural, ['get', 'list', 'watch', 'patch', 'update']));
    const writes = c.primaryWrites;
    if (writes.statusSubresource) out.push(primary(`${c.kind.plural}/status`, ['get', 'patch', 'update']));
    if (writes.finalizer !== undefined) out.push(primary(`${c.kind.plural}/finalizers`, ['update']));
    if (options.events !== false) {
      const where = c.kind.namespaced ? namespaces : ['default'];
      out.push({
        ...permission(EVENTS, 'events', ['create', 'patch'], where, `controller ${c.name}: Event recorder`),
        clusterScoped: false,
      });
    }
    for (const source of await c.prepareEventSources()) {
      const kind = kindOf(source);
      if (kind === undefined) continue;
      let sourceNamespaces = namespaces;
      if (source instanceof InformerEventSource && source.namespaceSelector !== undefined) {
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
      } else if (source instanceof InformerEventSource && !(source.inheritsNamespaces && c.namespaceSelector !== undefined)) {
        sourceNamespaces = source.cache.namespaces;
      }
      out.push(permission(kind, kind.plural, secondaryVerbs, sourceNamespaces, `controller ${c.name}: event source ${source.name}`));
    }
  }
  out.push(...(options.extraPermissions ?? []));
  return out;
}

function permission(
  kind: ResourceKind<KubernetesObject>,
  resource: string,
  verbs: readonly string[],
  namespaces: NamespaceSet,
  neededBy: string,
): RequiredPermission {
  return { group: kind.group, resource, verbs, namespaces, clusterScoped: !kind.namespaced, neededBy };
}

function kindOf(source: EventSource<unknown, KubernetesObject>): ResourceKind<KubernetesObject> | undefined {
  if (source instanceof InformerEventSource) return source.resourceType as ResourceKind<KubernetesObject>;
  const t = source.resourceType as Partial<ResourceKind<KubernetesObject>> | undefined;
  return t !== undefined && typeof t.plural === 'string' && typeof t.group === 'string' && typeof t.namespaced === 'boolean'
    ? (t as ResourceKind<KubernetesObject>)
    : undefined;
}
