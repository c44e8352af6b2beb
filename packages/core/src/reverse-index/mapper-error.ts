/** A secondary-to-primary mapper threw, or returned something other than ResourceIDs, for one object. */
export class MapperError extends Error {
  override readonly name = 'MapperError';
  /** `namespace/name` of the secondary, when it has one. */
  readonly objectKey: string | undefined;

  constructor(objectKey: string | undefined, problem: string, options?: { cause?: unknown }) {
    super(`${objectKey ? `object ${objectKey}` : 'object'}: ${problem}`, options);
    this.objectKey = objectKey;
  }
}
