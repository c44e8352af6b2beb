/**
 * A secondary-to-primary mapper threw, or returned something other than ResourceIDs, for one object.
 *
 * @example
 * ```ts
 * import { MapperError, PrimaryToSecondaryIndex, ResourceID } from '@kindex/core';
 * const index = new PrimaryToSecondaryIndex({ toPrimaryIds: (o) => [ResourceID.of(o.metadata!.labels!['app']!)] });
 *
 * // A mapper that throws for one object is reported, and the other objects are still indexed.
 * index.errors$.subscribe((error: MapperError) => console.warn(`cannot map ${error.objectKey}: ${error.message}`));
 * ```
 */
export class MapperError extends Error {
  override readonly name = 'MapperError';
  readonly code = 'KINDEX_MAPPER_FAILED';
  /** `namespace/name` of the secondary, when it has one. */
  readonly objectKey: string | undefined;

  constructor(objectKey: string | undefined, problem: string, options?: { cause?: unknown }) {
    super(`${objectKey ? `object ${objectKey}` : 'object'}: ${problem}`, options);
    this.objectKey = objectKey;
  }
}
