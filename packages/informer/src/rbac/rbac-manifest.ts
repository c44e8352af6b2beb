/**
 * The RBAC stage: turns the permissions an operator needs into Role and ClusterRole manifests
 * (and, given a subject, their bindings), as structured objects and as YAML a user can apply.
 *
 * Use it to ship the exact rules your controllers need instead of guessing them, and let a
 * failing start print the one rule that is missing (see `CacheSyncError`). `Operator.rbacManifest()`
 * collects the permissions of every registered controller; {@link rbacManifest} works on any list.
 *
 * Scope: a permission in every namespace, or on a cluster-scoped kind, lands in the ClusterRole;
 * a permission in named namespaces lands in one Role per namespace (least privilege).
 *
 * @module
 */
import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';
import { dumpYaml } from '@kubernetes/client-node';

/**
 * One permission an operator needs: verbs on a resource (optionally a subresource) in some namespaces.
 *
 * @example
 * ```ts
 * import { rbacManifest, type RequiredPermission } from '@kindex/informer';
 *
 * // The operator also reads Nodes, which no controller watches.
 * const readNodes: RequiredPermission = { group: '', resource: 'nodes', verbs: ['get', 'list'], namespaces: 'all', clusterScoped: true, neededBy: 'capacity check' };
 * const manifest = rbacManifest([readNodes]);
 * ```
 */
export interface RequiredPermission {
  /** API group; `''` for the core group. */
  readonly group: string;
  /** Plural resource name, with `/subresource` when it is one, for example `jobs/status`. */
  readonly resource: string;
  readonly verbs: readonly string[];
  /** `'all'` for every namespace; ignored (cluster-wide) when `clusterScoped`. */
  readonly namespaces: 'all' | readonly string[];
  /** Whether the resource is cluster-scoped (a Role cannot grant it). */
  readonly clusterScoped: boolean;
  /** Who needs it, for the manifest's comments and for tests, for example `controller jobs: primary`. */
  readonly neededBy?: string;
}

/**
 * An RBAC PolicyRule (`rbac.authorization.k8s.io/v1`).
 *
 * @example
 * ```ts
 * import type { Operator, PolicyRule } from '@kindex/informer';
 * declare const operator: Operator;
 *
 * const rules: readonly PolicyRule[] = (await operator.rbacManifest()).clusterRules;
 * for (const r of rules) console.log(`${r.verbs.join(',')} ${r.resources.join(',')} in ${r.apiGroups.join(',') || 'core'}`);
 * ```
 */
export interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
}

/**
 * Who the roles are bound to.
 *
 * @example
 * ```ts
 * import type { RbacSubject } from '@kindex/informer';
 *
 * // Bind the roles to a group of humans for a local run, instead of a ServiceAccount.
 * const developers: RbacSubject = { kind: 'Group', name: 'operator-developers' };
 * ```
 */
export type RbacSubject =
  | { readonly kind: 'ServiceAccount'; readonly name: string; readonly namespace: string }
  | { readonly kind: 'User' | 'Group'; readonly name: string };

/**
 * Options of {@link rbacManifest}.
 *
 * @example
 * ```ts
 * import type { Operator, RbacManifestOptions } from '@kindex/informer';
 * declare const operator: Operator;
 *
 * const options: RbacManifestOptions = { name: 'web-operator', subject: { kind: 'ServiceAccount', name: 'web-operator', namespace: 'operators' } };
 * const { yaml } = await operator.rbacManifest(options);
 * ```
 */
export interface RbacManifestOptions {
  /** Name of the ClusterRole and of each Role. Defaults to `kindex-operator`. */
  readonly name?: string;
  /** When set, a RoleBinding per Role and a ClusterRoleBinding are added for this subject. */
  readonly subject?: RbacSubject;
}

/** {@link RbacManifestOptions}' keys and value checks. */
export const RBAC_MANIFEST_OPTIONS = defineOptions<RbacManifestOptions>('rbacManifest options', {
  name: Type.Optional(Type.String({ minLength: 1, description: 'a non-empty name for the ClusterRole and Roles' })),
  subject: Type.Optional(
    Type.Object(
      {
        kind: Type.Union([Type.Literal('ServiceAccount'), Type.Literal('User'), Type.Literal('Group')]),
        name: Type.String({ minLength: 1 }),
        namespace: Type.Optional(Type.String({ minLength: 1 })),
      },
      { description: "{ kind: 'ServiceAccount', name, namespace } or { kind: 'User' | 'Group', name }" },
    ),
  ),
});

/**
 * A Role, ClusterRole or binding, as plain JSON ready to create or print.
 *
 * @example
 * ```ts
 * import type { Operator, RbacObject } from '@kindex/informer';
 * declare const operator: Operator;
 *
 * const roles: RbacObject[] = (await operator.rbacManifest()).objects.filter((o) => o.kind === 'Role' || o.kind === 'ClusterRole');
 * ```
 */
export interface RbacObject {
  readonly apiVersion: 'rbac.authorization.k8s.io/v1';
  readonly kind: 'Role' | 'ClusterRole' | 'RoleBinding' | 'ClusterRoleBinding';
  readonly metadata: { readonly name: string; readonly namespace?: string };
  readonly rules?: readonly PolicyRule[];
  readonly roleRef?: { readonly apiGroup: 'rbac.authorization.k8s.io'; readonly kind: 'Role' | 'ClusterRole'; readonly name: string };
  readonly subjects?: readonly Record<string, string>[];
}

/**
 * The manifest: rules by scope, the objects, and the objects as a multi-document YAML text.
 *
 * @example
 * ```ts
 * import type { Operator, RbacManifest } from '@kindex/informer';
 * declare const operator: Operator;
 *
 * const manifest: RbacManifest = await operator.rbacManifest();
 * console.log(`${manifest.clusterRules.length} cluster rules, roles in ${[...manifest.namespacedRules.keys()].join(', ')}`);
 * ```
 */
export interface RbacManifest {
  /** Rules of the ClusterRole (empty when none is needed). */
  readonly clusterRules: readonly PolicyRule[];
  /** Rules of each namespace's Role. */
  readonly namespacedRules: ReadonlyMap<string, readonly PolicyRule[]>;
  /** ClusterRole, Roles, then bindings (when a subject was given). */
  readonly objects: readonly RbacObject[];
  /** `objects` as YAML documents separated by `---`, for `kubectl apply -f -`. */
  readonly yaml: string;
  /**
   * From `Operator.rbacManifest()`: one manifest per remote cluster the operator reads or
   * writes, by cluster name, to apply there and bind to the user of that cluster's kubeconfig
   * (no binding is made: the operator's subject lives in its own cluster). Empty without remote
   * clusters; absent from the plain `rbacManifest()`.
   */
  readonly clusters?: ReadonlyMap<string, RbacManifest>;
  /**
   * From `Operator.rbacManifest()`: one manifest per fleet, by fleet name, to apply in every
   * member cluster and bind to the identity of its kubeconfig there. Empty without fleets.
   */
  readonly fleets?: ReadonlyMap<string, RbacManifest>;
}

const RBAC = 'rbac.authorization.k8s.io';
const VERB_ORDER = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];

/**
 * Merges permissions into the smallest set of Roles and ClusterRole rules that grant them all.
 *
 * @example
 * ```ts
 * import { rbacManifest } from '@kindex/informer';
 * import { writeFileSync } from 'node:fs';
 *
 * // RBAC for a hand-written list of permissions, bound to the operator's ServiceAccount.
 * const manifest = rbacManifest(
 *   [{ group: '', resource: 'configmaps', verbs: ['get', 'list', 'watch', 'patch'], namespaces: ['shop'], clusterScoped: false }],
 *   { name: 'web-operator', subject: { kind: 'ServiceAccount', name: 'web-operator', namespace: 'operators' } },
 * );
 * writeFileSync('deploy/rbac.yaml', manifest.yaml);
 * ```
 */
export function rbacManifest(permissions: readonly RequiredPermission[], options: RbacManifestOptions = {}): RbacManifest {
  RBAC_MANIFEST_OPTIONS.check(options);
  const name = options.name ?? 'kindex-operator';
  const cluster = new RuleSet();
  const byNamespace = new Map<string, RuleSet>();
  for (const p of permissions) {
    if (p.clusterScoped || p.namespaces === 'all') {
      cluster.add(p);
      continue;
    }
    for (const ns of p.namespaces) {
      let set = byNamespace.get(ns);
      if (set === undefined) byNamespace.set(ns, (set = new RuleSet()));
      set.add(p);
    }
  }
  const clusterRules = cluster.rules();
  const namespacedRules = new Map<string, readonly PolicyRule[]>();
  for (const ns of [...byNamespace.keys()].sort()) {
    // A rule the ClusterRole already grants everywhere needs no Role.
    const rules = byNamespace.get(ns)!.rules(cluster);
    if (rules.length > 0) namespacedRules.set(ns, rules);
  }
  const objects: RbacObject[] = [];
  if (clusterRules.length > 0) objects.push({ apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name }, rules: clusterRules });
  for (const [ns, rules] of namespacedRules)
    objects.push({ apiVersion: `${RBAC}/v1`, kind: 'Role', metadata: { name, namespace: ns }, rules });
  const subject = options.subject;
  if (subject !== undefined) {
    const subjects: Record<string, string>[] = [
      subject.kind === 'ServiceAccount'
        ? { kind: 'ServiceAccount', name: subject.name, namespace: subject.namespace }
        : { kind: subject.kind, apiGroup: RBAC, name: subject.name },
    ];
    if (clusterRules.length > 0) {
      objects.push({
        apiVersion: `${RBAC}/v1`,
        kind: 'ClusterRoleBinding',
        metadata: { name },
        roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name },
        subjects,
      });
    }
    for (const ns of namespacedRules.keys()) {
      objects.push({
        apiVersion: `${RBAC}/v1`,
        kind: 'RoleBinding',
        metadata: { name, namespace: ns },
        roleRef: { apiGroup: RBAC, kind: 'Role', name },
        subjects,
      });
    }
  }
  return { clusterRules, namespacedRules, objects, yaml: toYamlDocuments(objects) };
}

/**
 * Objects as YAML documents separated by `---`.
 *
 * @example
 * ```ts
 * import { type Operator } from '@kindex/informer';
 * import { toYamlDocuments } from '@kindex/informer/internal';
 * declare const operator: Operator;
 *
 * // Ship the RBAC objects together with your own manifests in one file.
 * const { objects } = await operator.rbacManifest({ name: 'web-operator' });
 * const serviceAccount = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'web-operator', namespace: 'operators' } };
 * console.log(toYamlDocuments([serviceAccount, ...objects]));
 * ```
 */
export function toYamlDocuments(objects: readonly object[]): string {
  return objects.map((o) => dumpYaml(o, { noRefs: true, lineWidth: -1 }).trimEnd()).join('\n---\n') + (objects.length > 0 ? '\n' : '');
}

/** Verbs per (group, resource), merged, then resources with the same verbs grouped into one rule. */
class RuleSet {
  readonly #verbs = new Map<string, { group: string; resource: string; verbs: Set<string> }>();

  add(p: RequiredPermission): void {
    const key = `${p.group}\u0000${p.resource}`;
    let entry = this.#verbs.get(key);
    if (entry === undefined) this.#verbs.set(key, (entry = { group: p.group, resource: p.resource, verbs: new Set() }));
    for (const v of p.verbs) entry.verbs.add(v);
  }

  verbsOf(key: string): ReadonlySet<string> | undefined {
    return this.#verbs.get(key)?.verbs;
  }

  /** Rules, minus the verbs `granted` already holds for the same resource. */
  rules(granted?: RuleSet): PolicyRule[] {
    const grouped = new Map<string, { group: string; resources: string[]; verbs: string[] }>();
    // By code unit, not localeCompare: that ignores the NUL separator, mixing groups and resources.
    for (const [key, { group, resource, verbs }] of [...this.#verbs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const already = granted?.verbsOf(key);
      const needed = sortVerbs([...verbs].filter((v) => already === undefined || !already.has(v)));
      if (needed.length === 0) continue;
      const groupKey = `${group}\u0000${needed.join(',')}`;
      const rule = grouped.get(groupKey);
      if (rule === undefined) grouped.set(groupKey, { group, resources: [resource], verbs: needed });
      else rule.resources.push(resource);
    }
    return [...grouped.values()].map((r) => ({ apiGroups: [r.group], resources: r.resources, verbs: r.verbs }));
  }
}

function sortVerbs(verbs: string[]): string[] {
  const rank = (v: string): number => {
    const i = VERB_ORDER.indexOf(v);
    return i < 0 ? VERB_ORDER.length : i;
  };
  return verbs.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}
