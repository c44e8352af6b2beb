/**
 * Metadata-only kinds, controller-runtime's OnlyMetadata: a cache that holds each object's
 * `metadata` and nothing else (no `spec`, `data` or `status`), for secondaries an operator only
 * maps to primaries (by owner references, labels or annotations) or counts. The API server is
 * asked for `as=PartialObjectMetadata` (`as=PartialObjectMetadataList` for lists), so the bytes on
 * the wire shrink as well as the heap.
 *
 * The token carries the choice: every stage that takes a kind (`InformerEventSource.from`,
 * `InformerCache`, `Reflector`, `KubeClient.get`/`list`, `context.getSecondaryResources`) reads
 * metadata for it, and its objects are typed {@link PartialObjectMetadata}.
 *
 * @module
 */
import { secondaryType, type KubernetesObject, type ObjectMeta } from '@kindex/core';
import type { ResourceKind } from './resource-kind.js';

/**
 * An object of a metadata-only cache: its `metadata`, with `kind` and `apiVersion` those of the
 * resource (`ConfigMap`, `v1`), not `PartialObjectMetadata`. controller-runtime does the same (it
 * sets the watched GVK on each PartialObjectMetadata it caches), so owner references, cache keys,
 * log lines and `kind` checks read the same as for whole objects.
 *
 * @example
 * ```ts
 * import type { PartialObjectMetadata } from '@kindex/informer';
 * declare const cached: PartialObjectMetadata;
 *
 * // Labels, annotations and owner references are there; spec and data are not.
 * const owners = cached.metadata.ownerReferences ?? [];
 * console.log(`${cached.kind} ${cached.metadata.name} has ${owners.length} owners`);
 * ```
 */
export interface PartialObjectMetadata extends KubernetesObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: ObjectMeta;
}

/**
 * A {@link ResourceKind} whose caches and reads hold {@link PartialObjectMetadata}; make one with
 * {@link metadataOnly}.
 *
 * @example
 * ```ts
 * import { Kinds, metadataOnly, type MetadataOnlyKind, type ObjectOfKind } from '@kindex/informer';
 *
 * const ConfigMapMetadata: MetadataOnlyKind<ObjectOfKind<typeof Kinds.ConfigMap>> = metadataOnly(Kinds.ConfigMap);
 * console.log(ConfigMapMetadata.name); // v1/ConfigMap#metadata
 * ```
 */
export interface MetadataOnlyKind<R extends KubernetesObject = KubernetesObject> extends ResourceKind<PartialObjectMetadata> {
  readonly metadataOnly: true;
  /** The kind of the whole objects, to fetch one on demand: `client.get(kind.objectKind, id)`. */
  readonly objectKind: ResourceKind<R>;
}

/**
 * The metadata-only kind of `kind`. Its name (`v1/ConfigMap#metadata`) differs from the whole
 * kind's, so `context.getSecondaryResources` reads it with this token, typed
 * {@link PartialObjectMetadata}, and a controller may hold a whole and a metadata-only cache of one
 * kind side by side (they never share an informer).
 *
 * Fetch a whole object when a reconcile needs more than metadata, from the server (as
 * controller-runtime users call `client.Get` with a typed object):
 * `context.getClient().get(kind.objectKind, ResourceID.fromResource(partial))`.
 *
 * Caveats: transforms, filters and mappers of a metadata-only source see metadata only; a server
 * that does not convert (it ignores `as=`) still fills the cache with metadata only, at the cost of
 * the whole objects' bytes on the wire.
 *
 * @example
 * ```ts
 * import { ResourceID, UpdateControl, type Reconciler, type EventSource, type KubernetesObject } from '@kindex/core';
 * import { InformerEventSource, Kinds, metadataOnly, resourceKind, type KubeClient } from '@kindex/informer';
 * const WebPageKind = resourceKind({ group: 'sample.dev', version: 'v1', kind: 'WebPage', plural: 'webpages', namespaced: true });
 * const ConfigMapMetadata = metadataOnly(Kinds.ConfigMap);
 *
 * const reconciler: Reconciler<KubernetesObject, KubeClient> = {
 *   prepareEventSources: (context): EventSource<unknown, KubernetesObject>[] => [
 *     InformerEventSource.from(ConfigMapMetadata, WebPageKind).build(context),
 *   ],
 *   async reconcile(_primary, context) {
 *     // PartialObjectMetadata[]: owned ConfigMaps, found through the reverse index of owner references.
 *     for (const cm of context.getSecondaryResources(ConfigMapMetadata)) {
 *       // The whole object, when its data is needed.
 *       const whole = await context.getClient().get(ConfigMapMetadata.objectKind, ResourceID.fromResource(cm));
 *       console.log(cm.metadata.name, Object.keys(whole?.data ?? {}));
 *     }
 *     return UpdateControl.noUpdate();
 *   },
 * };
 * ```
 */
export function metadataOnly<R extends KubernetesObject>(kind: ResourceKind<R>): MetadataOnlyKind<R> {
  if ((kind as Partial<MetadataOnlyKind>).metadataOnly === true) {
    throw new TypeError(`metadataOnly: ${kind.name} is already metadata-only; pass the whole kind (its objectKind)`);
  }
  const { name } = secondaryType<PartialObjectMetadata>(`${kind.name}#metadata`);
  return Object.freeze({
    group: kind.group,
    version: kind.version,
    plural: kind.plural,
    kind: kind.kind,
    namespaced: kind.namespaced,
    apiVersion: kind.apiVersion,
    name,
    metadataOnly: true,
    objectKind: kind,
  });
}
