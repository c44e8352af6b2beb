// Aggregated discovery (apidiscovery.k8s.io/v2): every group, version and resource in
// one document per root, /api for the core group and /apis for the others. kubectl 1.30+ asks for
// it first (one request instead of one per group version) and falls back to the legacy documents
// of discovery.ts when the answer is plain application/json. Built on each request from the
// registry, so custom resources appear and disappear with their CRDs.

import type { ResourceRegistry } from '../storage/resource-registry.js';
import { servedGroups, servedResources, type GroupVersionKind, type ServedResource } from '../machinery/served-resources.js';

type Json = Record<string, unknown>;

/** An aggregated discovery answer: the body and its content type. */
export interface AggregatedDiscoveryResponse {
  readonly body: string;
  readonly contentType: string;
}

const GROUP = 'apidiscovery.k8s.io';
// kube-apiserver 1.36 serves v2 alone and answers a v2beta1-only Accept with the legacy documents.
const SERVED_VERSIONS = ['v2'];

/**
 * The apidiscovery version the Accept header asks for (the first acceptable media type naming one
 * the server serves), or undefined when the client wants the legacy documents.
 */
export function aggregatedDiscoveryVersion(accept: string | undefined): string | undefined {
  for (const mediaType of (accept ?? '').split(',')) {
    const [type, ...params] = mediaType.split(';').map((s) => s.trim());
    if (type !== 'application/json') continue;
    const p = new Map(params.map((x) => x.split('=', 2) as [string, string]));
    if (p.get('g') !== GROUP || p.get('as') !== 'APIGroupDiscoveryList') continue;
    const version = p.get('v');
    if (version !== undefined && SERVED_VERSIONS.includes(version)) return version;
  }
  return undefined;
}

// kube-apiserver leaves group and version empty where a built-in kind is in the resource's own
// group version, and names them for custom resources and for another group's kind.
function responseKind(r: ServedResource, kind: GroupVersionKind): GroupVersionKind {
  const own = r.type?.custom !== true && kind.group === r.group && kind.version === r.version;
  return own ? { group: '', version: '', kind: kind.kind } : { group: kind.group, version: kind.version, kind: kind.kind };
}

function resourceDiscovery(r: ServedResource): Json {
  const entry: Json = {
    resource: r.resource,
    responseKind: responseKind(r, r),
    scope: r.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: r.singularName,
    verbs: r.verbs,
  };
  if (r.shortNames.length > 0) entry['shortNames'] = r.shortNames;
  if (r.categories.length > 0) entry['categories'] = r.categories;
  if (r.subresources.length > 0) {
    entry['subresources'] = r.subresources.map((s) => ({
      subresource: s.name,
      responseKind: responseKind(r, s.responseKind),
      verbs: s.verbs,
    }));
  }
  return entry;
}

/**
 * The APIGroupDiscoveryList of `/api` (`root: 'api'`, the core group) or `/apis` in the given
 * apidiscovery version, with its content type.
 */
export function aggregatedDiscovery(registry: ResourceRegistry, root: 'api' | 'apis', version: string): AggregatedDiscoveryResponse {
  // kubectl asks on every invocation; the document changes only with the registry.
  let cached = CACHE.get(registry);
  if (cached?.revision !== registry.revision) CACHE.set(registry, (cached = { revision: registry.revision, byRoot: new Map() }));
  const key = `${root}/${version}`;
  let answer = cached.byRoot.get(key);
  if (answer === undefined) cached.byRoot.set(key, (answer = build(registry, root, version)));
  return answer;
}

const CACHE = new WeakMap<ResourceRegistry, { revision: number; byRoot: Map<string, AggregatedDiscoveryResponse> }>();

function build(registry: ResourceRegistry, root: 'api' | 'apis', version: string): AggregatedDiscoveryResponse {
  const resources = servedResources(registry);
  const items = servedGroups(registry)
    .filter((g) => (root === 'api') === (g.group === ''))
    .map((g) => ({
      // The core group has no name: kube-apiserver omits the empty string.
      metadata: g.group === '' ? {} : { name: g.group },
      versions: g.versions.map((v) => ({
        version: v,
        resources: resources.filter((r) => r.group === g.group && r.version === v).map(resourceDiscovery),
        freshness: 'Current',
      })),
    }));
  const list = { kind: 'APIGroupDiscoveryList', apiVersion: `${GROUP}/${version}`, metadata: {}, items };
  return { body: JSON.stringify(list), contentType: `application/json;g=${GROUP};v=${version};as=APIGroupDiscoveryList` };
}
