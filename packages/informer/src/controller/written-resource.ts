import type { NamespaceSet } from '../cache/informer-cache-options.js';
import { rejectUnknownOptions } from '@kindex/core/internal';
import type { ResourceType } from '../kind/resource-type.js';

/**
 * A verb of an RBAC rule on a resource, as kube-apiserver's authorizer names them.
 *
 * @example
 * ```ts
 * import { Kinds, type RbacVerb } from '@kindex/informer';
 *
 * // A reconciler that only ever creates Events (no updates, no deletes).
 * const verbs: readonly RbacVerb[] = ['create', 'patch'];
 * const writes = [{ kind: Kinds.Event, verbs }];
 * ```
 */
export type RbacVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/**
 * A kind the reconciler writes itself (through `context.getClient()`), declared on the controller
 * with the `writes` option so `Operator.rbacManifest()` grants write verbs on it. Event sources
 * only read: a watched kind gets `get`, `list` and `watch` and nothing more unless declared here.
 * kubebuilder users know this as a `+kubebuilder:rbac` marker, JOSDK users as an `@RBACRule`.
 *
 * Either a kind alone (granted `create`, `update`, `patch` and `delete`) or a kind with the exact
 * verbs, and optionally the namespaces when they are not the controller's.
 *
 * @example
 * ```ts
 * import { Kinds, type WrittenResource } from '@kindex/informer';
 *
 * const writes: readonly WrittenResource[] = [
 *   Kinds.ConfigMap, // create, update, patch, delete in the controller's namespaces
 *   { kind: Kinds.Event, verbs: ['create', 'patch'] },
 *   { kind: Kinds.Secret, verbs: ['get', 'update'], namespaces: ['vault'] },
 * ];
 * ```
 */
export type WrittenResource =
  | ResourceType
  | {
      readonly kind: ResourceType;
      /** Defaults to `create`, `update`, `patch` and `delete`. */
      readonly verbs?: readonly RbacVerb[];
      /** `'all'` or named namespaces; ignored for cluster-scoped kinds. Defaults to the controller's namespaces. */
      readonly namespaces?: 'all' | readonly string[];
    };

/**
 * A {@link WrittenResource} with its defaults filled in, as `Controller.declaredWrites` lists it.
 *
 * @example
 * ```ts
 * import type { Controller, DeclaredWrite } from '@kindex/informer';
 * declare const controller: Controller;
 *
 * const writes: readonly DeclaredWrite[] = controller.declaredWrites;
 * for (const w of writes) console.log(`${w.kind.kind}: ${w.verbs.join(', ')} in ${w.namespaces ?? "the controller's namespaces"}`);
 * ```
 */
export interface DeclaredWrite {
  readonly kind: ResourceType;
  readonly verbs: readonly RbacVerb[];
  /** Undefined for the controller's own namespaces. */
  readonly namespaces: NamespaceSet | undefined;
}

/** What a kind alone in `writes` is granted: every verb that changes one object. */
export const DEFAULT_WRITE_VERBS: readonly RbacVerb[] = ['create', 'update', 'patch', 'delete'];

const VERBS: readonly RbacVerb[] = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
const KEYS = { kind: true, verbs: true, namespaces: true } as const;

/**
 * Checks a controller's `writes` option and fills in the defaults.
 *
 * @throws {TypeError} naming the controller, the entry (`writes[1].verbs[0]`) and the fix;
 *   `UnknownOptionError` for an unknown key in an entry.
 */
export function declaredWrites(owner: string, writes: unknown): DeclaredWrite[] {
  if (writes === undefined) return [];
  if (!Array.isArray(writes)) throw new TypeError(`${owner}: writes must be an array of kinds, for example [Kinds.ConfigMap]`);
  return writes.map((entry: unknown, i) => {
    const field = `writes[${i}]`;
    if (isResourceType(entry)) return { kind: entry, verbs: DEFAULT_WRITE_VERBS, namespaces: undefined };
    if (entry === null || typeof entry !== 'object' || !isResourceType((entry as { kind?: unknown }).kind)) {
      throw new TypeError(`${owner}: ${field} must be a kind (for example Kinds.ConfigMap) or { kind, verbs }, got ${describe(entry)}`);
    }
    const { kind, verbs, namespaces } = entry as { kind: ResourceType; verbs?: unknown; namespaces?: unknown };
    rejectUnknownOptions(`${owner} options.${field}`, entry, KEYS);
    if (verbs !== undefined) {
      if (!Array.isArray(verbs) || verbs.length === 0)
        throw new TypeError(`${owner}: ${field}.verbs must be a non-empty array of RBAC verbs (${VERBS.join(', ')})`);
      verbs.forEach((v: unknown, j) => {
        if (!VERBS.includes(v as RbacVerb))
          throw new TypeError(`${owner}: ${field}.verbs[${j}] ${describe(v)} is not an RBAC verb; use one of ${VERBS.join(', ')}`);
      });
    }
    if (
      namespaces !== undefined &&
      namespaces !== 'all' &&
      !(Array.isArray(namespaces) && namespaces.every((n) => typeof n === 'string' && n !== ''))
    ) {
      throw new TypeError(`${owner}: ${field}.namespaces must be 'all' or an array of namespace names, got ${describe(namespaces)}`);
    }
    return {
      kind,
      verbs: (verbs as readonly RbacVerb[] | undefined) ?? DEFAULT_WRITE_VERBS,
      namespaces: namespaces as NamespaceSet | undefined,
    };
  });
}

function isResourceType(value: unknown): value is ResourceType {
  const t = value as Partial<ResourceType> | null;
  return (
    typeof t === 'object' &&
    t !== null &&
    typeof t.plural === 'string' &&
    typeof t.group === 'string' &&
    typeof t.kind === 'string' &&
    typeof t.namespaced === 'boolean'
  );
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
