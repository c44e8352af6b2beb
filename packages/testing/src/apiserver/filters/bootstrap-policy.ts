// The ClusterRoles and ClusterRoleBindings kube-apiserver creates at start (its bootstrap policy,
// plugin/pkg/auth/authorizer/rbac/bootstrappolicy), limited to the ones tests lean on and to the
// resources the embedded server serves: cluster-admin for system:masters, discovery and
// self-reviews for every authenticated user, and the user-facing admin/edit/view, aggregated
// from their system:aggregate-to-* parts as in a cluster.
import type { Json } from '../storage/object-store.js';
import type { PolicyRule } from './rbac-authorizer.js';

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];
const AGGREGATE = 'rbac.authorization.k8s.io/aggregate-to-';
const BOOTSTRAP_LABELS = { 'kubernetes.io/bootstrapping': 'rbac-defaults' };

function clusterRole(name: string, rules: PolicyRule[], extra: { labels?: Record<string, string>; aggregationRule?: Json } = {}): Json {
  const role: Json = {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: {
      name,
      labels: { ...BOOTSTRAP_LABELS, ...extra.labels },
      annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
    },
    rules,
  };
  if (extra.aggregationRule !== undefined) role.aggregationRule = extra.aggregationRule;
  return role;
}

function binding(name: string, role: string, groups: string[]): Json {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name, labels: BOOTSTRAP_LABELS, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' } },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects: groups.map((g) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: g })),
  };
}

function aggregated(name: string, into: string, labels: Record<string, string> = {}): Json {
  return clusterRole(name, [], {
    labels,
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [`${AGGREGATE}${into}`]: 'true' } }] },
  });
}

const DISCOVERY_URLS = [
  '/api',
  '/api/*',
  '/apis',
  '/apis/*',
  '/healthz',
  '/livez',
  '/openapi',
  '/openapi/*',
  '/readyz',
  '/version',
  '/version/',
];
const PUBLIC_INFO_URLS = ['/healthz', '/livez', '/readyz', '/version', '/version/'];
const CORE_WORKLOADS = ['configmaps', 'events', 'pods', 'serviceaccounts', 'services'];

/** The bootstrap ClusterRoles, then their ClusterRoleBindings, in creation order. */
export const BOOTSTRAP_POLICY: readonly Json[] = [
  clusterRole('cluster-admin', [
    { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
    { nonResourceURLs: ['*'], verbs: ['*'] },
  ]),
  clusterRole('system:discovery', [{ nonResourceURLs: DISCOVERY_URLS, verbs: ['get'] }]),
  clusterRole('system:public-info-viewer', [{ nonResourceURLs: PUBLIC_INFO_URLS, verbs: ['get'] }]),
  // For servers that delegate authentication and authorization to this one (an operator's secure
  // metrics endpoint, an extension API server): kube-apiserver's rules exactly, bound to nobody.
  clusterRole('system:auth-delegator', [
    { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
    { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
  ]),
  clusterRole('system:basic-user', [
    { apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'], verbs: ['create'] },
    { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] },
  ]),
  aggregated('admin', 'admin'),
  aggregated('edit', 'edit', { [`${AGGREGATE}admin`]: 'true' }),
  aggregated('view', 'view', { [`${AGGREGATE}edit`]: 'true' }),
  clusterRole(
    'system:aggregate-to-admin',
    [
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['rolebindings', 'roles'], verbs: [...WRITE, ...READ] },
      { apiGroups: ['authorization.k8s.io'], resources: ['localsubjectaccessreviews'], verbs: ['create'] },
    ],
    { labels: { [`${AGGREGATE}admin`]: 'true' } },
  ),
  clusterRole(
    'system:aggregate-to-edit',
    [
      { apiGroups: [''], resources: ['serviceaccounts'], verbs: ['impersonate'] },
      { apiGroups: [''], resources: [...CORE_WORKLOADS, 'secrets', 'serviceaccounts/token'], verbs: WRITE },
      { apiGroups: [''], resources: ['secrets'], verbs: READ },
      { apiGroups: ['apps'], resources: ['deployments', 'deployments/scale', 'deployments/status'], verbs: WRITE },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: [...WRITE, ...READ] },
    ],
    { labels: { [`${AGGREGATE}edit`]: 'true' } },
  ),
  clusterRole(
    'system:aggregate-to-view',
    [
      { apiGroups: [''], resources: [...CORE_WORKLOADS, 'pods/status', 'services/status'], verbs: READ },
      { apiGroups: [''], resources: ['namespaces', 'namespaces/status'], verbs: READ },
      { apiGroups: ['apps'], resources: ['deployments', 'deployments/scale', 'deployments/status'], verbs: READ },
      { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: READ },
    ],
    { labels: { [`${AGGREGATE}view`]: 'true' } },
  ),
  binding('cluster-admin', 'cluster-admin', ['system:masters']),
  binding('system:discovery', 'system:discovery', ['system:authenticated']),
  binding('system:basic-user', 'system:basic-user', ['system:authenticated']),
  binding('system:public-info-viewer', 'system:public-info-viewer', ['system:authenticated', 'system:unauthenticated']),
];
