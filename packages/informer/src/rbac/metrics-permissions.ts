import type { RequiredPermission } from './rbac-manifest.js';

/**
 * What the secure operator server needs to review its callers: `create` on `tokenreviews`
 * (authentication.k8s.io) and `subjectaccessreviews` (authorization.k8s.io), both cluster-scoped,
 * so they land in the ClusterRole. `Operator.rbacManifest()` adds them when `server.secure` is on
 * (controller-runtime's kubebuilder v4 scaffold ships the same rules as `metrics-auth-role`).
 *
 * @example
 * ```ts
 * import { rbacManifest, requiredPermissions, secureServerPermissions, type Operator } from '@kindex/informer';
 * declare const operator: Operator;
 *
 * // The rules of operator.rbacManifest() for an operator whose server is secure.
 * const permissions = [...(await requiredPermissions(operator.controllers)), ...secureServerPermissions()];
 * const { yaml } = rbacManifest(permissions);
 * ```
 */
export function secureServerPermissions(): RequiredPermission[] {
  const review = (group: string, resource: string, what: string): RequiredPermission => ({
    group,
    resource,
    verbs: ['create'],
    namespaces: 'all',
    clusterScoped: true,
    neededBy: `operator server: ${what} of each scrape (server.secure)`,
  });
  return [
    review('authentication.k8s.io', 'tokenreviews', 'authentication'),
    review('authorization.k8s.io', 'subjectaccessreviews', 'authorization'),
  ];
}

/**
 * A ClusterRole of non-resource URL rules, as {@link metricsReaderClusterRole} builds it.
 *
 * @example
 * ```ts
 * import { metricsReaderClusterRole, type NonResourceClusterRole } from '@kindex/informer';
 *
 * const role: NonResourceClusterRole = metricsReaderClusterRole('web-operator');
 * console.log(role.metadata.name); // web-operator-metrics-reader
 * ```
 */
export interface NonResourceClusterRole {
  readonly apiVersion: 'rbac.authorization.k8s.io/v1';
  readonly kind: 'ClusterRole';
  readonly metadata: { readonly name: string };
  readonly rules: readonly { readonly nonResourceURLs: readonly string[]; readonly verbs: readonly string[] }[];
}

/**
 * The `<name>-metrics-reader` ClusterRole to bind to whoever scrapes a secure operator server
 * (Prometheus' ServiceAccount): `get` on the non-resource URL `/metrics`, nothing else; not
 * `/debug/controllers`, which names cached objects and needs a rule of its own. As kubebuilder
 * v4's `metrics-reader` ClusterRole.
 *
 * @param name - The operator's name (`rbacManifest`'s `name`). Defaults to `kindex-operator`.
 *
 * @example
 * ```ts
 * import { stringify } from 'yaml';
 * import { metricsReaderClusterRole } from '@kindex/informer';
 *
 * const reader = metricsReaderClusterRole('web-operator');
 * const binding = {
 *   apiVersion: 'rbac.authorization.k8s.io/v1',
 *   kind: 'ClusterRoleBinding',
 *   metadata: { name: 'prometheus-web-operator-metrics' },
 *   roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: reader.metadata.name },
 *   subjects: [{ kind: 'ServiceAccount', name: 'prometheus-k8s', namespace: 'monitoring' }],
 * };
 * console.log([reader, binding].map((object) => stringify(object)).join('---\n'));
 * ```
 */
export function metricsReaderClusterRole(name: string = 'kindex-operator'): NonResourceClusterRole {
  if (typeof name !== 'string' || name === '') {
    throw new TypeError(`metricsReaderClusterRole: name must be the operator's name, a non-empty string, got ${JSON.stringify(name)}`);
  }
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: `${name}-metrics-reader` },
    rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
  };
}
