// RBAC as kube-apiserver's authorizer evaluates it (plugin/pkg/auth/authorizer/rbac): a request
// is allowed when a rule of a role bound to the user or one of its groups covers it. Bindings are
// indexed by subject and rebuilt only when an RBAC object changes, so a request looks at the
// bindings of its own user and groups, never at every binding.
import type { Json, ObjectStore } from '../storage/object-store.js';
import type { RequestAttributes, UserInfo } from './request-attributes.js';

const RBAC = 'rbac.authorization.k8s.io';
/** Store type ids of the four RBAC kinds. */
export const RBAC_TYPE_IDS = {
  role: `${RBAC}/roles`,
  roleBinding: `${RBAC}/rolebindings`,
  clusterRole: `${RBAC}/clusterroles`,
  clusterRoleBinding: `${RBAC}/clusterrolebindings`,
} as const;
const WATCHED = new Set<string>(Object.values(RBAC_TYPE_IDS));

/** One PolicyRule, as stored. */
export interface PolicyRule {
  readonly verbs: readonly string[];
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
}

/** A binding's grant to one subject: the rules of a role, where they apply, and what to call it. */
interface Grant {
  /** The RoleBinding's namespace; undefined for a ClusterRoleBinding (everywhere). */
  readonly namespace: string | undefined;
  readonly rules: () => readonly PolicyRule[];
  /** For SubjectAccessReview reasons: `RoleBinding "ns/name" of Role "r" to ServiceAccount "sa/ns"`. */
  readonly source: string;
}

interface Index {
  /** Keyed by `User:<name>` or `Group:<name>` (ServiceAccounts are Users `system:serviceaccount:<ns>:<name>`). */
  readonly bySubject: Map<string, Grant[]>;
  readonly clusterRoleRules: Map<string, readonly PolicyRule[]>;
  readonly roleRules: Map<string, readonly PolicyRule[]>;
}

/** The RBAC decision for one request. */
export interface Decision {
  readonly allowed: boolean;
  /** Why, as kube-apiserver's SubjectAccessReview reports it; empty when denied. */
  readonly reason: string;
}

/** Evaluates requests against the Roles, ClusterRoles and bindings in the store. */
export class RbacAuthorizer {
  readonly #store: ObjectStore;
  #index: Index | undefined;

  constructor(store: ObjectStore) {
    this.#store = store;
    store.subscribe((e) => {
      if (WATCHED.has(e.typeId)) this.#index = undefined;
    });
  }

  /** Whether RBAC allows the request. */
  authorize(a: RequestAttributes): Decision {
    const index = this.#indexed();
    const namespace = a.resource?.namespace ?? '';
    for (const subject of subjectKeys(a.user)) {
      for (const grant of index.bySubject.get(subject) ?? []) {
        if (grant.namespace !== undefined && grant.namespace !== namespace) continue;
        if (grant.rules().some((rule) => ruleAllows(rule, a))) {
          return { allowed: true, reason: `RBAC: allowed by ${grant.source}` };
        }
      }
    }
    return { allowed: false, reason: '' };
  }

  /** Every rule that applies to `user` in `namespace` (cluster-wide ones included), for SelfSubjectRulesReview. */
  rulesFor(user: UserInfo, namespace: string): PolicyRule[] {
    const index = this.#indexed();
    const rules: PolicyRule[] = [];
    for (const subject of subjectKeys(user)) {
      for (const grant of index.bySubject.get(subject) ?? []) {
        if (grant.namespace === undefined || grant.namespace === namespace) rules.push(...grant.rules());
      }
    }
    return rules;
  }

  /** The rules a roleRef grants (a Role in `namespace`, or a ClusterRole), empty when it does not exist. */
  roleRefRules(kind: string, name: string, namespace: string): readonly PolicyRule[] {
    const index = this.#indexed();
    return (kind === 'ClusterRole' ? index.clusterRoleRules.get(name) : index.roleRules.get(`${namespace}/${name}`)) ?? [];
  }

  #indexed(): Index {
    if (this.#index !== undefined) return this.#index;
    const clusterRoles = new Map<string, Json>();
    for (const o of this.#store.list(RBAC_TYPE_IDS.clusterRole)) clusterRoles.set(o.key, o.obj);
    const clusterRoleRules = new Map<string, readonly PolicyRule[]>();
    for (const [name, role] of clusterRoles) clusterRoleRules.set(name, aggregatedRules(role, clusterRoles));
    const roleRules = new Map<string, readonly PolicyRule[]>();
    for (const o of this.#store.list(RBAC_TYPE_IDS.role)) roleRules.set(o.key, rulesOf(o.obj));
    const bySubject = new Map<string, Grant[]>();
    const add = (binding: Json, namespace: string | undefined, kind: string): void => {
      const ref = (binding.roleRef ?? {}) as { kind?: string; name?: string };
      const refName = ref.name ?? '';
      const cluster = ref.kind === 'ClusterRole';
      const rules = cluster
        ? (): readonly PolicyRule[] => clusterRoleRules.get(refName) ?? []
        : (): readonly PolicyRule[] => roleRules.get(`${namespace ?? ''}/${refName}`) ?? [];
      const bindingName = (binding.metadata as { name?: string } | undefined)?.name ?? '';
      const source = `${kind} ${JSON.stringify(namespace === undefined ? bindingName : `${namespace}/${bindingName}`)} of ${cluster ? 'ClusterRole' : 'Role'} ${JSON.stringify(refName)}`;
      for (const s of (binding.subjects ?? []) as { kind?: string; name?: string; namespace?: string }[]) {
        const key =
          s.kind === 'ServiceAccount'
            ? `User:system:serviceaccount:${s.namespace ?? namespace ?? ''}:${s.name ?? ''}`
            : `${s.kind ?? ''}:${s.name ?? ''}`;
        let grants = bySubject.get(key);
        if (grants === undefined) bySubject.set(key, (grants = []));
        // k8s.io/kubernetes/plugin/pkg/auth/authorizer/rbac's describeSubject: `ServiceAccount "name/namespace"`, `User "alice"`.
        const described = s.kind === 'ServiceAccount' ? `${s.name ?? ''}/${s.namespace ?? namespace ?? ''}` : (s.name ?? '');
        grants.push({ namespace, rules, source: `${source} to ${s.kind ?? ''} ${JSON.stringify(described)}` });
      }
    };
    for (const o of this.#store.list(RBAC_TYPE_IDS.clusterRoleBinding)) add(o.obj, undefined, 'ClusterRoleBinding');
    for (const o of this.#store.list(RBAC_TYPE_IDS.roleBinding)) {
      add(o.obj, (o.obj.metadata as { namespace: string }).namespace, 'RoleBinding');
    }
    this.#index = { bySubject, clusterRoleRules, roleRules };
    return this.#index;
  }
}

function subjectKeys(user: UserInfo): string[] {
  return [`User:${user.username}`, ...user.groups.map((g) => `Group:${g}`)];
}

function rulesOf(role: Json): PolicyRule[] {
  return (role.rules ?? []) as PolicyRule[];
}

// A ClusterRole with an aggregationRule holds the rules of every ClusterRole its selectors match
// (kube-controller-manager's clusterrole-aggregation controller writes them into the object; here
// they are computed, so they follow label changes at once).
// Aggregated roles may aggregate others (admin takes edit, edit takes view): followed
// recursively, each role once.
function aggregatedRules(role: Json, all: Map<string, Json>, seen = new Set<string>()): PolicyRule[] {
  const self = (role.metadata as { name?: string }).name ?? '';
  seen.add(self);
  const aggregation = role.aggregationRule as { clusterRoleSelectors?: LabelSelector[] } | undefined;
  if (aggregation === undefined) return rulesOf(role);
  const rules = [...rulesOf(role)];
  for (const [name, other] of all) {
    if (seen.has(name)) continue;
    const labels = (other.metadata as { labels?: Record<string, string> }).labels ?? {};
    if ((aggregation.clusterRoleSelectors ?? []).some((s) => selects(s, labels))) rules.push(...aggregatedRules(other, all, seen));
  }
  return rules;
}

interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

function selects(s: LabelSelector, labels: Record<string, string>): boolean {
  for (const [k, v] of Object.entries(s.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of s.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    const value = labels[e.key];
    const ok =
      e.operator === 'In'
        ? has && (e.values ?? []).includes(value!)
        : e.operator === 'NotIn'
          ? !has || !(e.values ?? []).includes(value!)
          : e.operator === 'Exists'
            ? has
            : e.operator === 'DoesNotExist'
              ? !has
              : false;
    if (!ok) return false;
  }
  return true;
}

/** Whether one rule covers the request (k8s.io/component-helpers/auth/rbac's RuleAllows). */
export function ruleAllows(rule: PolicyRule, a: RequestAttributes): boolean {
  if (!rule.verbs.includes('*') && !rule.verbs.includes(a.verb)) return false;
  const r = a.resource;
  if (r === undefined) {
    return (rule.nonResourceURLs ?? []).some(
      (url) => url === '*' || url === a.path || (url.endsWith('*') && a.path.startsWith(url.slice(0, -1))),
    );
  }
  const groups = rule.apiGroups ?? [];
  if (!groups.includes('*') && !groups.includes(r.group)) return false;
  const combined = r.subresource === '' ? r.resource : `${r.resource}/${r.subresource}`;
  const resourceMatches = (rule.resources ?? []).some(
    (res) => res === '*' || res === combined || (r.subresource !== '' && res === `*/${r.subresource}`),
  );
  if (!resourceMatches) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(r.name);
}
