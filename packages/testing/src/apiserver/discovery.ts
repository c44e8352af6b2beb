// Discovery documents (/api, /apis, /apis/<group>/<version>, /version) in the legacy
// (unaggregated) form. kubectl asks for aggregated discovery first and falls back to these when
// the response is plain application/json.

import { RESOURCE_VERBS, type ResourceRegistry, type ResourceType } from './resource-registry.js';

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

/** The /apis document (APIGroupList). */
export function groupList(registry: ResourceRegistry): Json {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: registry.groups().map((g) => groupDoc(g.group, g.versions)),
  };
}

/** The /apis/<group> document (APIGroup), or undefined for an unknown group. */
export function group(registry: ResourceRegistry, name: string): Json | undefined {
  const g = registry.groups().find((x) => x.group === name);
  return g === undefined ? undefined : { kind: 'APIGroup', apiVersion: 'v1', ...groupDoc(g.group, g.versions) };
}

function resourceEntry(t: ResourceType): Json {
  const entry: Json = {
    name: t.resource,
    singularName: t.singularName,
    namespaced: t.namespaced,
    kind: t.kind,
    verbs: t.id === '/namespaces' ? RESOURCE_VERBS.filter((v) => v !== 'deletecollection') : RESOURCE_VERBS,
  };
  if (t.shortNames.length > 0) entry['shortNames'] = t.shortNames;
  if (t.categories.length > 0) entry['categories'] = t.categories;
  return entry;
}

/** The APIResourceList of one group version (core group: `''`), or undefined when not served. */
export function resourceList(registry: ResourceRegistry, groupName: string, version: string): Json | undefined {
  if (!registry.servesGroupVersion(groupName, version)) return undefined;
  const resources: Json[] = [];
  for (const t of registry.all()) {
    if (t.group !== groupName || !t.versions.includes(version)) continue;
    resources.push(resourceEntry(t));
    if (t.statusSubresource) {
      resources.push({
        name: `${t.resource}/status`,
        singularName: '',
        namespaced: t.namespaced,
        kind: t.kind,
        verbs: ['get', 'patch', 'update'],
      });
    }
    // The Scale is another group's kind, so the entry names its group and version.
    if (t.scale?.[version] !== undefined) {
      resources.push({
        name: `${t.resource}/scale`,
        singularName: '',
        namespaced: t.namespaced,
        group: 'autoscaling',
        version: 'v1',
        kind: 'Scale',
        verbs: ['get', 'patch', 'update'],
      });
    }
  }
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: groupName === '' ? version : `${groupName}/${version}`,
    resources,
  };
}
