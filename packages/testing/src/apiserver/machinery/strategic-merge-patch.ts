// Strategic merge patch for the built-in kinds the embedded server serves: JSON merge patch plus
// the merge keys of the Kubernetes Go types (lists of containers merge by name, finalizers merge
// as sets, ...) and the patch directives kubectl sends ($patch, $setElementOrder,
// $deleteFromPrimitiveList, $retainKeys). Lists without a merge key are replaced, as in Kubernetes.

import { isJsonObject } from '@kindex/core/internal';
import type { Json } from '../storage/object-store.js';

// Field name -> merge key ('' = list of primitives merged as a set). Only fields whose
// patchStrategy is "merge" in k8s.io/api appear here; any other list is replaced whole.
const MERGE_KEYS: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  env: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  imagePullSecrets: 'name',
  ownerReferences: 'uid',
  conditions: 'type',
  hostAliases: 'ip',
  topologySpreadConstraints: 'topologyKey',
  finalizers: '',
};

// `ports` merges by containerPort inside a container and by port inside a Service spec.
function mergeKeyOf(field: string, parentHasContainerShape: boolean): string | undefined {
  if (field === 'ports') return parentHasContainerShape ? 'containerPort' : 'port';
  return MERGE_KEYS[field];
}

/** Applies a strategic merge patch to `target` (not modified) and returns the result. */
export function strategicMergePatch(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return patch;
  if (patch['$patch'] === 'replace') {
    const { $patch: _p, ...rest } = patch;
    return stripDirectives(rest);
  }
  if (patch['$patch'] === 'delete') return undefined;
  const out: Json = isJsonObject(target) ? { ...target } : {};
  const retain = Array.isArray(patch['$retainKeys']) ? new Set(patch['$retainKeys'] as string[]) : undefined;
  for (const [k, v] of Object.entries(patch)) {
    if (k.startsWith('$setElementOrder/') || k === '$retainKeys' || k === '$patch') continue;
    if (k.startsWith('$deleteFromPrimitiveList/')) {
      const field = k.slice('$deleteFromPrimitiveList/'.length);
      const drop = new Set(Array.isArray(v) ? v : []);
      if (Array.isArray(out[field])) out[field] = (out[field] as unknown[]).filter((x) => !drop.has(x));
      continue;
    }
    if (v === null) {
      delete out[k];
      continue;
    }
    const key = mergeKeyOf(k, 'image' in out || 'name' in out);
    if (Array.isArray(v) && key !== undefined && Array.isArray(out[k])) {
      out[k] = mergeList(out[k] as unknown[], v, key);
    } else if (isJsonObject(v)) {
      const merged = strategicMergePatch(out[k], v);
      if (merged === undefined) delete out[k];
      else out[k] = merged;
    } else {
      out[k] = Array.isArray(v) ? stripDirectives(v) : v;
    }
  }
  if (retain !== undefined) for (const k of Object.keys(out)) if (!retain.has(k)) delete out[k];
  return out;
}

function mergeList(current: unknown[], patch: unknown[], key: string): unknown[] {
  if (key === '') {
    const out = [...current];
    for (const v of patch) if (!out.includes(v)) out.push(v);
    return out;
  }
  if (patch.some((p) => isJsonObject(p) && p['$patch'] === 'replace')) {
    return patch.filter((p) => !(isJsonObject(p) && p['$patch'] === 'replace')).map(stripDirectives);
  }
  const out = [...current];
  for (const p of patch) {
    if (!isJsonObject(p)) continue;
    const i = out.findIndex((c) => isJsonObject(c) && c[key] === p[key]);
    if (p['$patch'] === 'delete') {
      if (i >= 0) out.splice(i, 1);
    } else if (i >= 0) {
      out[i] = strategicMergePatch(out[i], p);
    } else {
      out.push(strategicMergePatch({}, p));
    }
  }
  return out;
}

function stripDirectives(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(stripDirectives);
  if (!isJsonObject(v)) return v;
  const out: Json = {};
  for (const [k, x] of Object.entries(v)) if (!k.startsWith('$')) out[k] = stripDirectives(x);
  return out;
}
