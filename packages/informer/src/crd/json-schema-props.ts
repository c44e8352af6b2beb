/**
 * The `openAPIV3Schema` node of an `apiextensions.k8s.io/v1` CRD, as the API server reads it.
 *
 * @module
 */

/**
 * One CEL rule of `x-kubernetes-validations`: `rule` must hold for `self` (and, in a transition
 * rule, `oldSelf`); `message` or `messageExpression` says what is wrong, `fieldPath` where.
 *
 * @example
 * ```ts
 * import type { ValidationRule } from '@kindex/informer';
 *
 * const rule: ValidationRule = {
 *   rule: 'self.minReplicas <= self.maxReplicas',
 *   messageExpression: "'minReplicas ' + string(self.minReplicas) + ' exceeds maxReplicas'",
 * };
 * ```
 */
export interface ValidationRule {
  readonly rule: string;
  readonly message?: string;
  readonly messageExpression?: string;
  /** A JSON path below the node (`.spec.replicas`) the error is reported at. Defaults to the node. */
  readonly fieldPath?: string;
  readonly reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
  /** Evaluate a transition rule on create too, with `oldSelf` an optional. Defaults to false. */
  readonly optionalOldSelf?: boolean;
}

/**
 * A structural schema node (`JSONSchemaProps` of apiextensions/v1), the subset CRDs accept.
 *
 * @example
 * ```ts
 * import type { JsonSchemaProps } from '@kindex/informer';
 *
 * const replicas: JsonSchemaProps = { type: 'integer', minimum: 1, default: 1 };
 * ```
 */
export interface JsonSchemaProps {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  format?: string;
  description?: string;
  title?: string;
  default?: unknown;
  example?: unknown;
  enum?: unknown[];
  nullable?: boolean;
  maximum?: number;
  exclusiveMaximum?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  multipleOf?: number;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  items?: JsonSchemaProps;
  properties?: Record<string, JsonSchemaProps>;
  additionalProperties?: JsonSchemaProps | boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  'x-kubernetes-validations'?: ValidationRule[];
}
