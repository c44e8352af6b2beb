// Discovery documents (/api, /apis, /apis/<group>/<version>, /version) in the legacy
// (unaggregated) form. kubectl asks for aggregated discovery first and falls back to these when
// the response is plain application/json.

import type { ResourceRegistry } from '../storage/resource-registry.js';
import { servedGroups, servedResources, type ServedResource } from '../machinery/served-resources.js';

type Json = Record<string, unknown>;

/** The /version document. */
export function versionInfo(): Json {
  return {
    major: '1',
    minor: '36',
    gitVersion: 'v1.36.0-kindex',
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-01-01T00:00:00Z',
    goVersion: 'go1.24.0',
    compiler: 'gc',
    platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
  };
}

/** The /api document (APIVersions). */
export function coreVersions(serverAddress: string): Json {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupDoc(group: string, versions: readonly string[]): Json {
  const gvs = versions.map((version) => ({ groupVersion: `${group}/${version}`, version }));
  return { name: group, versions: gvs, preferredVersion: gvs[0] };
}

function apiGroups(registry: ResourceRegistry): { group: string; versions: string[] }[] {
  return servedGroups(registry).filter((g) => g.group !== '');
}

/** The /apis document (APIGroupList). */
export function groupList(registry: ResourceRegistry): Json {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: apiGroups(registry).map((g) => groupDoc(g.group, g.versions)),
  };
}

/** The /apis/<group> document (APIGroup), or undefined for an unknown group. */
export function group(registry: ResourceRegistry, name: string): Json | undefined {
  const g = apiGroups(registry).find((x) => x.group === name);
  return g === undefined ? undefined : { kind: 'APIGroup', apiVersion: 'v1', ...groupDoc(g.group, g.versions) };
}

function resourceEntries(r: ServedResource): Json[] {
  const entry: Json = {
    name: r.resource,
    singularName: r.singularName,
    namespaced: r.namespaced,
    kind: r.kind,
    verbs: r.verbs,
  };
  if (r.shortNames.length > 0) entry['shortNames'] = r.shortNames;
  if (r.categories.length > 0) entry['categories'] = r.categories;
  const subresources = r.subresources.map((s): Json => {
    // A subresource serving another group's kind (Scale, TokenRequest) names that group and version.
    const foreign = s.responseKind.group !== r.group || s.responseKind.version !== r.version;
    return {
      name: `${r.resource}/${s.name}`,
      singularName: '',
      namespaced: r.namespaced,
      ...(foreign ? { group: s.responseKind.group, version: s.responseKind.version } : {}),
      kind: s.responseKind.kind,
      verbs: s.verbs,
    };
  });
  return [entry, ...subresources];
}

/** The APIResourceList of one group version (core group: `''`), or undefined when not served. */
export function resourceList(registry: ResourceRegistry, groupName: string, version: string): Json | undefined {
  const served = servedResources(registry).filter((r) => r.group === groupName && r.version === version);
  if (served.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: groupName === '' ? version : `${groupName}/${version}`,
    resources: served.flatMap(resourceEntries),
  };
}
