/**
 * Turns a TypeBox (or hand-written JSON Schema) node into the structural schema a CRD needs, and
 * refuses what kube-apiserver would refuse, naming the node and the fix.
 *
 * TypeBox speaks JSON Schema 2020-12; a CRD speaks the OpenAPI v3.0 subset of apiextensions/v1
 * with Kubernetes extensions. The translation is mechanical where both say the same thing:
 * `anyOf [T, null]` is `nullable`, `anyOf` of literals is `enum`, `anyOf [integer, string]` is
 * `x-kubernetes-int-or-string`, a numeric `exclusiveMinimum` is `minimum` + `exclusiveMinimum:
 * true`, `patternProperties {"^.*$": T}` (TypeBox's Record) is `additionalProperties: T`, and
 * `{}` (Type.Unknown) or an object with `additionalProperties: true` and no properties keeps
 * unknown fields. What has no structural form (a union of objects, `$ref`, `not`, other
 * patternProperties) is refused: the API server would reject the CRD, and later is too late.
 *
 * @module
 */
import type { JsonSchemaProps } from './json-schema-props.js';
import { defaultCustomObject, validateCustomObject } from '@kindex/core';
import { validationRuleErrors } from '@kindex/core/internal';

/**
 * A schema that kube-apiserver would reject as not structural; `problems` lists each node path
 * (`openAPIV3Schema.properties[spec].properties[size]`) with what is wrong and the fix.
 *
 * @example
 * ```ts
 * import { NonStructuralSchemaError } from '@kindex/informer';
 * declare const error: unknown; // caught around the definition of a custom resource
 *
 * if (error instanceof NonStructuralSchemaError) console.log(error.problems);
 * ```
 */
export class NonStructuralSchemaError extends Error {
  override readonly name = 'NonStructuralSchemaError';
  readonly code = 'KINDEX_NON_STRUCTURAL_SCHEMA';
  constructor(
    /** What the schema belongs to (`Widget v1`). */
    readonly subject: string,
    /** One line per offending node: `<path>: <problem>; <fix>`. */
    readonly problems: readonly string[],
  ) {
    super(`${subject}: the schema is not structural, kube-apiserver would reject it:\n  ${problems.join('\n  ')}`);
  }
}

type Node = Record<string, unknown>;

/** Keywords copied as they are: both dialects agree on them. */
const SAME = [
  'description',
  'title',
  'default',
  'example',
  'format',
  'maximum',
  'minimum',
  'multipleOf',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxProperties',
  'minProperties',
  'nullable',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-int-or-string',
  'x-kubernetes-embedded-resource',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-validations',
] as const;

/** Keywords handled by the translation itself (or dropped on purpose, like TypeBox's `$id`). */
const HANDLED = new Set([
  ...SAME,
  'type',
  'enum',
  'const',
  'anyOf',
  'required',
  'properties',
  'items',
  'additionalProperties',
  'patternProperties',
  'exclusiveMaximum',
  'exclusiveMinimum',
  '$id',
  '$schema',
]);

const TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);

/**
 * Translates a TypeBox schema (or plain JSON Schema) into a structural `openAPIV3Schema` node,
 * checking kube-apiserver's structural rules, list-map keys, defaults and CEL syntax.
 *
 * @param subject - names the schema in errors (`Widget v1`).
 * @throws {NonStructuralSchemaError} listing every offending node with its fix.
 *
 * @example
 * ```ts
 * import Type from 'typebox';
 * import { structuralSchema } from '@kindex/informer/internal';
 *
 * const schema = structuralSchema(Type.Object({ size: Type.Union([Type.Integer(), Type.Null()]) }), 'Widget v1');
 * // { type: 'object', required: ['size'], properties: { size: { type: 'integer', nullable: true } } }
 * ```
 */
export function structuralSchema(schema: unknown, subject: string): JsonSchemaProps {
  const problems: string[] = [];
  const result = translate(schema, 'openAPIV3Schema', problems);
  // Nodes the translation already refused are not checked again (one line per problem).
  const refused = new Set(problems.map((p) => p.slice(0, p.indexOf(': '))));
  const checked: string[] = [];
  check(result, 'openAPIV3Schema', checked, { root: true, underPreserve: false });
  // Rules that do not compile, refused as kube-apiserver refuses them. A rule calling a Kubernetes
  // CEL library kindex lacks compiles there, so it passes (see @kindex/core's validateCustomObject).
  for (const e of validationRuleErrors(result, 'openAPIV3Schema').compile) if (!e.unsupported) checked.push(`${e.field}: ${e.summary}`);
  problems.push(...checked.filter((p) => !refused.has(p.slice(0, p.indexOf(': ')))));
  if (problems.length > 0) throw new NonStructuralSchemaError(subject, problems);
  return result;
}

function translate(input: unknown, path: string, problems: string[]): JsonSchemaProps {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    problems.push(`${path}: is ${JSON.stringify(input)}, not a schema object; use a TypeBox type such as Type.String()`);
    return {};
  }
  const node = input as Node;
  for (const key of Object.keys(node)) {
    if (HANDLED.has(key)) continue;
    if (key === '$ref' || key === '$defs' || key === 'definitions') {
      problems.push(
        `${path}: has ${key}; CRD schemas cannot reference other schemas, inline the type (TypeBox: use the type value, not Type.Ref)`,
      );
    } else if (key === 'oneOf' || key === 'allOf' || key === 'not') {
      problems.push(`${path}: has ${key}; express the constraint as an x-kubernetes-validations CEL rule instead`);
    } else {
      problems.push(
        `${path}: unknown keyword ${JSON.stringify(key)}; CRD schemas accept the OpenAPI v3 subset of apiextensions/v1, remove it`,
      );
    }
  }
  const out: Node = {};
  for (const key of SAME) if (node[key] !== undefined) out[key] = structuredClone(node[key]);

  if (Array.isArray(node.anyOf)) Object.assign(out, translateUnion(node.anyOf as unknown[], path, problems));
  if (node.type !== undefined) {
    if (Array.isArray(node.type)) {
      const types = (node.type as unknown[]).filter((t) => t !== 'null');
      if (types.length !== 1) problems.push(`${path}: type ${JSON.stringify(node.type)} mixes types; a structural node has one type`);
      if (types.length < (node.type as unknown[]).length) out.nullable = true;
      out.type = types[0];
    } else if (node.type === 'null') {
      problems.push(`${path}: type "null" alone has no structural form; use Type.Union([T, Type.Null()]) for a nullable T`);
    } else out.type = node.type;
    if (out.type !== undefined && !TYPES.has(out.type as string))
      problems.push(`${path}: type ${JSON.stringify(out.type)} is not a Kubernetes schema type`);
  }
  if (node.const !== undefined) {
    out.enum = [node.const];
    out.type ??= jsonType(node.const);
  }
  if (Array.isArray(node.enum)) {
    out.enum = structuredClone(node.enum);
    const types = new Set((node.enum as unknown[]).map(jsonType));
    if (out.type === undefined && types.size === 1) out.type = [...types][0];
  }
  for (const [key, inclusive] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    const v = node[key];
    if (typeof v === 'number') {
      out[inclusive] = v;
      out[key] = true;
    } else if (typeof v === 'boolean') out[key] = v;
  }
  // A field with a default is not required: the server fills it in before it validates, so a
  // writer may leave it out (kube-rs does the same for #[serde(default)] fields).
  const properties = (node.properties ?? {}) as Record<string, Node>;
  const required = Array.isArray(node.required)
    ? (node.required as string[]).filter((name) => properties[name]?.default === undefined)
    : [];
  if (required.length > 0) out.required = required;
  if (node.properties !== undefined) {
    const properties: Record<string, JsonSchemaProps> = {};
    for (const [name, child] of Object.entries(node.properties as Node))
      properties[name] = translate(child, `${path}.properties[${name}]`, problems);
    if (Object.keys(properties).length > 0 || node.additionalProperties !== true) out.properties = properties;
  }
  if (node.items !== undefined) {
    if (Array.isArray(node.items)) problems.push(`${path}: items is a tuple; CRD lists have one item schema, use Type.Array(T)`);
    else out.items = translate(node.items, `${path}.items`, problems);
  }
  if (node.patternProperties !== undefined) {
    const entries = Object.entries(node.patternProperties as Node);
    const [first] = entries;
    if (entries.length === 1 && first && (first[0] === '^.*$' || first[0] === '^(.*)$')) {
      out.additionalProperties = translate(first[1], `${path}.additionalProperties`, problems);
    } else {
      problems.push(
        `${path}: patternProperties ${JSON.stringify(entries.map(([k]) => k))} have no CRD form; use Type.Record(Type.String(), T) and a CEL rule on the keys`,
      );
    }
  }
  const additional = node.additionalProperties;
  if (additional === true) {
    // An open object (Type.Object({}, { additionalProperties: true })): keep what the server would prune.
    out['x-kubernetes-preserve-unknown-fields'] = true;
  } else if (typeof additional === 'object' && additional !== null) {
    out.additionalProperties = translate(additional, `${path}.additionalProperties`, problems);
  }
  // additionalProperties: false has no CRD form (the server refuses it); pruning does the same job.

  // `{}` (Type.Unknown, Type.Any): any value, kept as it is.
  if (out.type === undefined && !out['x-kubernetes-int-or-string'] && !out['x-kubernetes-preserve-unknown-fields'] && !hasStructure(node)) {
    out['x-kubernetes-preserve-unknown-fields'] = true;
  }
  return out;
}

function hasStructure(node: Node): boolean {
  return ['type', 'anyOf', 'enum', 'const', 'properties', 'items', '$ref', 'oneOf', 'allOf', 'not'].some((k) => node[k] !== undefined);
}

function translateUnion(members: unknown[], path: string, problems: string[]): Node {
  const nodes = members.filter((m): m is Node => typeof m === 'object' && m !== null);
  const nonNull = nodes.filter((m) => m.type !== 'null');
  const nullable = nonNull.length < nodes.length;
  const result: Node = nullable ? { nullable: true } : {};
  const types = new Set(nonNull.map((m) => m.type));
  if (nonNull.length > 0 && nonNull.every((m) => m.const !== undefined)) {
    // A union of literals (Type.Union([Type.Literal('a'), ...]) or Type.Enum): an enum.
    result.enum = nonNull.map((m) => m.const);
    if (nullable) (result.enum as unknown[]).push(null);
    if (types.size === 1) result.type = [...types][0];
    else problems.push(`${path}: an enum mixing ${[...types].join(' and ')} has no structural type; use literals of one type`);
    return result;
  }
  if (nonNull.length === 2 && types.has('integer') && types.has('string')) {
    result['x-kubernetes-int-or-string'] = true;
    return result;
  }
  if (nonNull.length === 1) return { ...translate(nonNull[0], path, problems), ...result };
  problems.push(
    `${path}: a union of ${[...types].map(String).join(', ')} has no structural form; use one object with optional fields and an x-kubernetes-validations rule choosing between them (or Type.Unknown() to keep any value)`,
  );
  return result;
}

function jsonType(value: unknown): string {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  if (Array.isArray(value)) return 'array';
  return value === null ? 'null' : 'object';
}

interface CheckContext {
  readonly root: boolean;
  readonly underPreserve: boolean;
}

/** kube-apiserver's structural rules (apiextensions-apiserver pkg/apiserver/schema/validation.go), plus defaults and CEL syntax. */
function check(node: JsonSchemaProps, path: string, problems: string[], context: CheckContext): void {
  const preserve = node['x-kubernetes-preserve-unknown-fields'] === true;
  const intOrString = node['x-kubernetes-int-or-string'] === true;
  if (node.type === undefined && !preserve && !intOrString) {
    problems.push(
      `${path}: has no type; give it one (Type.String(), Type.Object(...)) or keep any value with x-kubernetes-preserve-unknown-fields: true (Type.Unknown())`,
    );
  }
  if (context.root && node.type !== 'object') problems.push(`${path}: the root must be of type object`);
  if (context.root && node.nullable) problems.push(`${path}: the root cannot be nullable`);
  if (intOrString && node.type !== undefined) problems.push(`${path}: x-kubernetes-int-or-string must not have a type; remove type`);
  if (node.properties && node.additionalProperties !== undefined) {
    problems.push(`${path}: has both properties and additionalProperties; a node is either a struct or a map, choose one`);
  }
  if (node.type === 'array' && node.items === undefined) problems.push(`${path}: an array needs items; use Type.Array(T)`);
  if (node.type !== 'array' && node.items !== undefined) problems.push(`${path}: items on a non-array; set type: array`);
  if ((node.properties || node.additionalProperties) && node.type !== 'object' && !preserve) {
    problems.push(`${path}: properties on a non-object; set type: object`);
  }
  if (node['x-kubernetes-embedded-resource'] && (node.type !== 'object' || !(preserve || node.properties))) {
    problems.push(
      `${path}: x-kubernetes-embedded-resource needs type: object and properties or x-kubernetes-preserve-unknown-fields: true`,
    );
  }
  if (context.root && node.properties?.metadata) {
    const meta = node.properties.metadata;
    const extra = Object.keys(meta.properties ?? {}).filter((k) => k !== 'name' && k !== 'generateName');
    if (meta.type !== 'object' || extra.length > 0 || meta.additionalProperties !== undefined) {
      problems.push(
        `${path}.properties[metadata]: only metadata.name and metadata.generateName may be constrained; remove ${extra.join(', ') || 'the rest'}`,
      );
    }
  }
  const listType = node['x-kubernetes-list-type'];
  const mapKeys = node['x-kubernetes-list-map-keys'];
  if (listType !== undefined && node.type !== 'array') problems.push(`${path}: x-kubernetes-list-type on a non-array`);
  if (listType === 'map') {
    const item = node.items;
    if (!mapKeys || mapKeys.length === 0)
      problems.push(`${path}: x-kubernetes-list-type map needs x-kubernetes-list-map-keys naming the key fields`);
    else if (item?.type !== 'object') problems.push(`${path}: x-kubernetes-list-type map needs object items`);
    else {
      for (const key of mapKeys) {
        const field = item.properties?.[key];
        if (!field) problems.push(`${path}.items: list-map key ${key} is not a property of the items; add it`);
        else if (!['string', 'integer', 'number', 'boolean'].includes(field.type ?? ''))
          problems.push(`${path}.items.properties[${key}]: a list-map key must be a scalar`);
        else if (!item.required?.includes(key) && field.default === undefined) {
          problems.push(`${path}.items.properties[${key}]: a list-map key must be required or have a default; make it required`);
        }
      }
    }
  } else if (mapKeys !== undefined) problems.push(`${path}: x-kubernetes-list-map-keys needs x-kubernetes-list-type: map`);
  if (listType === 'set' && node.items && node.items.type === 'object')
    problems.push(`${path}: x-kubernetes-list-type set needs scalar items; use map with keys`);
  if (node.required) {
    for (const name of node.required) {
      if (node.properties && !node.properties[name] && !preserve)
        problems.push(`${path}: required ${name} is not among the properties; add it or drop it from required`);
    }
  }
  if (node.default !== undefined) {
    if (context.underPreserve)
      problems.push(`${path}: a default under x-kubernetes-preserve-unknown-fields is not allowed (it could not be pruned); move it`);
    // As kube-apiserver validates a default: defaulted, then its CEL rules only once the schema holds.
    const value: unknown = structuredClone(node.default);
    defaultCustomObject(node, value);
    const schemaOnly = validateCustomObject(node, value, { path: 'default', rules: false });
    const errors = schemaOnly.length > 0 ? schemaOnly : validateCustomObject(node, value, { path: 'default' });
    if (errors.length > 0)
      problems.push(
        `${path}: the default ${JSON.stringify(node.default)} does not validate: ${errors.map((e) => `${e.field}: ${e.summary}`).join('; ')}`,
      );
  }
  const inner: CheckContext = { root: false, underPreserve: context.underPreserve || (preserve && !node.properties) };
  for (const [name, child] of Object.entries(node.properties ?? {})) check(child, `${path}.properties[${name}]`, problems, inner);
  if (node.items) check(node.items, `${path}.items`, problems, inner);
  if (typeof node.additionalProperties === 'object') check(node.additionalProperties, `${path}.additionalProperties`, problems, inner);
}
