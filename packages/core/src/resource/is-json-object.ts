/**
 * Whether a decoded JSON value is an object: not null and not an array.
 *
 * Kubernetes objects, their fields and the maps under them (labels, annotations, data) decode to
 * plain objects, while `typeof` says `'object'` for arrays and null as well; this is the one test
 * the informer's decoders and the embedded API server use to tell a JSON object from the rest.
 *
 * @example
 * ```ts
 * import { type KubernetesObject } from '@kindex/core';
 * import { isJsonObject } from '@kindex/core/internal';
 * declare const object: KubernetesObject & { spec?: unknown };
 *
 * // Read spec.replicas only when spec is an object (a bad manifest may carry a list or null).
 * const replicas = isJsonObject(object.spec) ? object.spec.replicas : undefined;
 * ```
 */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
