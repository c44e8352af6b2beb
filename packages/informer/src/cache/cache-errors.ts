/**
 * Reading an object a cache cannot hold: controller-runtime answers "not found" silently when a
 * namespace or selector excludes it, which hides configuration mistakes. kindex says so.
 *
 * @example
 * ```ts
 * import { NotCachedError, type InformerCache } from '@kindex/informer';
 * import { ResourceID } from '@kindex/core';
 * declare const secrets: InformerCache;
 *
 * try {
 *   secrets.get(ResourceID.of('tls', 'other-team'));
 * } catch (error) {
 *   // The cache does not watch that namespace (or filters the object out): read it from the API server instead.
 *   if (error instanceof NotCachedError) console.warn(`${error.objectKey} is not in ${error.cache}: ${error.reason}`);
 * }
 * ```
 */
export class NotCachedError extends Error {
  override readonly name = 'NotCachedError';
  readonly code = 'KINDEX_NOT_CACHED';
  constructor(
    /** The object asked for, `namespace/name`. */
    readonly objectKey: string,
    /** The cache (event source) asked. */
    readonly cache: string,
    /** Why the cache cannot hold it. */
    readonly reason: string,
  ) {
    super(`${objectKey} cannot be in the cache of ${cache}: ${reason}`);
  }
}
