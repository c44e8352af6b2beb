import type { KubernetesObject, OwnerReference } from '../resource/kubernetes-object.js';
import { InvalidResourceError, ResourceID } from '../resource/resource-id.js';
import { objectKeyOf } from '../internal/object-key.js';
import type { EventHandler, HandlerProblemReporter } from './event-handler.js';
import { objectsOf } from './internal/objects-of.js';
import { apiGroupMatcher, isValidApiVersion } from './internal/api-group.js';
import Type from 'typebox';
import { defineOptions } from '../options/define-options.js';

/**
 * Options of {@link enqueueForOwner}.
 *
 * @example
 * ```ts
 * import { enqueueForOwner, type EnqueueForOwnerOptions } from '@kindex/core';
 *
 * // Pods go to the ReplicaSet that controls them (not to other owners).
 * const options: EnqueueForOwnerOptions = { group: 'apps', kind: 'ReplicaSet', controllerOnly: true };
 * const toReplicaSet = enqueueForOwner(options);
 * ```
 */
export interface EnqueueForOwnerOptions {
  /** API group of the owner kind: `''` for the core group, `apps`, `example.com`. The version is ignored. */
  group: string;
  /** Kind of the owner, as in `ownerReferences[].kind`: `Deployment`. */
  kind: string;
  /** Only follow the owner reference marked `controller: true`. Defaults to false. */
  controllerOnly?: boolean;
  /**
   * Whether the owner kind is cluster-scoped: then owner IDs have no namespace; otherwise they
   * take the dependent object's namespace (owner references cannot cross namespaces).
   * Defaults to false.
   */
  clusterScopedOwner?: boolean;
  /** Name in error reports. Defaults to `'enqueueForOwner(<group>/<kind>)'`. */
  name?: string;
}

/** {@link EnqueueForOwnerOptions}' keys and value checks. */
export const ENQUEUE_FOR_OWNER_OPTIONS = defineOptions<EnqueueForOwnerOptions>('enqueueForOwner options', {
  group: Type.Unknown(),
  kind: Type.Unknown(),
  controllerOnly: Type.Optional(Type.Boolean({ description: 'true or false' })),
  clusterScopedOwner: Type.Optional(Type.Boolean({ description: 'true or false' })),
  name: Type.Optional(Type.String({ description: 'a string' })),
});

/**
 * Reconciles the owners of the event's object (controller-runtime's EnqueueRequestForOwner):
 * the `metadata.ownerReferences` whose API group and kind match, the version ignored (an owner
 * reference written as `apps/v1beta2` still finds the `apps/v1` Deployment). On update both the
 * old and the new object's owners are returned, so an adopted or orphaned object reconciles
 * both sides.
 *
 * Better than controller-runtime on bad data: a malformed reference (no kind, an apiVersion
 * like `a/b/c`, no name, not an object) is reported with its field path, such as
 * `metadata.ownerReferences[1].kind`, and skipped; the other references are still used
 * (controller-runtime stops at the first unparsable apiVersion).
 *
 * @example
 * ```ts
 * import { enqueueForOwner } from '@kindex/core';
 *
 * // Pod events reconcile the ReplicaSet that controls the Pod.
 * const toReplicaSet = enqueueForOwner({ group: 'apps', kind: 'ReplicaSet', controllerOnly: true });
 * ```
 * @throws {TypeError} when `kind` is empty or `group` looks like an apiVersion (`apps/v1`).
 */
export function enqueueForOwner<R extends KubernetesObject = KubernetesObject>(options: EnqueueForOwnerOptions): EventHandler<R> {
  ENQUEUE_FOR_OWNER_OPTIONS.check(options);
  const { group, kind, controllerOnly = false, clusterScopedOwner = false } = options;
  if (typeof kind !== 'string' || kind === '') throw new TypeError('enqueueForOwner needs a non-empty kind');
  if (typeof group !== 'string' || group.includes('/')) {
    throw new TypeError(`enqueueForOwner: group must be an API group without version ('apps', '' for core), got ${JSON.stringify(group)}`);
  }
  const name = options.name ?? `enqueueForOwner(${group === '' ? 'core' : group}/${kind})`;
  const inGroup = apiGroupMatcher(group);

  // Arrays, not generators: nested generators cost about a microsecond per event here. `out` is
  // made on the first owner, as `[id]`: an empty array's first push allocates 17 slots.
  function ownersOf(obj: R, report: HandlerProblemReporter<R>, out: ResourceID[] | undefined): ResourceID[] | undefined {
    const refs: unknown = obj.metadata?.ownerReferences;
    if (refs === undefined || refs === null) return out;
    if (!Array.isArray(refs)) {
      report(new InvalidResourceError(objectKeyOf(obj), 'metadata.ownerReferences', `must be a list, got ${typeof refs}`), obj);
      return out;
    }
    const namespace = clusterScopedOwner ? undefined : obj.metadata?.namespace;
    for (let i = 0; i < refs.length; i++) {
      const ref: unknown = refs[i];
      // GetControllerOf: the first reference marked controller, malformed or not.
      if (controllerOnly && (ref === null || typeof ref !== 'object' || (ref as OwnerReference).controller !== true)) continue;
      const problem = checkRef(ref);
      if (problem !== undefined) {
        report(new InvalidResourceError(objectKeyOf(obj), `metadata.ownerReferences[${i}]${problem[0]}`, problem[1]), obj);
      } else {
        const r = ref as OwnerReference;
        if (r.kind === kind && inGroup(r.apiVersion)) {
          const id = ResourceID.of(r.name, namespace);
          if (out === undefined) out = [id];
          else out.push(id);
        }
      }
      if (controllerOnly) return out;
    }
    return out;
  }

  return Object.freeze({
    name,
    map(event, report) {
      let out: ResourceID[] | undefined;
      // One object (all but updates): no array of objects per event, mappers call this per secondary event.
      if (event.type !== 'update') {
        if (event.object != null) out = ownersOf(event.object, report, out);
      } else for (const obj of objectsOf(event)) out = ownersOf(obj, report, out);
      return out ?? [];
    },
  } satisfies EventHandler<R>);
}

/**
 * The field (relative to the reference: `''`, `.kind`) and problem of a malformed owner
 * reference, or undefined when it is usable. The caller builds the full path only on error: this
 * runs for every reference of every event.
 */
function checkRef(ref: unknown): [string, string] | undefined {
  if (ref === null || typeof ref !== 'object' || Array.isArray(ref)) return ['', 'owner reference must be an object'];
  const r = ref as Record<string, unknown>;
  if (typeof r['kind'] !== 'string' || r['kind'] === '') return ['.kind', `must be a non-empty string, got ${JSON.stringify(r['kind'])}`];
  if (typeof r['apiVersion'] !== 'string' || !isValidApiVersion(r['apiVersion'])) {
    return ['.apiVersion', `must be "group/version" or "version", got ${JSON.stringify(r['apiVersion'])}`];
  }
  if (typeof r['name'] !== 'string' || r['name'] === '') return ['.name', `must be a non-empty string, got ${JSON.stringify(r['name'])}`];
  return undefined;
}
