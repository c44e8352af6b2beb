// Validation of a JSON value against a structural schema node, with kube-apiserver's semantics:
// unknown fields are pruned by the server, not refused, so they are not problems here either;
// defaults are applied first (the server defaults before it validates).
import { isIP } from 'node:net';
import type { JsonSchemaProps } from '../json-schema-props.js';
import { evaluateRules, type FieldProblem } from './cel-rules.js';

export interface SchemaErrorsOptions {
  /** The old object (on update): transition rules compare with it. */
  readonly old?: unknown;
  /** Evaluate x-kubernetes-validations. Defaults to true. */
  readonly cel?: boolean;
  /** An apply configuration: leave out required fields and CEL rules (the server merges first). Defaults to false. */
  readonly partial?: boolean;
}

/**
 * The problem kube-apiserver reports in place of the CEL rules it did not check (hasBlockingErr
 * in apiextensions-apiserver's registry/customresource/strategy.go), at its field path `<nil>`.
 */
export const RULES_NOT_CHECKED: FieldProblem = {
  field: '<nil>',
  message: 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
};

/**
 * Every problem of `value` against `node`; `field` is the path of `value` ('' at the root). The
 * schema's problems come first, then those of the CEL rules, as kube-apiserver lists them; a
 * blocking problem (a wrong type, a value not in the enum, a missing required field, too long,
 * too many) leaves the rules unchecked, as there, which RULES_NOT_CHECKED then says.
 */
export function schemaErrors(node: JsonSchemaProps, value: unknown, field: string, options: SchemaErrorsOptions = {}): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const defaulted = applyDefaults(node, value);
  const partial = options.partial === true;
  const blocked = { value: false };
  walk(node, defaulted, options.old, field, problems, { cel: false, partial, blocked });
  if (options.cel === false || partial || !hasRules(node)) return problems;
  if (blocked.value) return [...problems, RULES_NOT_CHECKED];
  // The rules alone: the schema's problems of this second walk are already listed.
  walk(node, defaulted, options.old, field, [], { cel: true, partial, blocked, rules: problems });
  return problems;
}

/** Whether any node of the schema has x-kubernetes-validations (without one there is no CEL validator). */
function hasRules(node: JsonSchemaProps | undefined): boolean {
  if (node === undefined) return false;
  if ((node['x-kubernetes-validations'] ?? []).length > 0) return true;
  const additional = typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined;
  return [...Object.values(node.properties ?? {}), node.items, additional].some(hasRules);
}

/** A copy of `value` with the schema's defaults filled in where fields are missing. */
export function applyDefaults(node: JsonSchemaProps, value: unknown): unknown {
  if (value === undefined) return node.default === undefined ? undefined : structuredClone(node.default);
  if (value === null) return node.nullable || node.default === undefined ? null : structuredClone(node.default);
  if (Array.isArray(value)) return node.items ? value.map((v) => applyDefaults(node.items!, v)) : value;
  if (typeof value !== 'object') return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    const next = applyDefaults(child, out[name]);
    if (next !== undefined) out[name] = next;
  }
  if (typeof node.additionalProperties === 'object') {
    for (const [k, v] of Object.entries(out)) out[k] = applyDefaults(node.additionalProperties, v);
  }
  return out;
}

function join(field: string, name: string): string {
  return field === '' ? name : `${field}.${name}`;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

interface Mode {
  readonly cel: boolean;
  readonly partial: boolean;
  /** Set when a blocking problem is found. */
  readonly blocked: { value: boolean };
  /** Where CEL problems go. Defaults to the walk's problems. */
  readonly rules?: FieldProblem[];
}

function walk(node: JsonSchemaProps, value: unknown, old: unknown, field: string, problems: FieldProblem[], mode: Mode): void {
  const at = field === '' ? '(root)' : field;
  const add = (message: string, where = at): void => void problems.push({ field: where, message });
  // field.ErrorTypes that block the CEL rules: TypeInvalid, NotSupported, Required, TooLong, TooMany.
  const block = (message: string, where = at): void => {
    mode.blocked.value = true;
    add(message, where);
  };
  if (value === null) {
    if (!node.nullable && !node['x-kubernetes-preserve-unknown-fields'])
      block(`must not be null${node.type ? ` (must be of type ${node.type})` : ''}`);
    return;
  }
  const actual = typeOf(value);
  if (node['x-kubernetes-int-or-string']) {
    if (actual !== 'integer' && actual !== 'string') return block(`must be an integer or a string, got ${actual}`);
  } else if (node.type !== undefined) {
    const fits = node.type === actual || (node.type === 'number' && actual === 'integer');
    if (!fits) return block(`must be of type ${node.type}, got ${actual}`);
  }
  if (node.enum && !node.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    block(`must be one of ${node.enum.map((e) => JSON.stringify(e)).join(', ')}, got ${JSON.stringify(value)}`);
  }
  if (typeof value === 'number') numberErrors(node, value, add);
  if (typeof value === 'string') stringErrors(node, value, add, block);
  if (Array.isArray(value)) {
    if (node.minItems !== undefined && value.length < node.minItems) add(`must have at least ${node.minItems} items`);
    if (node.maxItems !== undefined && value.length > node.maxItems) block(`must have at most ${node.maxItems} items`);
    listUniqueness(node, value, field, add);
    const oldList = Array.isArray(old) ? old : undefined;
    value.forEach((item, i) => {
      if (node.items) walk(node.items, item, correlate(node, oldList, item), `${field}[${i}]`, problems, mode);
    });
  } else if (typeof value === 'object') {
    const object = value as Record<string, unknown>;
    const oldObject = typeof old === 'object' && old !== null ? (old as Record<string, unknown>) : undefined;
    const count = Object.keys(object).length;
    if (node.minProperties !== undefined && count < node.minProperties) add(`must have at least ${node.minProperties} fields`);
    if (node.maxProperties !== undefined && count > node.maxProperties) block(`must have at most ${node.maxProperties} fields`);
    if (!mode.partial) for (const name of node.required ?? []) if (object[name] === undefined) block('is required', join(field, name));
    if (node['x-kubernetes-embedded-resource']) {
      for (const name of ['apiVersion', 'kind'])
        if (typeof object[name] !== 'string' || object[name] === '') block('is required in an embedded resource', join(field, name));
    }
    for (const [name, child] of Object.entries(object)) {
      // An explicit `undefined` is a missing field: JSON leaves it out.
      if (child === undefined) continue;
      // metadata of the root (and of embedded resources) is the API server's, validated by it.
      if (name === 'metadata' && (field === '' || node['x-kubernetes-embedded-resource'])) continue;
      const schema = node.properties?.[name] ?? (typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined);
      if (schema) walk(schema, child, oldObject?.[name], node.properties?.[name] ? join(field, name) : `${field}[${name}]`, problems, mode);
    }
  }
  if (mode.cel && node['x-kubernetes-validations']) (mode.rules ?? problems).push(...evaluateRules(node, value, old, field));
}

function numberErrors(node: JsonSchemaProps, value: number, add: (m: string) => void): void {
  if (node.minimum !== undefined) {
    if (node.exclusiveMinimum ? value <= node.minimum : value < node.minimum)
      add(`must be ${node.exclusiveMinimum ? '>' : '>='} ${node.minimum}`);
  }
  if (node.maximum !== undefined) {
    if (node.exclusiveMaximum ? value >= node.maximum : value > node.maximum)
      add(`must be ${node.exclusiveMaximum ? '<' : '<='} ${node.maximum}`);
  }
  if (node.multipleOf !== undefined && value % node.multipleOf !== 0) add(`must be a multiple of ${node.multipleOf}`);
  if (node.format === 'int32' && (value < -(2 ** 31) || value >= 2 ** 31)) add('must fit in int32');
}

// The formats kube-apiserver checks (k8s.io/kube-openapi/pkg/validation/strfmt) that operators use most.
const FORMATS: Record<string, (s: string) => boolean> = {
  'date-time': (s) => /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(s) && !Number.isNaN(Date.parse(s)),
  datetime: (s) => FORMATS['date-time']!(s),
  date: (s) => /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(s)),
  uuid: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  ipv4: (s) => isIP(s) === 4,
  ipv6: (s) => isIP(s) === 6,
  hostname: (s) =>
    s.length <= 253 && /^([a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?)*$/.test(s),
  email: (s) => /^[^@\s]+@[^@\s]+$/.test(s),
  byte: (s) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s),
  duration: (s) => /^-?(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(s) || s === '0',
};

function stringErrors(node: JsonSchemaProps, value: string, add: (m: string) => void, block: (m: string) => void): void {
  const length = [...value].length;
  if (node.minLength !== undefined && length < node.minLength) add(`must be at least ${node.minLength} characters long`);
  if (node.maxLength !== undefined && length > node.maxLength) block(`must be at most ${node.maxLength} characters long`);
  if (node.pattern !== undefined && !new RegExp(node.pattern, 'u').test(value)) add(`must match ${node.pattern}`);
  const format = node.format ? FORMATS[node.format] : undefined;
  if (format && !format(value)) add(`must be a valid ${node.format}`);
}

function listKey(node: JsonSchemaProps, item: unknown): string {
  const keys = node['x-kubernetes-list-map-keys'] ?? [];
  const object = (item ?? {}) as Record<string, unknown>;
  return JSON.stringify(keys.map((k) => object[k] ?? node.items?.properties?.[k]?.default));
}

function listUniqueness(node: JsonSchemaProps, list: unknown[], field: string, add: (m: string, where?: string) => void): void {
  const type = node['x-kubernetes-list-type'];
  if (type !== 'set' && type !== 'map' && !node.uniqueItems) return;
  const seen = new Set<string>();
  list.forEach((item, i) => {
    const key = type === 'map' ? listKey(node, item) : JSON.stringify(item);
    if (seen.has(key)) add(`duplicate ${type === 'map' ? `entry with key ${key}` : `value ${key}`}`, `${field}[${i}]`);
    seen.add(key);
  });
}

/** The old counterpart of a list item: by key in a list-type map, by value in a set; none in an atomic list. */
function correlate(node: JsonSchemaProps, old: unknown[] | undefined, item: unknown): unknown {
  if (old === undefined) return undefined;
  const type = node['x-kubernetes-list-type'];
  if (type === 'map') return old.find((o) => listKey(node, o) === listKey(node, item));
  if (type === 'set') return old.find((o) => JSON.stringify(o) === JSON.stringify(item));
  return undefined;
}
