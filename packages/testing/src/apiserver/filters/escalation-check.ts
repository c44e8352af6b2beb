// RBAC's escalation prevention (pkg/registry/rbac/validation): a user may create, update, patch
// or apply a Role, ClusterRole or binding only if it already holds every permission that grants,
// unless it may `escalate` that role (for roles) or `bind` the referenced role (for bindings). The
// refusal lists the missing rights as kube-apiserver's ConfirmNoEscalation does.
import type { Json } from '../storage/object-store.js';
import type { PolicyRule } from './rbac-authorizer.js';
import type { UserInfo } from './request-attributes.js';

/** One verb on one resource (or URL) of one group, the unit rules are compared in. */
interface SimpleRule {
  readonly group: string | undefined;
  readonly resource: string | undefined;
  readonly resourceName: string | undefined;
  readonly url: string | undefined;
  readonly verb: string;
}

/** The rights in `requested` that `owned` does not cover, as kube-apiserver prints them (sorted, compacted). */
export function missingRights(owned: readonly PolicyRule[], requested: readonly PolicyRule[]): string[] {
  const missing = requested.flatMap(breakdown).filter((simple) => !owned.some((rule) => covers(rule, simple)));
  // CompactRules: one-group, one-resource rules (at most one name) are merged by resource, verbs in order.
  const compacted = new Map<string, { rule: PolicyRule; verbs: string[] }>();
  const others: PolicyRule[] = [];
  for (const m of missing) {
    if (m.url !== undefined) {
      others.push({ nonResourceURLs: [m.url], verbs: [m.verb] });
      continue;
    }
    const key = JSON.stringify([m.group, m.resource, m.resourceName]);
    const entry = compacted.get(key);
    if (entry !== undefined) entry.verbs.push(m.verb);
    else {
      const rule: PolicyRule = {
        apiGroups: [m.group!],
        resources: [m.resource!],
        ...(m.resourceName === undefined ? {} : { resourceNames: [m.resourceName] }),
        verbs: [],
      };
      compacted.set(key, { rule, verbs: [m.verb] });
    }
  }
  const rules = [...others, ...[...compacted.values()].map(({ rule, verbs }) => ({ ...rule, verbs }))];
  return [...new Set(rules.map(compactString))].sort();
}

/** The message of kube-apiserver's refusal (inside its 403 Forbidden). */
export function escalationMessage(user: UserInfo, missing: readonly string[]): string {
  return `user ${JSON.stringify(user.username)} (groups=${goQuoted(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${missing.join('\n')}`;
}

function breakdown(rule: PolicyRule): SimpleRule[] {
  const out: SimpleRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        const names = rule.resourceNames ?? [];
        if (names.length === 0) out.push({ group, resource, resourceName: undefined, url: undefined, verb });
        for (const resourceName of names) out.push({ group, resource, resourceName, url: undefined, verb });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of rule.verbs) out.push({ group: undefined, resource: undefined, resourceName: undefined, url, verb });
  }
  return out;
}

function covers(owner: PolicyRule, s: SimpleRule): boolean {
  if (!owner.verbs.includes('*') && !owner.verbs.includes(s.verb)) return false;
  if (s.url !== undefined) {
    return (owner.nonResourceURLs ?? []).some((u) => u === '*' || u === s.url || (u.endsWith('*') && s.url!.startsWith(u.slice(0, -1))));
  }
  const groups = owner.apiGroups ?? [];
  if (!groups.includes('*') && !groups.includes(s.group!)) return false;
  const resource = s.resource!;
  const slash = resource.indexOf('/');
  const resources = owner.resources ?? [];
  const resourceCovered =
    resources.includes('*') || resources.includes(resource) || (slash >= 0 && resources.includes(`*${resource.slice(slash)}`));
  if (!resourceCovered) return false;
  const names = owner.resourceNames ?? [];
  return names.length === 0 || (s.resourceName !== undefined && names.includes(s.resourceName));
}

// rbacv1helpers.CompactString: `{APIGroups:["apps"], Resources:["deployments"], Verbs:["get" "list"]}`.
function compactString(rule: PolicyRule): string {
  const parts: string[] = [];
  if ((rule.apiGroups ?? []).length > 0) parts.push(`APIGroups:${goQuoted(rule.apiGroups!)}`);
  if ((rule.resources ?? []).length > 0) parts.push(`Resources:${goQuoted(rule.resources!)}`);
  if ((rule.resourceNames ?? []).length > 0) parts.push(`ResourceNames:${goQuoted(rule.resourceNames!)}`);
  if ((rule.nonResourceURLs ?? []).length > 0) parts.push(`NonResourceURLs:${goQuoted(rule.nonResourceURLs!)}`);
  if (rule.verbs.length > 0) parts.push(`Verbs:${goQuoted(rule.verbs)}`);
  return `{${parts.join(', ')}}`;
}

/** Go's `%q` of a []string: `["a" "b"]`. */
function goQuoted(values: readonly string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(' ')}]`;
}

/**
 * Whether `next` differs from `old` only in what the garbage collector writes (ownerReferences,
 * finalizers) or in managedFields: kube-apiserver's IsOnlyMutatingGCFields, which lets such an
 * update through unchecked. Absent, null and empty lists or maps compare equal, as in Go's
 * semantic equality (nil and empty slices are equal).
 */
export function onlyGarbageCollectorFieldsChange(next: Json, old: Json): boolean {
  const copy = structuredClone(next);
  const meta = (copy.metadata ?? {}) as Json;
  const oldMeta = (old.metadata ?? {}) as Json;
  for (const field of ['ownerReferences', 'finalizers', 'selfLink', 'managedFields']) {
    if (oldMeta[field] === undefined) delete meta[field];
    else meta[field] = oldMeta[field];
  }
  copy.metadata = meta;
  const before = structuredClone(old);
  before.metadata = { ...oldMeta };
  // Times compare as instants: a client may send back `...:27.000Z` for a stored `...:27Z`.
  for (const m of [meta, before.metadata as Json]) {
    for (const field of ['creationTimestamp', 'deletionTimestamp']) {
      if (typeof m[field] === 'string') m[field] = Date.parse(m[field]);
    }
  }
  return JSON.stringify(semantic(copy)) === JSON.stringify(semantic(before));
}

// Drops null, empty lists and empty maps, and sorts keys, so that JSON text compares as Go's
// semantic DeepEqual does.
function semantic(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(semantic);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = semantic((value as Record<string, unknown>)[key]);
    if (v === null || v === undefined || (Array.isArray(v) && v.length === 0)) continue;
    if (typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0) continue;
    out[key] = v;
  }
  return out;
}
