/**
 * Resource kinds: one token per Kubernetes kind that both addresses it on the API server (a
 * {@link ResourceType}) and names it to `Context.getSecondaryResources` (a {@link SecondaryType}).
 *
 * @module
 */
import { secondaryType, type KubernetesObject, type SecondaryType } from '@kindex/core';
import type { CoreV1Event, V1ConfigMap, V1Lease, V1Namespace, V1Pod, V1Secret, V1Service } from '@kubernetes/client-node';
import { apiVersionOf, type ResourceType } from './resource-type.js';
import type { WireForm } from './wire-form.js';

/**
 * A Kubernetes kind, typed by the objects it stands for.
 *
 * @example
 * ```ts
 * import { resourceKind } from '@kindex/informer';
 * import type { Context, KubernetesObject } from '@kindex/core';
 * declare const context: Context;
 * interface Cluster extends KubernetesObject { spec: { clusterValue: string } }
 * const ClusterKind = resourceKind<Cluster>({
 *   group: 'sample.kindex.dev', version: 'v1', kind: 'Cluster', plural: 'clusters', namespaced: true,
 * });
 * context.getSecondaryResources(ClusterKind); // Cluster[]
 * ```
 */
export interface ResourceKind<R extends KubernetesObject = KubernetesObject> extends ResourceType, SecondaryType<R> {
  /** `group/version`, or `version` for the core group. */
  readonly apiVersion: string;
}

/**
 * Makes a {@link ResourceKind}; its name is `group/version/Kind` (`v1/ConfigMap` for core).
 *
 * @example
 * ```ts
 * import { resourceKind } from '@kindex/informer';
 * import type { KubernetesObject } from '@kindex/core';
 * type WebApp = KubernetesObject & { spec: { image: string } };
 *
 * // One typed value names the API resource (for watches) and the secondary type (for Context reads).
 * export const WebApps = resourceKind<WebApp>({ group: 'example.com', version: 'v1', plural: 'webapps', kind: 'WebApp', namespaced: true });
 * ```
 */
export function resourceKind<R extends KubernetesObject = KubernetesObject>(type: ResourceType): ResourceKind<R> {
  for (const field of ['version', 'plural', 'kind'] as const) {
    if (typeof type[field] !== 'string' || type[field] === '') {
      throw new TypeError(`resourceKind: ${field} must be a non-empty string, got ${JSON.stringify(type[field])}`);
    }
  }
  if (typeof type.group !== 'string') throw new TypeError(`resourceKind: group must be a string ('' for core)`);
  const apiVersion = apiVersionOf(type);
  const { name } = secondaryType<R>(`${apiVersion}/${type.kind}`);
  return Object.freeze({
    group: type.group,
    version: type.version,
    plural: type.plural,
    kind: type.kind,
    namespaced: type.namespaced,
    apiVersion,
    name,
  });
}

/**
 * Kinds of the core and common built-in groups, ready to use, each typed by the JSON form of
 * client-node's model (`Kinds.ConfigMap` is a `ResourceKind<WireForm<V1ConfigMap>>`), so
 * `context.getSecondaryResources(Kinds.ConfigMap)` returns ConfigMaps with `data` typed.
 *
 * @example
 * ```ts
 * import { InformerEventSource, Kinds } from '@kindex/informer';
 *
 * // The built-in kinds an operator most often watches as secondaries.
 * const configMapsOfSecrets = InformerEventSource.from(Kinds.ConfigMap, Kinds.Secret);
 * ```
 */
export const Kinds = {
  ConfigMap: resourceKind<WireForm<V1ConfigMap>>({ group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true }),
  Secret: resourceKind<WireForm<V1Secret>>({ group: '', version: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true }),
  Pod: resourceKind<WireForm<V1Pod>>({ group: '', version: 'v1', kind: 'Pod', plural: 'pods', namespaced: true }),
  Service: resourceKind<WireForm<V1Service>>({ group: '', version: 'v1', kind: 'Service', plural: 'services', namespaced: true }),
  Namespace: resourceKind<WireForm<V1Namespace>>({ group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false }),
  Event: resourceKind<WireForm<CoreV1Event>>({ group: '', version: 'v1', kind: 'Event', plural: 'events', namespaced: true }),
  Lease: resourceKind<WireForm<V1Lease>>({
    group: 'coordination.k8s.io',
    version: 'v1',
    kind: 'Lease',
    plural: 'leases',
    namespaced: true,
  }),
} as const;

/**
 * The objects a {@link ResourceKind} stands for: `ObjectOfKind<typeof Kinds.ConfigMap>` is the
 * ConfigMap's JSON shape.
 *
 * @example
 * ```ts
 * import { Kinds, type ObjectOfKind } from '@kindex/informer';
 *
 * type ConfigMap = ObjectOfKind<typeof Kinds.ConfigMap>;
 * const settings: ConfigMap = { metadata: { name: 'settings', namespace: 'web' }, data: { mode: 'fast' } };
 * ```
 */
export type ObjectOfKind<K> = K extends ResourceKind<infer R extends KubernetesObject> ? R : never;
