import { InvalidResourceError, ResourceID, type KubernetesObject, type SecondaryToPrimaryMapper } from '@kindex/core';
import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';

/**
 * Default key under which a secondary names its primary (JOSDK uses `io.javaoperatorsdk/...`).
 *
 * @example
 * ```ts
 * import { DEFAULT_PRIMARY_NAME_KEY, DEFAULT_PRIMARY_NAMESPACE_KEY } from '@kindex/informer';
 * import type { KubernetesObject } from '@kindex/core';
 * declare const primary: KubernetesObject;
 *
 * // A cluster-scoped secondary names its primary in annotations, where fromAnnotations() finds it.
 * const annotations = { [DEFAULT_PRIMARY_NAME_KEY]: primary.metadata!.name!, [DEFAULT_PRIMARY_NAMESPACE_KEY]: primary.metadata!.namespace! };
 * ```
 */
export const DEFAULT_PRIMARY_NAME_KEY = 'kindex.dev/primary-name';
/**
 * Default key under which a secondary names its primary's namespace; absent means its own.
 *
 * @example
 * ```ts
 * import { DEFAULT_PRIMARY_NAMESPACE_KEY } from '@kindex/informer';
 * import type { KubernetesObject } from '@kindex/core';
 * declare const secondary: KubernetesObject;
 *
 * const primaryNamespace = secondary.metadata?.annotations?.[DEFAULT_PRIMARY_NAMESPACE_KEY];
 * ```
 */
export const DEFAULT_PRIMARY_NAMESPACE_KEY = 'kindex.dev/primary-namespace';
/**
 * Default key under which a secondary names its primary's type, when the mapper checks it.
 *
 * @example
 * ```ts
 * import { DEFAULT_PRIMARY_TYPE_KEY, fromAnnotations } from '@kindex/informer';
 *
 * // Two controllers annotate the same kind of secondary: the type annotation tells their primaries apart.
 * const toWebApps = fromAnnotations({ type: { value: 'WebApp.example.com' } });
 * const marker = { [DEFAULT_PRIMARY_TYPE_KEY]: 'WebApp.example.com' };
 * ```
 */
export const DEFAULT_PRIMARY_TYPE_KEY = 'kindex.dev/primary-type';

/**
 * Options of {@link fromAnnotations} and {@link fromLabels}.
 *
 * @example
 * ```ts
 * import { fromAnnotations, type MetadataMapperOptions } from '@kindex/informer';
 *
 * // Cluster-scoped primaries have no namespace to record.
 * const options: MetadataMapperOptions = { nameKey: 'example.com/tenant', namespaceKey: null };
 * const toTenant = fromAnnotations(options);
 * ```
 */
export interface MetadataMapperOptions {
  /** Key holding the primary's name. Defaults to `kindex.dev/primary-name`. */
  readonly nameKey?: string;
  /**
   * Key holding the primary's namespace; when the key is absent on an object, the object's own
   * namespace is used. Set to `null` for cluster-scoped primaries. Defaults to
   * `kindex.dev/primary-namespace`.
   */
  readonly namespaceKey?: string | null;
  /**
   * Key holding the primary's type (for example `sample.kindex.dev/v1/Job`) and the value it must
   * have: objects pointing at another type of primary map to nothing. Useful when one kind of
   * secondary serves several controllers. Defaults to not checking.
   */
  readonly type?: { readonly key?: string; readonly value: string };
}

/** {@link MetadataMapperOptions}' keys and value checks. */
const METADATA_MAPPER_OPTIONS = defineOptions<MetadataMapperOptions>('fromAnnotations options', {
  nameKey: Type.Optional(Type.String({ minLength: 1, description: 'a non-empty label or annotation key' })),
  namespaceKey: Type.Optional(
    Type.Union([Type.String({ minLength: 1 }), Type.Null()], { description: 'a non-empty label or annotation key, or null' }),
  ),
  type: Type.Optional(
    Type.Object(
      { key: Type.Optional(Type.String({ minLength: 1 })), value: Type.String({ minLength: 1 }) },
      { description: '{ key?, value } naming the primary kind' },
    ),
  ),
});

/**
 * A secondary-to-primary mapper reading the primary's name (and namespace, and type) from
 * annotations: for secondaries that cannot carry owner references (cross-namespace or
 * cluster-scoped secondaries of namespaced primaries).
 *
 * @throws {InvalidResourceError} (caught and reported by the event source) when an annotation
 *   holds something other than a string.
 * @example
 * ```ts
 * import { fromAnnotations } from '@kindex/informer';
 * const toPrimaryIds = fromAnnotations({ nameKey: 'example.com/owner-name', namespaceKey: 'example.com/owner-namespace' });
 * ```
 */
export function fromAnnotations<S extends KubernetesObject = KubernetesObject>(
  options: MetadataMapperOptions = {},
): SecondaryToPrimaryMapper<S> {
  return metadataMapper<S>('annotations', options);
}

/**
 * Like {@link fromAnnotations}, reading labels (label values are limited to 63 characters).
 *
 * @example
 * ```ts
 * import { fromLabels, InformerEventSource, Kinds } from '@kindex/informer';
 *
 * // Pods label themselves with the name of the ConfigMap primary they serve.
 * const pods = InformerEventSource.from(Kinds.Pod, Kinds.ConfigMap).withSecondaryToPrimaryMapper(fromLabels({ nameKey: 'example.com/config' }));
 * ```
 */
export function fromLabels<S extends KubernetesObject = KubernetesObject>(
  options: MetadataMapperOptions = {},
): SecondaryToPrimaryMapper<S> {
  return metadataMapper<S>('labels', options);
}

function metadataMapper<S extends KubernetesObject>(
  where: 'annotations' | 'labels',
  options: MetadataMapperOptions,
): SecondaryToPrimaryMapper<S> {
  METADATA_MAPPER_OPTIONS.check(options, `${where === 'labels' ? 'fromLabels' : 'fromAnnotations'} options`);
  const nameKey = options.nameKey ?? DEFAULT_PRIMARY_NAME_KEY;
  const namespaceKey = options.namespaceKey === undefined ? DEFAULT_PRIMARY_NAMESPACE_KEY : options.namespaceKey;
  const typeKey = options.type?.key ?? DEFAULT_PRIMARY_TYPE_KEY;
  const typeValue = options.type?.value;
  return (secondary: S): ResourceID[] => {
    const values: unknown = secondary.metadata?.[where];
    if (values === undefined || values === null) return [];
    const key = secondary.metadata?.name ? ResourceID.keyOf(secondary.metadata.name, secondary.metadata.namespace) : undefined;
    if (typeof values !== 'object' || Array.isArray(values)) {
      throw new InvalidResourceError(
        key,
        `metadata.${where}`,
        `must be a map of strings, got ${Array.isArray(values) ? 'array' : typeof values}`,
      );
    }
    const read = (k: string): string | undefined => {
      const v: unknown = (values as Record<string, unknown>)[k];
      if (v === undefined || v === null) return undefined;
      if (typeof v !== 'string') throw new InvalidResourceError(key, `metadata.${where}["${k}"]`, `must be a string, got ${typeof v}`);
      return v;
    };
    if (typeValue !== undefined && read(typeKey) !== typeValue) return [];
    const name = read(nameKey);
    if (name === undefined || name === '') return [];
    const namespace = namespaceKey === null ? undefined : (read(namespaceKey) ?? secondary.metadata?.namespace);
    return [ResourceID.of(name, namespace)];
  };
}
