// What discovery must say about each kind the embedded server serves, as kube-apiserver 1.36.3
// says it (read from the real server): the conformance tests check both servers against this
// table, so a kind added to the embedded server without its discovery facts fails on both. The
// real server serves more subresources (pods/log, services/proxy, ...) than the embedded one:
// `subresources` lists the ones both serve.

/** One resource's discovery facts. */
export interface ServedKind {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly kind: string;
  readonly singularName: string;
  readonly namespaced: boolean;
  readonly verbs: readonly string[];
  readonly shortNames?: readonly string[];
  readonly categories?: readonly string[];
  /**
   * Subresource name to its verbs and the kind it answers with, as aggregated discovery writes it
   * (`group/version/Kind`): kube-apiserver leaves group and version empty for a built-in kind's
   * own group version (`//Pod`), and names them for another group's kind or a custom resource.
   */
  readonly subresources?: Readonly<Record<string, { readonly verbs: readonly string[]; readonly kind: string }>>;
}

const ALL = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const SUB = ['get', 'patch', 'update'];

/** Every resource the embedded server serves, with kube-apiserver's discovery facts. */
export const SERVED_KINDS: readonly ServedKind[] = [
  {
    group: '',
    version: 'v1',
    resource: 'namespaces',
    kind: 'Namespace',
    singularName: 'namespace',
    namespaced: false,
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['ns'],
    subresources: { status: { verbs: SUB, kind: '//Namespace' } },
  },
  {
    group: '',
    version: 'v1',
    resource: 'configmaps',
    kind: 'ConfigMap',
    singularName: 'configmap',
    namespaced: true,
    verbs: ALL,
    shortNames: ['cm'],
  },
  { group: '', version: 'v1', resource: 'secrets', kind: 'Secret', singularName: 'secret', namespaced: true, verbs: ALL },
  {
    group: '',
    version: 'v1',
    resource: 'pods',
    kind: 'Pod',
    singularName: 'pod',
    namespaced: true,
    verbs: ALL,
    shortNames: ['po'],
    categories: ['all'],
    subresources: { status: { verbs: SUB, kind: '//Pod' } },
  },
  {
    group: '',
    version: 'v1',
    resource: 'services',
    kind: 'Service',
    singularName: 'service',
    namespaced: true,
    verbs: ALL,
    shortNames: ['svc'],
    categories: ['all'],
    subresources: { status: { verbs: SUB, kind: '//Service' } },
  },
  { group: '', version: 'v1', resource: 'events', kind: 'Event', singularName: 'event', namespaced: true, verbs: ALL, shortNames: ['ev'] },
  {
    group: '',
    version: 'v1',
    resource: 'serviceaccounts',
    kind: 'ServiceAccount',
    singularName: 'serviceaccount',
    namespaced: true,
    verbs: ALL,
    shortNames: ['sa'],
    subresources: { token: { verbs: ['create'], kind: 'authentication.k8s.io/v1/TokenRequest' } },
  },
  {
    group: 'events.k8s.io',
    version: 'v1',
    resource: 'events',
    kind: 'Event',
    singularName: 'event',
    namespaced: true,
    verbs: ALL,
    shortNames: ['ev'],
  },
  {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    resource: 'mutatingwebhookconfigurations',
    kind: 'MutatingWebhookConfiguration',
    singularName: 'mutatingwebhookconfiguration',
    namespaced: false,
    verbs: ALL,
    categories: ['api-extensions'],
  },
  {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    resource: 'validatingwebhookconfigurations',
    kind: 'ValidatingWebhookConfiguration',
    singularName: 'validatingwebhookconfiguration',
    namespaced: false,
    verbs: ALL,
    categories: ['api-extensions'],
  },
  {
    group: 'apps',
    version: 'v1',
    resource: 'deployments',
    kind: 'Deployment',
    singularName: 'deployment',
    namespaced: true,
    verbs: ALL,
    shortNames: ['deploy'],
    categories: ['all'],
    subresources: {
      status: { verbs: SUB, kind: '//Deployment' },
      scale: { verbs: SUB, kind: 'autoscaling/v1/Scale' },
    },
  },
  { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', kind: 'Lease', singularName: 'lease', namespaced: true, verbs: ALL },
  {
    group: 'discovery.k8s.io',
    version: 'v1',
    resource: 'endpointslices',
    kind: 'EndpointSlice',
    singularName: 'endpointslice',
    namespaced: true,
    verbs: ALL,
  },
  {
    group: 'apiextensions.k8s.io',
    version: 'v1',
    resource: 'customresourcedefinitions',
    kind: 'CustomResourceDefinition',
    singularName: 'customresourcedefinition',
    namespaced: false,
    verbs: ALL,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    subresources: { status: { verbs: SUB, kind: '//CustomResourceDefinition' } },
  },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    resource: 'roles',
    kind: 'Role',
    singularName: 'role',
    namespaced: true,
    verbs: ALL,
  },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    resource: 'rolebindings',
    kind: 'RoleBinding',
    singularName: 'rolebinding',
    namespaced: true,
    verbs: ALL,
  },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    resource: 'clusterroles',
    kind: 'ClusterRole',
    singularName: 'clusterrole',
    namespaced: false,
    verbs: ALL,
  },
  {
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    resource: 'clusterrolebindings',
    kind: 'ClusterRoleBinding',
    singularName: 'clusterrolebinding',
    namespaced: false,
    verbs: ALL,
  },
  {
    group: 'authentication.k8s.io',
    version: 'v1',
    resource: 'selfsubjectreviews',
    kind: 'SelfSubjectReview',
    singularName: 'selfsubjectreview',
    namespaced: false,
    verbs: ['create'],
  },
  {
    group: 'authentication.k8s.io',
    version: 'v1',
    resource: 'tokenreviews',
    kind: 'TokenReview',
    singularName: 'tokenreview',
    namespaced: false,
    verbs: ['create'],
  },
  {
    group: 'authorization.k8s.io',
    version: 'v1',
    resource: 'selfsubjectaccessreviews',
    kind: 'SelfSubjectAccessReview',
    singularName: 'selfsubjectaccessreview',
    namespaced: false,
    verbs: ['create'],
  },
  {
    group: 'authorization.k8s.io',
    version: 'v1',
    resource: 'selfsubjectrulesreviews',
    kind: 'SelfSubjectRulesReview',
    singularName: 'selfsubjectrulesreview',
    namespaced: false,
    verbs: ['create'],
  },
  {
    group: 'authorization.k8s.io',
    version: 'v1',
    resource: 'subjectaccessreviews',
    kind: 'SubjectAccessReview',
    singularName: 'subjectaccessreview',
    namespaced: false,
    verbs: ['create'],
  },
];
