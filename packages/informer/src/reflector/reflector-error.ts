/**
 * A transform threw on an object; the object is kept untransformed so no event is lost.
 *
 * @example
 * ```ts
 * import { TransformError, type Reflector } from '@kindex/informer';
 * declare const reflector: Reflector;
 *
 * // The transform threw on one object: that object is skipped, the others still arrive.
 * reflector.errors$.subscribe((error) => error instanceof TransformError && console.error(`transform failed on ${error.objectKey}`, error.cause));
 * ```
 */
export class TransformError extends Error {
  override readonly name = 'TransformError';
  readonly code = 'KINDEX_TRANSFORM_FAILED';

  constructor(
    readonly objectKey: string,
    options: { cause: unknown },
  ) {
    super(`object ${objectKey}: transform failed, keeping the object untransformed`, options);
  }
}
