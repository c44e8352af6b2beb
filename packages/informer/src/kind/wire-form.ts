import type { KubernetesObject, ObjectMeta } from '@kindex/core';
import type { ResourceKind } from './resource-kind.js';

/**
 * The JSON form of a `@kubernetes/client-node` model type, as kindex caches it: client-node
 * declares timestamps as `Date` because its own deserializer makes them so, but kindex keeps
 * objects exactly as the server sent them, where they are RFC 3339 strings.
 *
 * @example
 * ```ts
 * import type { V1Deployment } from '@kubernetes/client-node';
 * const DeploymentKind = resourceKind<WireForm<V1Deployment>>({
 *   group: 'apps', version: 'v1', kind: 'Deployment', plural: 'deployments', namespaced: true,
 * });
 * ```
 */
export type WireForm<T> = Omit<JsonForm<T>, 'metadata'> & { metadata?: ObjectMeta };

/** Dates as strings, all the way down. */
type JsonForm<T> = T extends Date
  ? string
  : T extends readonly (infer U)[]
    ? JsonForm<U>[]
    : T extends object
      ? { [K in keyof T]: JsonForm<T[K]> }
      : T;

/**
 * The objects a {@link ResourceKind} stands for: `ObjectOfKind<typeof Kinds.ConfigMap>` is the
 * ConfigMap's JSON shape.
 */
export type ObjectOfKind<K> = K extends ResourceKind<infer R extends KubernetesObject> ? R : never;
