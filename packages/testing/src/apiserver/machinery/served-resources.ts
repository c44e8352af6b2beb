// What discovery and OpenAPI say about each served resource, in one neutral form that the legacy
// discovery documents, aggregated discovery and the OpenAPI builders all render. Besides the
// stored kinds of the registry, the server answers create-only "virtual" resources (reviews and
// TokenRequest, access-control.ts), which kube-apiserver lists in discovery too.

import { RESOURCE_VERBS, type ResourceRegistry, type ResourceType } from '../storage/resource-registry.js';

/** A group, version and kind. */
export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** One subresource of a served resource, as discovery lists it. */
export interface ServedSubresource {
  readonly name: string;
  /** The kind the subresource reads and writes (a Scale is autoscaling/v1's). */
  readonly responseKind: GroupVersionKind;
  readonly verbs: readonly string[];
}

/** One served resource in one version. */
export interface ServedResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly singularName: string;
  readonly kind: string;
  readonly listKind: string | undefined;
  readonly namespaced: boolean;
  readonly verbs: readonly string[];
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly subresources: readonly ServedSubresource[];
  /** The registry's type; undefined for create-only resources. */
  readonly type: ResourceType | undefined;
}

const SUBRESOURCE_VERBS = ['get', 'patch', 'update'];

// The reviews kube-apiserver serves as create-only, cluster-scoped resources (access-control.ts
// answers them, TokenReview through token-review.ts).
const CREATE_ONLY: readonly (readonly [group: string, resource: string, kind: string])[] = [
  ['authentication.k8s.io', 'selfsubjectreviews', 'SelfSubjectReview'],
  ['authentication.k8s.io', 'tokenreviews', 'TokenReview'],
  ['authorization.k8s.io', 'selfsubjectaccessreviews', 'SelfSubjectAccessReview'],
  ['authorization.k8s.io', 'selfsubjectrulesreviews', 'SelfSubjectRulesReview'],
  ['authorization.k8s.io', 'subjectaccessreviews', 'SubjectAccessReview'],
];

/** The create-only resources (reviews) the server answers, all in version v1. */
export const CREATE_ONLY_RESOURCES: readonly ServedResource[] = CREATE_ONLY.map(([group, resource, kind]) => ({
  group,
  version: 'v1',
  resource,
  singularName: kind.toLowerCase(),
  kind,
  listKind: undefined,
  namespaced: false,
  verbs: ['create'],
  shortNames: [],
  categories: [],
  subresources: [],
  type: undefined,
}));

function subresourcesOf(t: ResourceType, version: string): ServedSubresource[] {
  const subresources: ServedSubresource[] = [];
  if (t.statusVersions?.includes(version) ?? t.statusSubresource) {
    subresources.push({ name: 'status', responseKind: { group: t.group, version, kind: t.kind }, verbs: SUBRESOURCE_VERBS });
  }
  if (t.scale?.[version] !== undefined) {
    subresources.push({ name: 'scale', responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' }, verbs: SUBRESOURCE_VERBS });
  }
  // TokenRequest (access-control.ts): create-only, another group's kind.
  if (t.id === '/serviceaccounts') {
    subresources.push({
      name: 'token',
      responseKind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' },
      verbs: ['create'],
    });
  }
  return subresources;
}

function fromType(t: ResourceType, version: string): ServedResource {
  return {
    group: t.group,
    version,
    resource: t.resource,
    singularName: t.singularName,
    kind: t.kind,
    listKind: t.listKind,
    namespaced: t.namespaced,
    // kube-apiserver has no deletecollection for namespaces.
    verbs: t.id === '/namespaces' ? RESOURCE_VERBS.filter((v) => v !== 'deletecollection') : RESOURCE_VERBS,
    shortNames: t.shortNames,
    categories: t.categories,
    subresources: subresourcesOf(t, version),
    type: t,
  };
}

/** Every served resource in every served version, registry order, create-only ones last. */
export function servedResources(registry: ResourceRegistry): ServedResource[] {
  const served = registry.all().flatMap((t) => t.versions.map((v) => fromType(t, v)));
  return [...served, ...CREATE_ONLY_RESOURCES];
}

/** Served group versions: the groups (core group `''` first) and their versions, preferred first. */
export function servedGroups(registry: ResourceRegistry): { group: string; versions: string[] }[] {
  const groups = [{ group: '', versions: ['v1'] }, ...registry.groups()];
  for (const r of CREATE_ONLY_RESOURCES) {
    const g = groups.find((x) => x.group === r.group);
    if (g === undefined) groups.push({ group: r.group, versions: [r.version] });
    else if (!g.versions.includes(r.version)) g.versions.push(r.version);
  }
  return groups;
}
