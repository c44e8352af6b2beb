/**
 * Custom objects checked as kube-apiserver's apiextensions-apiserver checks them, in one
 * implementation shared by the client (`customResource().validate()` in @kindex/informer) and the
 * embedded API server of @kindex/testing, so that both report the same problems:
 *
 * - {@link pruneCustomObject}: drop the fields the structural schema does not declare.
 * - {@link defaultCustomObject}: fill in the schema's defaults (the server defaults, then validates).
 * - {@link validateCustomObject}: the OpenAPI checks (type, nullable, enum, bounds, lengths,
 *   pattern, formats, item and property counts, `required`, list-type uniqueness, embedded
 *   resources), then the CEL rules of `x-kubernetes-validations`, unless a blocking problem came
 *   first (a wrong type, a value not in the enum, a missing required field, too long, too many):
 *   kube-apiserver then skips the rules and says "some validation rules were not checked because
 *   the object was invalid" at field `<nil>`.
 * - {@link validationRuleErrors}: what kube-apiserver refuses when the CRD is written, the rules
 *   that do not compile and those over its static cost budget (estimated with cel-go's cost
 *   model and the schema's maxLength, maxItems and maxProperties).
 * - {@link kubernetesCelEnvironment}: the CEL environment the rules run in (CEL with Kubernetes'
 *   strings, lists, regex, quantity and url libraries).
 *
 * One policy for what this implementation cannot check: a rule that does not compile is refused,
 * as kube-apiserver refuses its CRD (`customResource()` throws, the embedded server answers 422).
 * A rule calling a Kubernetes library kindex lacks (ip, cidr, semver, authz) compiles on
 * kube-apiserver, so `customResource()` accepts it and `validateCustomObject` leaves it to the
 * server (not evaluated, not reported); the embedded server, which must enforce what it accepts,
 * refuses such a CRD and names the fix (run the test on the real kube-apiserver).
 *
 * Each problem carries kube-apiserver's message word for word (`message`, what the embedded
 * server answers) and a short form (`summary`, what client-side reports show).
 *
 * Caveats: kube-apiserver prunes, then defaults, then validates; call the three in that order
 * (a null where the schema is neither nullable nor has a default is dropped by pruning, else
 * reported). Unknown fields are pruned, not reported.
 *
 * @module
 */

import { isJsonObject } from '../resource/is-json-object.js';
import { fieldError, type Schema, type SchemaFieldError } from './schema-field-error.js';
import { ROOT_KEEP } from './schema-pruning.js';
import { stringFormatValid } from './string-formats.js';
import { ruleViolations } from './validation-rules.js';

/**
 * Options of {@link validateCustomObject}.
 *
 * @example
 * ```ts
 * import type { ValidateCustomObjectOptions } from '@kindex/core';
 *
 * declare const stored: Record<string, unknown>;
 * const onUpdate: ValidateCustomObjectOptions = { old: stored };
 * ```
 */
export interface ValidateCustomObjectOptions {
  /** The stored object, on update: transition rules (those naming `oldSelf`) compare with it. Defaults to none (a create). */
  readonly old?: unknown;
  /**
   * The object is a server-side apply configuration holding only the fields its manager owns:
   * leave out `required` and the CEL rules, which hold for the merged object. Defaults to false.
   */
  readonly partial?: boolean;
  /** Evaluate the CEL rules. Defaults to true. */
  readonly rules?: boolean;
  /** The field path of `object` (`default` to check a schema's default value). Defaults to '' (the object's root). */
  readonly path?: string;
}

/**
 * Every problem kube-apiserver reports about a custom object against its CRD version's
 * structural schema, in its order: the schema's problems, then those of the CEL rules (or, after
 * a blocking problem, the note that the rules were not checked). Apply
 * {@link defaultCustomObject} first: the server validates the defaulted object.
 *
 * @example
 * ```ts
 * import { validateCustomObject } from '@kindex/core';
 *
 * const schema = {
 *   type: 'object',
 *   properties: { spec: { type: 'object', properties: { min: { type: 'integer' }, max: { type: 'integer' } } } },
 *   'x-kubernetes-validations': [{ rule: 'self.spec.min <= self.spec.max', message: 'min must not exceed max' }],
 * };
 * for (const e of validateCustomObject(schema, { spec: { min: 3, max: 1 } })) console.log(`${e.field}: ${e.summary}`);
 * // : min must not exceed max
 * ```
 */
export function validateCustomObject(schema: object, object: unknown, options: ValidateCustomObjectOptions = {}): SchemaFieldError[] {
  const root = schema as Schema;
  const path = options.path ?? '';
  const partial = options.partial === true;
  const problems: SchemaFieldError[] = [];
  walk(root, object, path, problems, partial, path === '');
  // (Without a rule in the schema there is no CEL validator, and so no note either.)
  if (options.rules === false || partial || !hasRules(root)) return problems;
  if (problems.some((p) => BLOCKING.has(p.reason))) return [...problems, RULES_NOT_CHECKED];
  return [...problems, ...ruleViolations(object, options.old, root)];
}

/** The field.ErrorTypes that hasBlockingErr (apiextensions-apiserver's strategy.go) counts. */
const BLOCKING = new Set([
  'FieldValueTypeInvalid',
  'FieldValueNotSupported',
  'FieldValueRequired',
  'FieldValueTooLong',
  'FieldValueTooMany',
]);

const NOT_CHECKED =
  'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';

/** The error hasBlockingErr adds: field.Invalid(nil, nil, ...), so its path prints as `<nil>`. */
const RULES_NOT_CHECKED = fieldError('FieldValueInvalid', '<nil>', `Invalid value: null: ${NOT_CHECKED}`, NOT_CHECKED);

/** Whether any node of the schema has x-kubernetes-validations. */
function hasRules(schema: unknown): boolean {
  if (!isJsonObject(schema)) return false;
  if (Array.isArray(schema['x-kubernetes-validations']) && schema['x-kubernetes-validations'].length > 0) return true;
  const properties = isJsonObject(schema['properties']) ? Object.values(schema['properties']) : [];
  return [...properties, schema['items'], schema['additionalProperties']].some(hasRules);
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function show(v: unknown): string {
  return JSON.stringify(v) ?? 'null';
}

const join = (path: string, name: string): string => (path === '' ? name : `${path}.${name}`);
const num = (schema: Schema, key: string): number | undefined => (typeof schema[key] === 'number' ? schema[key] : undefined);

function walk(schema: Schema, value: unknown, path: string, out: SchemaFieldError[], partial: boolean, root = false): void {
  const at = path === '' ? '<root>' : path;
  const add = (reason: string, message: string, summary: string, field = path): void =>
    void out.push(fieldError(reason, field, message, summary));
  const type = typeof schema['type'] === 'string' ? schema['type'] : undefined;
  const intOrString = schema['x-kubernetes-int-or-string'] === true;
  if (value === null) {
    if (schema['nullable'] !== true && type !== undefined) {
      add(
        'FieldValueTypeInvalid',
        `Invalid value: "null": ${at} in body must be of type ${type}: "null"`,
        `must not be null (must be of type ${type})`,
      );
    }
    return;
  }
  const actual = typeName(value);
  if (intOrString) {
    if (actual !== 'integer' && actual !== 'string') {
      return add(
        'FieldValueTypeInvalid',
        `Invalid value: "${actual}": ${at} in body must be of type integer,string: "${actual}"`,
        `must be an integer or a string, got ${actual}`,
      );
    }
  } else if (type !== undefined && type !== actual && !(type === 'number' && actual === 'integer')) {
    return add(
      'FieldValueTypeInvalid',
      `Invalid value: "${actual}": ${at} in body must be of type ${type}: "${actual}"`,
      `must be of type ${type}, got ${actual}`,
    );
  }
  const values = Array.isArray(schema['enum']) ? (schema['enum'] as unknown[]) : undefined;
  if (values && !values.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    const allowed = values.map(show).join(', ');
    add(
      'FieldValueNotSupported',
      `Unsupported value: ${show(value)}: supported values: ${allowed}`,
      `must be one of ${allowed}, got ${show(value)}`,
    );
  }
  if (typeof value === 'number') numberProblems(schema, value, path, at, add);
  if (typeof value === 'string') stringProblems(schema, value, at, add);
  if (Array.isArray(value)) {
    const min = num(schema, 'minItems');
    const max = num(schema, 'maxItems');
    if (min !== undefined && value.length < min)
      add(
        'FieldValueInvalid',
        `Invalid value: ${value.length}: ${at} in body should have at least ${min} items`,
        `must have at least ${min} items`,
      );
    if (max !== undefined && value.length > max) {
      const items = max === 1 ? 'item' : 'items';
      add('FieldValueTooMany', `Too many: ${value.length}: must have at most ${max} ${items}`, `must have at most ${max} items`);
    }
    listUniqueness(schema, value, path, add);
    const items = schema['items'];
    if (isJsonObject(items)) value.forEach((v, i) => walk(items, v, `${path}[${i}]`, out, partial));
    return;
  }
  if (!isJsonObject(value)) return;
  const count = Object.keys(value).length;
  const minProperties = num(schema, 'minProperties');
  const maxProperties = num(schema, 'maxProperties');
  if (minProperties !== undefined && count < minProperties) {
    add(
      'FieldValueInvalid',
      `Invalid value: ${count}: ${at} in body should have at least ${minProperties} properties`,
      `must have at least ${minProperties} fields`,
    );
  }
  if (maxProperties !== undefined && count > maxProperties) {
    // field.TooMany, worded for items whatever it counts (apiextensions' conversion of kube-openapi's TooManyProperties).
    const items = maxProperties === 1 ? 'item' : 'items';
    add(
      'FieldValueTooMany',
      `Too many: ${count}: must have at most ${maxProperties} ${items}`,
      `must have at most ${maxProperties} fields`,
    );
  }
  if (!partial && Array.isArray(schema['required'])) {
    for (const name of schema['required'] as string[])
      if (value[name] === undefined) add('FieldValueRequired', 'Required value', 'is required', join(path, name));
  }
  const embedded = schema['x-kubernetes-embedded-resource'] === true;
  if (embedded) {
    for (const name of ['apiVersion', 'kind']) {
      if (typeof value[name] !== 'string' || value[name] === '')
        add('FieldValueRequired', 'Required value', 'is required in an embedded resource', join(path, name));
    }
  }
  const properties = isJsonObject(schema['properties']) ? schema['properties'] : {};
  const additional = schema['additionalProperties'];
  for (const [name, child] of Object.entries(value)) {
    // An explicit `undefined` is a missing field: JSON leaves it out.
    if (child === undefined) continue;
    // apiVersion, kind and metadata of the root (and metadata of embedded resources) are the API server's.
    if ((root && ROOT_KEEP.has(name)) || (embedded && name === 'metadata')) continue;
    const sub = properties[name] ?? additional;
    if (isJsonObject(sub)) walk(sub, child, join(path, name), out, partial);
  }
}

type Add = (reason: string, message: string, summary: string, field?: string) => void;

function numberProblems(schema: Schema, value: number, path: string, at: string, add: Add): void {
  const minimum = num(schema, 'minimum');
  const maximum = num(schema, 'maximum');
  if (minimum !== undefined) {
    const exclusive = schema['exclusiveMinimum'] === true;
    if (exclusive ? value <= minimum : value < minimum) {
      const words = exclusive ? 'greater than' : 'greater than or equal to';
      add(
        'FieldValueInvalid',
        `Invalid value: ${value}: ${at} in body should be ${words} ${minimum}`,
        `must be ${exclusive ? '>' : '>='} ${minimum}`,
      );
    }
  }
  if (maximum !== undefined) {
    const exclusive = schema['exclusiveMaximum'] === true;
    if (exclusive ? value >= maximum : value > maximum) {
      const words = exclusive ? 'less than' : 'less than or equal to';
      add(
        'FieldValueInvalid',
        `Invalid value: ${value}: ${at} in body should be ${words} ${maximum}`,
        `must be ${exclusive ? '<' : '<='} ${maximum}`,
      );
    }
  }
  const multipleOf = num(schema, 'multipleOf');
  if (multipleOf !== undefined && value % multipleOf !== 0)
    add(
      'FieldValueInvalid',
      `Invalid value: ${value}: ${at} in body should be a multiple of ${multipleOf}`,
      `must be a multiple of ${multipleOf}`,
    );
  if (schema['format'] === 'int32' && (value < -(2 ** 31) || value >= 2 ** 31)) {
    // kube-openapi reports it without a field path.
    add(
      'FieldValueInvalid',
      `Invalid value: "": Checked value must be of type integer with format int32 in ${path}`,
      `${path} must fit in int32`,
      '<nil>',
    );
  }
}

function stringProblems(schema: Schema, value: string, at: string, add: Add): void {
  const length = [...value].length;
  const minLength = num(schema, 'minLength');
  const maxLength = num(schema, 'maxLength');
  if (minLength !== undefined && length < minLength)
    add(
      'FieldValueInvalid',
      `Invalid value: ${show(value)}: ${at} in body should be at least ${minLength} chars long`,
      `must be at least ${minLength} characters long`,
    );
  if (maxLength !== undefined && length > maxLength)
    add('FieldValueTooLong', `Too long: may not be more than ${maxLength} bytes`, `must be at most ${maxLength} characters long`);
  const pattern = typeof schema['pattern'] === 'string' ? schema['pattern'] : undefined;
  if (pattern !== undefined && safeRegExp(pattern)?.test(value) === false)
    add('FieldValueInvalid', `Invalid value: ${show(value)}: ${at} in body should match '${pattern}'`, `must match ${pattern}`);
  const format = typeof schema['format'] === 'string' ? schema['format'] : undefined;
  if (format !== undefined && !stringFormatValid(format, value))
    add(
      'FieldValueTypeInvalid',
      `Invalid value: ${show(value)}: ${at} in body must be of type ${format}: ${show(value)}`,
      `must be a valid ${format}`,
    );
}

// Patterns come from user CRDs; one that JavaScript cannot compile is skipped rather than fatal.
function safeRegExp(pattern: string): RegExp | undefined {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return undefined;
  }
}

// kube-apiserver's listtype validation: duplicate items of a set, duplicate keys of a map list.
function listUniqueness(schema: Schema, list: unknown[], path: string, add: Add): void {
  const type = schema['x-kubernetes-list-type'];
  if (type !== 'set' && type !== 'map' && schema['uniqueItems'] !== true) return;
  const seen = new Set<string>();
  list.forEach((item, i) => {
    const key = type === 'map' ? listKey(schema, item) : JSON.stringify(item);
    if (seen.has(key)) {
      const summary =
        type === 'map' ? `duplicate entry with key ${JSON.stringify(Object.values(JSON.parse(key) as object))}` : `duplicate value ${key}`;
      add('FieldValueDuplicate', `Duplicate value: ${key}`, summary, `${path}[${i}]`);
    }
    seen.add(key);
  });
}

/** The key of a map-list item, as kube-apiserver prints it: its key fields (missing ones defaulted) as JSON. */
function listKey(schema: Schema, item: unknown): string {
  const keys = Array.isArray(schema['x-kubernetes-list-map-keys']) ? (schema['x-kubernetes-list-map-keys'] as string[]) : [];
  const object = isJsonObject(item) ? item : {};
  const itemProperties = isJsonObject(schema['items']) && isJsonObject(schema['items']['properties']) ? schema['items']['properties'] : {};
  const key: Record<string, unknown> = {};
  for (const k of keys) {
    const sub = itemProperties[k];
    key[k] = object[k] ?? (isJsonObject(sub) ? sub['default'] : undefined);
  }
  return JSON.stringify(key);
}
