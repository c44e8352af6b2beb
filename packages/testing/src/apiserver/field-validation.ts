// Unknown fields of a written object, and what `?fieldValidation=` makes of them, as kube-apiserver
// does: Strict refuses the write, Warn (the default) answers with one `Warning: 299` header per
// field, Ignore says nothing; in every mode the unknown fields are dropped, never stored.
//
// Built-in kinds are checked against the models of @kubernetes/client-node, which are generated
// from the Kubernetes OpenAPI schemas and list each type's JSON fields (getAttributeTypeMap), so no
// field is listed by hand here. Custom resources are checked against their CRD version's
// structural schema (metadata against ObjectMeta), the fields pruning removes.
//
// Caveat: the models are those of the installed @kubernetes/client-node; a field newer than that
// release counts as unknown.

import * as models from '@kubernetes/client-node';
import type { Json } from './object-store.js';
import type { ResourceType } from './resource-registry.js';

/** The modes of `?fieldValidation=`; an empty or missing value is Warn. */
export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

/** The mode a request asks for (its value was validated with the request's options). */
export function fieldValidationOf(query: URLSearchParams): FieldValidation {
  const v = query.get('fieldValidation');
  return v === 'Ignore' || v === 'Strict' ? v : 'Warn';
}

interface Attribute {
  readonly baseName: string;
  readonly type: string;
}

type Model = { getAttributeTypeMap(): readonly Attribute[] };

const registry = models as unknown as Record<string, Model | undefined>;
// Field name to type name, per model, built on first use.
const fieldsByModel = new Map<string, ReadonlyMap<string, string> | null>();

function fieldsOf(model: string): ReadonlyMap<string, string> | undefined {
  let fields = fieldsByModel.get(model);
  if (fields === undefined) {
    const m = registry[model];
    fields = typeof m?.getAttributeTypeMap === 'function' ? new Map(m.getAttributeTypeMap().map((a) => [a.baseName, a.type])) : null;
    fieldsByModel.set(model, fields);
  }
  return fields ?? undefined;
}

const modelByType = new Map<string, string | null>();

// client-node names models `V1Pod`, and `<Group>V1Event` where two groups share a kind.
function modelOf(t: ResourceType, version: string): string | undefined {
  const memo = `${t.id}|${version}`;
  let model = modelByType.get(memo);
  if (model === undefined) {
    const v = version.charAt(0).toUpperCase() + version.slice(1);
    const groupWord = t.group === '' ? 'core' : t.group.split('.')[0]!;
    const prefixed = `${groupWord.charAt(0).toUpperCase()}${groupWord.slice(1)}${v}${t.kind}`;
    model = [prefixed, `${v}${t.kind}`].find((name) => fieldsOf(name) !== undefined) ?? null;
    modelByType.set(memo, model);
  }
  return model ?? undefined;
}

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

// Walks a value of a client-node type name (`V1PodSpec`, `Array<V1Container>`, `{ [key: string]: X; }`).
function walkModel(value: unknown, type: string, path: string, found: string[]): void {
  if (type.startsWith('Array<') && type.endsWith('>')) {
    if (Array.isArray(value)) value.forEach((v, i) => walkModel(v, type.slice(6, -1), `${path}[${i}]`, found));
    return;
  }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map !== null) {
    if (isObject(value)) for (const [k, v] of Object.entries(value)) walkModel(v, map[1]!, join(path, k), found);
    return;
  }
  const fields = fieldsOf(type);
  if (fields === undefined || !isObject(value)) return;
  for (const key of Object.keys(value)) {
    const sub = fields.get(key);
    if (sub === undefined) {
      found.push(join(path, key));
      delete value[key];
    } else {
      walkModel(value[key], sub, join(path, key), found);
    }
  }
}

// Walks a value of a structural schema node, as pruning does.
function walkSchema(value: unknown, schema: Json | undefined, path: string, found: string[], root = false): void {
  if (schema === undefined) return;
  if (Array.isArray(value)) {
    const items = schema['items'];
    if (isObject(items)) value.forEach((v, i) => walkSchema(v, items, `${path}[${i}]`, found));
    return;
  }
  if (!isObject(value) || schema['x-kubernetes-preserve-unknown-fields'] === true) return;
  const properties = isObject(schema['properties']) ? schema['properties'] : undefined;
  const additional = schema['additionalProperties'];
  for (const key of Object.keys(value)) {
    if (root && (key === 'apiVersion' || key === 'kind' || key === 'metadata')) continue;
    const sub = (properties?.[key] as Json | undefined) ?? (isObject(additional) ? additional : undefined);
    if (sub !== undefined) walkSchema(value[key], sub, join(path, key), found);
    else if (additional !== true) {
      found.push(join(path, key));
      delete value[key];
    }
  }
}

/**
 * Removes, in place, the fields of `obj` that its kind does not declare and returns their paths
 * (`spec.ports[0].bogus`), sorted as kube-apiserver lists them.
 */
export function takeUnknownFields(obj: Json, t: ResourceType, version: string): string[] {
  const found: string[] = [];
  if (t.custom) {
    walkModel(obj['metadata'], 'V1ObjectMeta', 'metadata', found);
    walkSchema(obj, t.schemas?.[version], '', found, true);
  } else {
    const model = modelOf(t, version);
    if (model !== undefined) walkModel(obj, model, '', found);
  }
  return found.sort();
}

/** The `strict decoding error: …` list of a request's unknown fields. */
export function strictDecodingError(unknown: readonly string[]): string {
  return `strict decoding error: ${unknown.map((p) => `unknown field ${JSON.stringify(p)}`).join(', ')}`;
}

/** The warning texts of a request's unknown fields (each sent as `Warning: 299 - "<text>"`). */
export function unknownFieldWarnings(unknown: readonly string[]): string[] {
  return unknown.map((p) => `unknown field ${JSON.stringify(p)}`);
}
