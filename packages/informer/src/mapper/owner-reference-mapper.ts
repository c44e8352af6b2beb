import {
  enqueueForOwner,
  withInputsEqual,
  type EnqueueForOwnerOptions,
  type KubernetesObject,
  type ResourceID,
  type SecondaryToPrimaryMapper,
} from '@kindex/core';
import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';

/**
 * Options of {@link fromOwnerReferences}.
 *
 * @example
 * ```ts
 * import { fromOwnerReferences, type OwnerReferenceMapperOptions } from '@kindex/informer';
 *
 * const options: OwnerReferenceMapperOptions = {
 *   group: 'example.com',
 *   kind: 'WebApp',
 *   controllerOnly: true,
 *   onProblem: (problem, object) => console.warn(`bad owner reference on ${object.metadata?.name}`, problem),
 * };
 * const toWebApp = fromOwnerReferences(options);
 * ```
 */
export type OwnerReferenceMapperOptions = Omit<EnqueueForOwnerOptions, 'name'> & {
  /**
   * Receives malformed owner references (with their field path); the other references of the
   * object still map. Defaults to ignoring them.
   */
  readonly onProblem?: (problem: unknown, object: KubernetesObject) => void;
};

/** {@link OwnerReferenceMapperOptions}' keys and value checks (`group` and `kind` are checked by `enqueueForOwner`). */
const OWNER_REFERENCE_MAPPER_OPTIONS = defineOptions<OwnerReferenceMapperOptions>('fromOwnerReferences options', {
  group: Type.Unknown(),
  kind: Type.Unknown(),
  controllerOnly: Type.Optional(Type.Boolean({ description: 'true or false' })),
  clusterScopedOwner: Type.Optional(Type.Boolean({ description: 'true or false' })),
  onProblem: Type.Optional(
    Type.Function([Type.Unknown(), Type.Unknown()], Type.Unknown(), { description: 'a function of (problem, object)' }),
  ),
});

/**
 * A secondary-to-primary mapper from `metadata.ownerReferences`: the owners of the given API group
 * and kind (version ignored), in the secondary's namespace unless the owner kind is
 * cluster-scoped. The default mapper of an InformerEventSource.
 *
 * It shares the owner-reference reading of `enqueueForOwner`, so a mapper and a handler can never
 * disagree about which owners an object has.
 *
 * @example
 * ```ts
 * import { fromOwnerReferences } from '@kindex/informer';
 * const toPrimaryIds = fromOwnerReferences({ group: 'sample.kindex.dev', kind: 'WebPage', controllerOnly: true });
 * ```
 */
export function fromOwnerReferences<S extends KubernetesObject = KubernetesObject>(
  options: OwnerReferenceMapperOptions,
): SecondaryToPrimaryMapper<S> {
  OWNER_REFERENCE_MAPPER_OPTIONS.check(options);
  const { onProblem, ...ownerOptions } = options;
  const handler = enqueueForOwner<S>(ownerOptions);
  const report = (problem: unknown, object?: S): void => {
    if (onProblem !== undefined && object !== undefined) onProblem(problem, object);
  };
  // One event object for every call, not one per secondary (100k in an initial sync): the
  // handler reads its object once, before anything it calls could re-enter this mapper, and the
  // object is dropped after the call so the mapper keeps no secondary alive.
  const event: { type: 'generic'; object: S | undefined } = { type: 'generic', object: undefined };
  // The result depends on the owner references alone (the namespace is part of the key): an
  // update that keeps them needs no mapping, and the reverse index skips the call.
  return withInputsEqual((secondary: S): Iterable<ResourceID> => {
    event.object = secondary;
    try {
      // The handler's own array, not a copy: the reverse index only reads it.
      return handler.map(event as { type: 'generic'; object: S }, report);
    } finally {
      event.object = undefined;
    }
  }, sameOwnerReferences);
}

/** Whether two versions of an object name the same owners (the fields an owner mapper reads). */
function sameOwnerReferences(a: KubernetesObject, b: KubernetesObject): boolean {
  const before = a.metadata?.ownerReferences;
  const after = b.metadata?.ownerReferences;
  if (before === after) return true;
  if (!Array.isArray(before) || !Array.isArray(after) || before.length !== after.length) return false;
  for (let i = 0; i < before.length; i++) {
    const x = before[i];
    const y = after[i];
    if (x === y) continue;
    if (
      x === null ||
      y === null ||
      typeof x !== 'object' ||
      typeof y !== 'object' ||
      x.apiVersion !== y.apiVersion ||
      x.kind !== y.kind ||
      x.name !== y.name ||
      x.uid !== y.uid ||
      x.controller !== y.controller
    ) {
      return false;
    }
  }
  return true;
}
