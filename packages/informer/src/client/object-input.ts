/**
 * Objects as the client's writes take them: the kind written to already knows the apiVersion and
 * kind of its objects, so they may be left out and are filled in from it before the request. A
 * custom resource needs them in the body (kube-apiserver decodes it without a Go type and answers
 * 400 "Object 'Kind' is missing"); a built-in one does not, so without this a call that works for
 * `Kinds.ConfigMap` would fail for a custom kind.
 *
 * @module
 */
import { InvalidResourceError, type KubernetesObject } from '@kindex/core';
import { apiVersionOf, type ResourceType } from '../kind/resource-type.js';
import { InvalidApplyConfigurationError } from './invalid-apply-configuration-error.js';

/**
 * An object as `KubeClient.create`, `update` and `apply` take it: an `R` whose `apiVersion` and
 * `kind` may be left out, since the kind written to fills them in. Given, they must be the kind's.
 *
 * (The union with `R` itself lets TypeScript infer `R` from an object written through a plain
 * `ResourceType`; every `R` is an `ObjectInput<R>` either way.)
 *
 * @example
 * ```ts
 * import Type from 'typebox';
 * import { customResource, type KubeClient, type ObjectInput, type ObjectOfKind } from '@kindex/informer';
 * declare const client: KubeClient;
 *
 * const Widgets = customResource({ group: 'example.com', kind: 'Widget', plural: 'widgets', versions: { v1: { spec: Type.Object({ replicas: Type.Integer() }) } } });
 * // No apiVersion or kind: `create` sends apiVersion example.com/v1, kind Widget.
 * const widget: ObjectInput<ObjectOfKind<typeof Widgets>> = { metadata: { name: 'web', namespace: 'shop' }, spec: { replicas: 2 } };
 * const created = await client.create(Widgets, widget); // created.kind === 'Widget'
 * ```
 */
export type ObjectInput<R extends KubernetesObject> = R | (Omit<R, 'apiVersion' | 'kind'> & Partial<Pick<R, 'apiVersion' | 'kind'>>);

/** The verbs that fill in apiVersion and kind, as their error messages name them. */
type WriteVerb = 'create' | 'update' | 'apply';

/**
 * `object` with the apiVersion and kind of `type` filled in where left out (undefined, null or
 * empty): the same object, not a copy, when both are already the type's, as on every write of
 * an object read from the server.
 *
 * @throws {InvalidResourceError} (create, update) or {InvalidApplyConfigurationError} (apply) when
 *   a given apiVersion or kind is not the type's, naming the object, the field and the fix.
 */
export function withTypeMeta<R extends KubernetesObject>(verb: WriteVerb, type: ResourceType, object: ObjectInput<R>): R {
  // A ResourceKind carries its apiVersion; a plain ResourceType has it derived.
  const apiVersion = (type as { readonly apiVersion?: string }).apiVersion ?? apiVersionOf(type);
  const given = object as KubernetesObject;
  if (given.apiVersion === apiVersion && given.kind === type.kind) return object as R;
  const field =
    given.kind && given.kind !== type.kind ? 'kind' : given.apiVersion && given.apiVersion !== apiVersion ? 'apiVersion' : undefined;
  if (field !== undefined) {
    const value = given[field]!;
    const fix = `leave ${field} out to have it filled in, or pass the kind of a ${field === 'kind' ? value : `${value} ${type.kind}`}`;
    const name = given.metadata?.name;
    const key = name ? (given.metadata?.namespace ? `${given.metadata.namespace}/${name}` : name) : undefined;
    if (verb === 'apply') {
      throw new InvalidApplyConfigurationError(
        `KubeClient.apply: ${type.kind} ${key ?? '<no name>'}: ${field} is "${value}", but the kind given is ${apiVersion} ${type.kind}; ${fix}`,
      );
    }
    throw new InvalidResourceError(
      key,
      field,
      `is "${value}", but KubeClient.${verb} was given the ${apiVersion} ${type.kind} kind; ${fix}`,
    );
  }
  return { ...object, apiVersion, kind: type.kind } as R;
}
