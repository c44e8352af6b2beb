// The kinds the embedded server serves: fixed built-ins plus custom resources that appear and
// disappear with their CustomResourceDefinitions. Discovery, routing and storage all read it.

/** What the server knows about one served resource (one group/resource, maybe several versions). */
export interface ResourceType {
  /** `group/resource`, unique; keys the object store. */
  readonly id: string;
  readonly group: string;
  /** Served versions; the first is preferred. */
  readonly versions: readonly string[];
  /** The version objects are stored (and their apiVersion written) in. */
  readonly storageVersion: string;
  readonly resource: string;
  readonly singularName: string;
  readonly kind: string;
  readonly listKind: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly statusSubresource: boolean;
  /** Custom resources: the versions declaring the status subresource (discovery lists it per version). */
  readonly statusVersions?: readonly string[];
  /** Custom resources are unstructured: their list items keep kind/apiVersion. */
  readonly custom: boolean;
  /** Whether metadata.generation is kept, and which top-level fields count as "spec" for it. */
  readonly generation: 'none' | 'spec' | 'all-but-metadata-status';
  /** Delete answers with the deleted object (true) or with a Success Status (false). */
  readonly returnDeletedObject: boolean;
  /** The versions serving a `/scale` subresource, and where each reads and writes (scale-subresource.ts). */
  readonly scale?: Readonly<Record<string, ScalePaths>>;
  /** Custom resources: the openAPIV3Schema of each version, for pruning and validation. */
  readonly schemas?: Readonly<Record<string, Record<string, unknown>>>;
}

/** Where a kind keeps what its autoscaling/v1 Scale shows: dotted paths such as `.spec.replicas`. */
export interface ScalePaths {
  readonly specReplicasPath: string;
  readonly statusReplicasPath: string;
  /** A string field holding a selector; omitted when the Scale shows none. */
  readonly labelSelectorPath?: string;
  /** The path holds a metav1.LabelSelector object (the built-in workloads), not a string. */
  readonly selectorIsObject?: boolean;
}

/** The type id of discovery.k8s.io EndpointSlices: their strategy and the webhook service resolver read them. */
export const ENDPOINT_SLICES = 'discovery.k8s.io/endpointslices';

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** The verbs advertised in discovery for every resource the embedded server serves. */
export const RESOURCE_VERBS: readonly string[] = VERBS;

function builtin(
  group: string,
  version: string,
  resource: string,
  kind: string,
  rest: Partial<Omit<ResourceType, 'id' | 'group' | 'resource' | 'kind'>>,
): ResourceType {
  return {
    id: `${group}/${resource}`,
    group,
    versions: [version],
    storageVersion: version,
    resource,
    singularName: kind.toLowerCase(),
    kind,
    listKind: `${kind}List`,
    namespaced: true,
    shortNames: [],
    categories: [],
    statusSubresource: false,
    custom: false,
    generation: 'none',
    returnDeletedObject: false,
    ...rest,
  };
}

/** The built-in kinds, as kube-apiserver describes them in discovery. */
export const BUILTIN_TYPES: readonly ResourceType[] = [
  builtin('', 'v1', 'namespaces', 'Namespace', {
    namespaced: false,
    shortNames: ['ns'],
    statusSubresource: true,
    returnDeletedObject: true,
  }),
  builtin('', 'v1', 'configmaps', 'ConfigMap', { shortNames: ['cm'] }),
  builtin('', 'v1', 'secrets', 'Secret', {}),
  builtin('', 'v1', 'pods', 'Pod', {
    shortNames: ['po'],
    categories: ['all'],
    statusSubresource: true,
    generation: 'spec',
    returnDeletedObject: true,
  }),
  builtin('', 'v1', 'services', 'Service', {
    shortNames: ['svc'],
    categories: ['all'],
    statusSubresource: true,
    returnDeletedObject: true,
  }),
  builtin('', 'v1', 'events', 'Event', { shortNames: ['ev'] }),
  // The same objects as core/v1 events, another view of them (events-api.ts).
  builtin('events.k8s.io', 'v1', 'events', 'Event', { shortNames: ['ev'] }),
  builtin('apps', 'v1', 'deployments', 'Deployment', {
    shortNames: ['deploy'],
    categories: ['all'],
    statusSubresource: true,
    generation: 'spec',
    scale: {
      v1: {
        specReplicasPath: '.spec.replicas',
        statusReplicasPath: '.status.replicas',
        labelSelectorPath: '.spec.selector',
        selectorIsObject: true,
      },
    },
  }),
  builtin('coordination.k8s.io', 'v1', 'leases', 'Lease', {}),
  // Where a Service's endpoints are; webhooks by `service` reference are called there (webhook-service-resolver.ts).
  builtin('discovery.k8s.io', 'v1', 'endpointslices', 'EndpointSlice', {}),
  builtin('apiextensions.k8s.io', 'v1', 'customresourcedefinitions', 'CustomResourceDefinition', {
    namespaced: false,
    shortNames: ['crd', 'crds'],
    categories: ['api-extensions'],
    statusSubresource: true,
    generation: 'spec',
    returnDeletedObject: true,
  }),
  // Identities and RBAC (rbac-authorizer.ts reads these when the server enforces RBAC).
  builtin('', 'v1', 'serviceaccounts', 'ServiceAccount', { shortNames: ['sa'] }),
  builtin('rbac.authorization.k8s.io', 'v1', 'roles', 'Role', {}),
  builtin('rbac.authorization.k8s.io', 'v1', 'rolebindings', 'RoleBinding', {}),
  builtin('rbac.authorization.k8s.io', 'v1', 'clusterroles', 'ClusterRole', { namespaced: false }),
  builtin('rbac.authorization.k8s.io', 'v1', 'clusterrolebindings', 'ClusterRoleBinding', { namespaced: false }),
  builtin('admissionregistration.k8s.io', 'v1', 'mutatingwebhookconfigurations', 'MutatingWebhookConfiguration', {
    namespaced: false,
    categories: ['api-extensions'],
    generation: 'all-but-metadata-status',
  }),
  builtin('admissionregistration.k8s.io', 'v1', 'validatingwebhookconfigurations', 'ValidatingWebhookConfiguration', {
    namespaced: false,
    categories: ['api-extensions'],
    generation: 'all-but-metadata-status',
  }),
];

/** The served kinds, looked up by group, version and resource. */
export class ResourceRegistry {
  private readonly byId = new Map<string, ResourceType>();
  #revision = 0;

  /** Changes whenever a type is registered or unregistered (documents built from the registry are cached per revision). */
  get revision(): number {
    return this.#revision;
  }

  constructor() {
    for (const t of BUILTIN_TYPES) this.byId.set(t.id, t);
  }

  /** The type serving `group/version/resource`, if that version is served. */
  lookup(group: string, version: string, resource: string): ResourceType | undefined {
    const t = this.byId.get(`${group}/${resource}`);
    return t !== undefined && t.versions.includes(version) ? t : undefined;
  }

  /** The type with this id (`group/resource`), whatever its versions. */
  byTypeId(id: string): ResourceType | undefined {
    return this.byId.get(id);
  }

  /** Every served type. */
  all(): ResourceType[] {
    return [...this.byId.values()];
  }

  /** Whether some type serves `group/version`. */
  servesGroupVersion(group: string, version: string): boolean {
    return this.all().some((t) => t.group === group && t.versions.includes(version));
  }

  /** Groups (without the core group) and their versions, preferred first, in registration order. */
  groups(): { group: string; versions: string[] }[] {
    const groups = new Map<string, string[]>();
    for (const t of this.byId.values()) {
      if (t.group === '') continue;
      const vs = groups.get(t.group) ?? [];
      for (const v of t.versions) if (!vs.includes(v)) vs.push(v);
      groups.set(t.group, vs);
    }
    return [...groups].map(([group, versions]) => ({ group, versions: sortVersions(versions) }));
  }

  /** Serves a custom resource (replacing an earlier definition of the same group/resource). */
  register(type: ResourceType): void {
    this.byId.set(type.id, type);
    this.#revision++;
  }

  /** Stops serving a custom resource. */
  unregister(id: string): void {
    const t = this.byId.get(id);
    if (t?.custom && this.byId.delete(id)) this.#revision++;
  }
}

// Kubernetes version priority: GA > beta > alpha, higher numbers first (v2 > v1 > v1beta2).
function versionRank(v: string): [number, number, number] {
  const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
  if (m === null) return [0, 0, 0];
  const stability = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
  return [stability, Number(m[1]), Number(m[3] ?? 0)];
}

/** Sorts versions by Kubernetes priority, preferred first. */
export function sortVersions(versions: readonly string[]): string[] {
  return [...versions].sort((a, b) => {
    const x = versionRank(a);
    const y = versionRank(b);
    for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return y[i]! - x[i]!;
    return a < b ? -1 : 1;
  });
}
