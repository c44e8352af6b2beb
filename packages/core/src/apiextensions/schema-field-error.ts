// What the checks of this folder report about one field, in kube-apiserver's words and in short.

/** An openAPIV3Schema node of a CRD version, as JSON (the parts this folder reads). */
export type Schema = Record<string, unknown>;

/**
 * One problem kube-apiserver reports about a custom object or a CRD, as a cause of its 422.
 *
 * @example
 * ```ts
 * import { validateCustomObject, type SchemaFieldError } from '@kindex/core';
 *
 * const schema = { type: 'object', properties: { spec: { type: 'object', properties: { replicas: { type: 'integer', minimum: 1 } } } } };
 * const [error]: readonly SchemaFieldError[] = validateCustomObject(schema, { spec: { replicas: 0 } });
 * // error.field: 'spec.replicas'
 * // error.message: 'Invalid value: 0: spec.replicas in body should be greater than or equal to 1'
 * // error.summary: 'must be >= 1'
 * ```
 */
export interface SchemaFieldError {
  /** The cause's reason (field.ErrorType): `FieldValueInvalid`, `FieldValueRequired`, `FieldValueForbidden`, ... */
  readonly reason: string;
  /** The field path, as kube-apiserver prints it (`spec.replicas`, `spec.ports[1]`; `<nil>` for none). */
  readonly field: string;
  /** kube-apiserver's message, word for word (`Invalid value: 0: spec.replicas in body should be ...`). */
  readonly message: string;
  /** The same problem in a few words for client-side reports (`must be >= 1`). */
  readonly summary: string;
  /** The estimated cost of a rule over kube-apiserver's cost limit, and that limit; set on cost errors only. */
  readonly cost?: { readonly estimated: number; readonly limit: number; readonly expression: string };
}

/** A problem without a distinct short form. */
export function fieldError(reason: string, field: string, message: string, summary = message): SchemaFieldError {
  return { reason, field, message, summary };
}
