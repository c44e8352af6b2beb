/**
 * The error {@link CustomResource.assertValid} (and a validating {@link KubeClient}) throws.
 *
 * @module
 */
import type { ResourceID } from '@kindex/core';

/**
 * One thing wrong with an object: its field path, as kube-apiserver names it (`spec.replicas`,
 * `spec.ports[0].name`, `spec.labels[app]`), and what is wrong there.
 *
 * @example
 * ```ts
 * import type { FieldViolation } from '@kindex/informer';
 *
 * const violation: FieldViolation = { field: 'spec.replicas', message: 'must be >= 1' };
 * ```
 */
export interface FieldViolation {
  readonly field: string;
  readonly message: string;
}

/**
 * An object that does not satisfy its custom resource's schema or CEL rules, refused before it
 * was sent; `violations` lists each field path with what is wrong.
 *
 * @example
 * ```ts
 * import { CustomResourceValidationError } from '@kindex/informer';
 *
 * function explain(error: unknown): string[] {
 *   return error instanceof CustomResourceValidationError ? error.violations.map((v) => `${v.field}: ${v.message}`) : [];
 * }
 * ```
 */
export class CustomResourceValidationError extends Error {
  override readonly name = 'CustomResourceValidationError';
  readonly code = 'KINDEX_CUSTOM_RESOURCE_INVALID';
  constructor(
    /** `group/version/Kind` of the object. */
    readonly kind: string,
    /** The object, when it has a name. */
    readonly id: ResourceID | undefined,
    readonly violations: readonly FieldViolation[],
  ) {
    super(
      `${kind} ${id ? id.toString() : '<no name>'} is invalid (fix these fields):\n  ${violations.map((v) => `${v.field}: ${v.message}`).join('\n  ')}`,
    );
  }
}
