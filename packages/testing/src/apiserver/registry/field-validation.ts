// Unknown fields of a written object, and what `?fieldValidation=` makes of them, as kube-apiserver
// does: Strict refuses the write, Warn (the default) answers with one `Warning: 299` header per
// field, Ignore says nothing; in every mode the unknown fields are dropped, never stored.
//
// Built-in kinds are checked against the models of @kubernetes/client-node, which are generated
// from the Kubernetes OpenAPI schemas and list each type's JSON fields (getAttributeTypeMap), so no
// field is listed by hand here. Custom resources are checked against their CRD version's
// structural schema (metadata against ObjectMeta), the fields pruning removes.
//
// The same walk decodes metav1.MicroTime fields (typed V1MicroTime in the models) as the real
// decoder does: six fractional digits or a 400, stored in UTC.
//
// Caveat: the models are those of the installed @kubernetes/client-node; a field newer than that
// release counts as unknown.

import { isJsonObject } from '@kindex/core/internal';
import * as models from '@kubernetes/client-node';
import { parseMicroTime } from '../machinery/micro-time.js';
import type { Json } from '../storage/object-store.js';
import type { ResourceType } from '../storage/resource-registry.js';

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

function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/** What decoding found in a written object. */
export interface DecodedFields {
  /** Paths of the unknown fields (dropped from the object), sorted as kube-apiserver lists them. */
  readonly unknown: string[];
  /** The first value the decoder cannot read (a MicroTime), as Go words it. */
  error?: string;
}

// Walks a value of a client-node type name (`V1PodSpec`, `Array<V1Container>`, `{ [key: string]: X; }`).
function walkModel(value: unknown, type: string, path: string, out: DecodedFields): void {
  if (type.startsWith('Array<') && type.endsWith('>')) {
    if (Array.isArray(value)) value.forEach((v, i) => walkModel(v, type.slice(6, -1), `${path}[${i}]`, out));
    return;
  }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map !== null) {
    if (isJsonObject(value)) for (const [k, v] of Object.entries(value)) walkModel(v, map[1]!, join(path, k), out);
    return;
  }
  const fields = fieldsOf(type);
  if (fields === undefined || !isJsonObject(value)) return;
  for (const key of Object.keys(value)) {
    const sub = fields.get(key);
    if (sub === undefined) {
      out.unknown.push(join(path, key));
      delete value[key];
    } else if (sub === 'V1MicroTime') {
      const text = value[key];
      if (typeof text !== 'string') continue;
      const parsed = parseMicroTime(text);
      if ('value' in parsed) value[key] = parsed.value;
      else out.error ??= parsed.error;
    } else {
      walkModel(value[key], sub, join(path, key), out);
    }
  }
}

// Walks a value of a structural schema node, as pruning does.
function walkSchema(value: unknown, schema: Json | undefined, path: string, out: DecodedFields, root = false): void {
  if (schema === undefined) return;
  if (Array.isArray(value)) {
    const items = schema['items'];
    if (isJsonObject(items)) value.forEach((v, i) => walkSchema(v, items, `${path}[${i}]`, out));
    return;
  }
  if (!isJsonObject(value) || schema['x-kubernetes-preserve-unknown-fields'] === true) return;
  const properties = isJsonObject(schema['properties']) ? schema['properties'] : undefined;
  const additional = schema['additionalProperties'];
  for (const key of Object.keys(value)) {
    if (root && (key === 'apiVersion' || key === 'kind' || key === 'metadata')) continue;
    const sub = (properties?.[key] as Json | undefined) ?? (isJsonObject(additional) ? additional : undefined);
    if (sub !== undefined) walkSchema(value[key], sub, join(path, key), out);
    else if (additional !== true) {
      out.unknown.push(join(path, key));
      delete value[key];
    }
  }
}

/**
 * Decodes `obj` in place as kube-apiserver's typed decoder would: removes the fields its kind does
 * not declare (returning their paths, such as `spec.ports[0].bogus`) and normalizes MicroTimes.
 */
export function decodeFields(obj: Json, t: ResourceType, version: string): DecodedFields {
  const out: DecodedFields = { unknown: [] };
  if (t.custom) {
    walkModel(obj['metadata'], 'V1ObjectMeta', 'metadata', out);
    walkSchema(obj, t.schemas?.[version], '', out, true);
  } else {
    const model = modelOf(t, version);
    if (model !== undefined) walkModel(obj, model, '', out);
  }
  out.unknown.sort();
  return out;
}

/** The `strict decoding error: …` list of a request's repeated and unknown fields. */
export function strictDecodingError(unknown: readonly string[], duplicates: readonly string[] = []): string {
  return `strict decoding error: ${unknownFieldWarnings(unknown, duplicates).join(', ')}`;
}

/** The warning texts of a request's repeated and unknown fields (each sent as `Warning: 299 - "<text>"`). */
export function unknownFieldWarnings(unknown: readonly string[], duplicates: readonly string[] = []): string[] {
  return [...duplicates.map((p) => `duplicate field ${JSON.stringify(p)}`), ...unknown.map((p) => `unknown field ${JSON.stringify(p)}`)];
}
