// The structural schema of a CRD version applied to custom objects, as kube-apiserver does:
// unknown fields are pruned (unless x-kubernetes-preserve-unknown-fields), then the object is
// validated (type, nullable, enum, required, bounds, lengths, pattern, item counts, then the CEL
// rules of validation-rules.ts, unless a blocking error came first). Defaulting is schema-defaulting.ts. Formats and list-type checks
// are not implemented.

import { isJsonObject } from '@kindex/core';
import type { Json } from './storage/object-store.js';
import type { StatusCause } from './storage/status-error.js';
import { ruleViolations } from './validation-rules.js';

/** An openAPIV3Schema node (the parts used here). */
export type Schema = Json;

const ROOT_KEEP = new Set(['apiVersion', 'kind', 'metadata']);

/** Removes, in place, the fields the schema does not declare. */
export function pruneObject(obj: Json, schema: Schema): void {
  pruneNode(obj, schema, true);
}

function pruneNode(value: unknown, schema: Schema | undefined, root = false): void {
  if (schema === undefined) return;
  if (Array.isArray(value)) {
    const items = schema['items'];
    if (isJsonObject(items)) for (const v of value) pruneNode(v, items);
    return;
  }
  if (!isJsonObject(value)) return;
  const properties = isJsonObject(schema['properties']) ? (schema['properties'] as Record<string, Schema>) : undefined;
  const additional = schema['additionalProperties'];
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  for (const key of Object.keys(value)) {
    if (root && ROOT_KEEP.has(key)) continue;
    const sub = properties?.[key] ?? (isJsonObject(additional) ? additional : undefined);
    if (sub !== undefined) pruneNode(value[key], sub);
    else if (!preserve && additional !== true) delete value[key];
  }
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function show(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v) : (JSON.stringify(v) ?? 'null');
}

/**
 * The problems of an object against its schema, with kube-apiserver's field paths and wording;
 * `old` is the stored object on update (for the transition rules), undefined on create.
 */
export function validateObject(obj: Json, schema: Schema, old?: Readonly<Json>): StatusCause[] {
  const causes: StatusCause[] = [];
  validateNode(obj, schema, '', causes, true);
  // kube-apiserver leaves the CEL rules unchecked after a blocking schema error, which the rules
  // could trip over (hasBlockingErr in apiextensions-apiserver's registry/customresource/strategy.go).
  // (Without a rule in the schema there is no CEL validator, and so no note either.)
  if (!hasRules(schema)) return causes;
  if (causes.some((c) => BLOCKING_REASONS.has(c.reason ?? ''))) causes.push(RULES_NOT_CHECKED);
  else causes.push(...ruleViolations(obj, old, schema));
  return causes;
}

/** Whether any node of the schema has x-kubernetes-validations. */
function hasRules(schema: unknown): boolean {
  if (!isJsonObject(schema)) return false;
  if (Array.isArray(schema['x-kubernetes-validations']) && schema['x-kubernetes-validations'].length > 0) return true;
  const properties = isJsonObject(schema['properties']) ? Object.values(schema['properties']) : [];
  return [...properties, schema['items'], schema['additionalProperties']].some(hasRules);
}

/** The field.ErrorTypes hasBlockingErr counts: a wrong type, an enum, a required field, too long, too many. */
const BLOCKING_REASONS = new Set([
  'FieldValueTypeInvalid',
  'FieldValueNotSupported',
  'FieldValueRequired',
  'FieldValueTooLong',
  'FieldValueTooMany',
]);

/** The error hasBlockingErr adds: field.Invalid(nil, nil, ...), so its path prints as `<nil>`. */
const RULES_NOT_CHECKED: StatusCause = {
  reason: 'FieldValueInvalid',
  field: '<nil>',
  message:
    'Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
};

function validateNode(value: unknown, schema: Schema, path: string, causes: StatusCause[], root = false): void {
  const at = path === '' ? '<root>' : path;
  if (value === null) {
    if (schema['nullable'] !== true && schema['type'] !== undefined) {
      causes.push({
        reason: 'FieldValueTypeInvalid',
        field: path,
        message: `Invalid value: "null": ${at} in body must be of type ${String(schema['type'])}: "null"`,
      });
    }
    return;
  }
  const type = schema['type'];
  const actual = typeName(value);
  if (typeof type === 'string' && type !== actual && !(type === 'number' && actual === 'integer')) {
    causes.push({
      reason: 'FieldValueTypeInvalid',
      field: path,
      message: `Invalid value: "${actual}": ${at} in body must be of type ${type}: "${actual}"`,
    });
    return;
  }
  if (Array.isArray(schema['enum']) && !(schema['enum'] as unknown[]).some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    const allowed = (schema['enum'] as unknown[]).map(show).join(', ');
    causes.push({
      reason: 'FieldValueNotSupported',
      field: path,
      message: `Unsupported value: ${show(value)}: supported values: ${allowed}`,
    });
  }
  if (typeof value === 'number') {
    if (typeof schema['minimum'] === 'number' && value < schema['minimum']) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: path,
        message: `Invalid value: ${value}: ${at} in body should be greater than or equal to ${schema['minimum']}`,
      });
    }
    if (typeof schema['maximum'] === 'number' && value > schema['maximum']) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: path,
        message: `Invalid value: ${value}: ${at} in body should be less than or equal to ${schema['maximum']}`,
      });
    }
  }
  if (typeof value === 'string') {
    if (typeof schema['minLength'] === 'number' && value.length < schema['minLength']) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: path,
        message: `Invalid value: ${show(value)}: ${at} in body should be at least ${schema['minLength']} chars long`,
      });
    }
    if (typeof schema['maxLength'] === 'number' && value.length > schema['maxLength']) {
      causes.push({ reason: 'FieldValueTooLong', field: path, message: `Too long: may not be more than ${schema['maxLength']} bytes` });
    }
    if (typeof schema['pattern'] === 'string' && !safeRegExp(schema['pattern'])?.test(value)) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: path,
        message: `Invalid value: ${show(value)}: ${at} in body should match '${schema['pattern']}'`,
      });
    }
  }
  if (Array.isArray(value)) {
    if (typeof schema['minItems'] === 'number' && value.length < schema['minItems']) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: path,
        message: `Invalid value: ${value.length}: ${at} in body should have at least ${schema['minItems']} items`,
      });
    }
    if (typeof schema['maxItems'] === 'number' && value.length > schema['maxItems']) {
      causes.push({
        reason: 'FieldValueTooMany',
        field: path,
        message: `Too many: ${value.length}: must have at most ${schema['maxItems']} ${schema['maxItems'] === 1 ? 'item' : 'items'}`,
      });
    }
    const items = schema['items'];
    if (isJsonObject(items)) value.forEach((v, i) => validateNode(v, items, `${path}[${i}]`, causes));
    return;
  }
  if (isJsonObject(value)) {
    const properties = isJsonObject(schema['properties']) ? (schema['properties'] as Record<string, Schema>) : {};
    const count = Object.keys(value).length;
    if (typeof schema['maxProperties'] === 'number' && count > schema['maxProperties']) {
      // field.TooMany, worded for items whatever it counts (apiextensions' conversion of kube-openapi's TooManyProperties).
      const max = schema['maxProperties'];
      causes.push({
        reason: 'FieldValueTooMany',
        field: path,
        message: `Too many: ${count}: must have at most ${max} ${max === 1 ? 'item' : 'items'}`,
      });
    }
    if (Array.isArray(schema['required'])) {
      for (const r of schema['required'] as string[]) {
        if (value[r] === undefined)
          causes.push({ reason: 'FieldValueRequired', field: path === '' ? r : `${path}.${r}`, message: 'Required value' });
      }
    }
    const additional = schema['additionalProperties'];
    for (const [k, v] of Object.entries(value)) {
      if (root && ROOT_KEEP.has(k)) continue;
      const sub = properties[k] ?? (isJsonObject(additional) ? additional : undefined);
      if (sub !== undefined) validateNode(v, sub, path === '' ? k : `${path}.${k}`, causes);
    }
  }
}

// Patterns come from user CRDs; one that JavaScript cannot compile is skipped rather than fatal.
function safeRegExp(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
}
