import type { ObjectMeta } from '@kindex/core';

/**
 * The JSON form of a `@kubernetes/client-node` model type, as kindex caches it: client-node
 * declares timestamps as `Date` because its own deserializer makes them so, but kindex keeps
 * objects exactly as the server sent them, where they are RFC 3339 strings. `metadata` is
 * core's `ObjectMeta`, as in every `KubernetesObject`, so these objects go wherever one does.
 *
 * @example
 * ```ts
 * import type { V1Deployment } from '@kubernetes/client-node';
 * import { resourceKind, type WireForm } from '@kindex/informer';
 *
 * // A built-in kind kindex does not list, typed by client-node's model in its JSON form.
 * const DeploymentKind = resourceKind<WireForm<V1Deployment>>({
 *   group: 'apps', version: 'v1', kind: 'Deployment', plural: 'deployments', namespaced: true,
 * });
 * ```
 */
export type WireForm<T> = Omit<JsonForm<T>, 'metadata'> & { metadata?: ObjectMeta };

/**
 * A client-node model type with its `Date` fields as strings, all the way down (see {@link WireForm}).
 *
 * @example
 * ```ts
 * import type { V1Condition } from '@kubernetes/client-node';
 * import type { JsonForm } from '@kindex/informer';
 *
 * // A condition as the server sends it: lastTransitionTime is an RFC 3339 string, not a Date.
 * const ready: JsonForm<V1Condition> = { type: 'Ready', status: 'True', reason: 'Up', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' };
 * ```
 */
export type JsonForm<T> = T extends Date
  ? string
  : T extends readonly (infer U)[]
    ? JsonForm<U>[]
    : T extends object
      ? { [K in keyof T]: JsonForm<T[K]> }
      : T;
