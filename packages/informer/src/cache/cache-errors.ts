/**
 * Reading an object a cache cannot hold: controller-runtime answers "not found" silently when a
 * namespace or selector excludes it, which hides configuration mistakes. kindex says so.
 */
export class NotCachedError extends Error {
  override readonly name = 'NotCachedError';
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
