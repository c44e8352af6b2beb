/**
 * Where a kind lives on the API server: its {@link ResourceType}, and the paths and apiVersion
 * derived from it. Every stage that builds a request (reflector, client, startup checks,
 * dependents) takes them from here, so a path is spelled one way.
 *
 * @module
 */
import type { ResourceID } from '@kindex/core';

/**
 * Addresses one kind of resource on the API server: where to list and watch it, and what to
 * call its objects.
 *
 * @example
 * ```ts
 * import type { ResourceType } from '@kindex/informer';
 * const configMaps: ResourceType = { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true };
 * const jobs: ResourceType = { group: 'batch.example.com', version: 'v1', plural: 'jobs', kind: 'Job', namespaced: true };
 * ```
 */
export interface ResourceType {
  /** API group; `''` for the core group (`/api/v1`). */
  readonly group: string;
  /** API version within the group, for example `v1`. */
  readonly version: string;
  /** The resource name in URLs (plural, lower case), for example `configmaps`. */
  readonly plural: string;
  /** The object kind, for example `ConfigMap`. */
  readonly kind: string;
  /** Whether objects live in namespaces. */
  readonly namespaced: boolean;
  /**
   * Read objects as metadata only (`as=PartialObjectMetadata`); set by `metadataOnly(kind)`.
   * Defaults to false (whole objects).
   */
  readonly metadataOnly?: boolean;
}

/** `group/version`, or `version` for the core group: the `apiVersion` of the type's objects. */
export function apiVersionOf(type: ResourceType): string {
  return type.group === '' ? type.version : `${type.group}/${type.version}`;
}

/** The collection path of a type, within one namespace or (namespace undefined) across all. */
export function collectionPath(type: ResourceType, namespace?: string): string {
  const root = type.group === '' ? `/api/${type.version}` : `/apis/${type.group}/${type.version}`;
  if (type.namespaced && namespace !== undefined && namespace !== '') {
    return `${root}/namespaces/${encodeURIComponent(namespace)}/${type.plural}`;
  }
  return `${root}/${type.plural}`;
}

/**
 * The path of one object (and optionally a subresource).
 *
 * @example
 * ```ts
 * import { Kinds } from '@kindex/informer';
 * import { objectPath } from '@kindex/informer/internal';
 * import { ResourceID } from '@kindex/core';
 *
 * // For a raw request, or to name the object in a log line.
 * const path = objectPath(Kinds.ConfigMap, ResourceID.of('web-config', 'shop')); // /api/v1/namespaces/shop/configmaps/web-config
 * ```
 */
export function objectPath(type: ResourceType, id: ResourceID, subresource?: string): string {
  const base = collectionPath(type, type.namespaced ? id.namespace : undefined);
  return `${base}/${encodeURIComponent(id.name)}${subresource ? `/${subresource}` : ''}`;
}
