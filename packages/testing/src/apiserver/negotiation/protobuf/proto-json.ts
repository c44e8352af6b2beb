// Converts between Kubernetes' protobuf messages and the JSON the embedded server stores, walking
// the message descriptors of @bufbuild/protobuf. The proto3 JSON mapping of the library does not
// apply: Kubernetes JSON writes int64 as numbers, times as RFC 3339 strings, Quantity and
// IntOrString as bare values and RawExtension as the embedded JSON, and names a few
// apiextensions fields differently ($ref, x-kubernetes-*).
//
// Presence follows Go: gogo's marshaller writes every non-pointer field, so a decoded zero
// (0, false, "", an empty Time) means unset and is left out, except in the fields the Go types
// declare as pointers (generated/go-fields.ts), where `replicas: 0` is a value. Embedded structs
// (Probe's handler, a key selector's LocalObjectReference) are fields in protobuf and inline in JSON.

import { create, isFieldSet, ScalarType, type DescField, type DescMessage, type Message, type MessageShape } from '@bufbuild/protobuf';
import { INLINE_FIELDS, POINTER_FIELDS } from './generated/go-fields.js';

type Json = Record<string, unknown>;

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const APIEXTENSIONS = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';

/** A message with a JSON form of its own, keyed by full name. */
interface Special {
  toJson(message: Json): unknown;
  fromJson(value: unknown): Json;
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();
/** Bytes that hold JSON: RawExtension.raw, FieldsV1.Raw, apiextensions' JSON.raw. */
function embeddedJson(field: string): Special {
  return {
    toJson: (m) => {
      const raw = m[field];
      return raw instanceof Uint8Array && raw.length > 0 ? (JSON.parse(fromUtf8.decode(raw)) as unknown) : undefined;
    },
    fromJson: (v) => ({ [field]: utf8.encode(JSON.stringify(v)) }),
  };
}
const items: Special = { toJson: (m) => m['items'], fromJson: (v) => ({ items: v }) };

const SPECIAL: Record<string, Special> = {
  [`${META}.Time`]: timeSpecial(false),
  [`${META}.MicroTime`]: timeSpecial(true),
  [`${META}.FieldsV1`]: embeddedJson('Raw'),
  [`${META}.Verbs`]: items,
  'k8s.io.api.authentication.v1.ExtraValue': items,
  'k8s.io.api.authorization.v1.ExtraValue': items,
  'k8s.io.apimachinery.pkg.runtime.RawExtension': embeddedJson('raw'),
  [`${APIEXTENSIONS}.JSON`]: embeddedJson('raw'),
  'k8s.io.apimachinery.pkg.api.resource.Quantity': { toJson: (m) => m['string'], fromJson: (v) => ({ string: String(v) }) },
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString': {
    toJson: (m) => (m['type'] === 1n ? (m['strVal'] ?? '') : (m['intVal'] ?? 0)),
    fromJson: (v) => (typeof v === 'number' ? { type: 0n, intVal: v } : { type: 1n, strVal: String(v) }),
  },
  [`${APIEXTENSIONS}.JSONSchemaPropsOrArray`]: {
    toJson: (m) => (m['schema'] !== undefined ? m['schema'] : m['jSONSchemas']),
    fromJson: (v) => (Array.isArray(v) ? { jSONSchemas: v } : { schema: v }),
  },
  [`${APIEXTENSIONS}.JSONSchemaPropsOrBool`]: {
    toJson: (m) => (m['schema'] !== undefined ? m['schema'] : (m['allows'] ?? false)),
    fromJson: (v) => (typeof v === 'boolean' ? { allows: v } : { allows: true, schema: v }),
  },
  [`${APIEXTENSIONS}.JSONSchemaPropsOrStringArray`]: {
    toJson: (m) => (m['schema'] !== undefined ? m['schema'] : m['property']),
    fromJson: (v) => (Array.isArray(v) ? { property: v } : { schema: v }),
  },
};

// JSONSchemaProps' proto field names cannot hold `$` or `-`.
const JSON_SCHEMA_PROPS_NAMES: Record<string, string> = { ref: '$ref', schema: '$schema' };

/** The JSON key of a field: the proto name, but for JSONSchemaProps' `$ref`, `$schema` and `x-kubernetes-*`. */
function jsonKey(desc: DescMessage, field: DescField): string {
  if (desc.typeName !== `${APIEXTENSIONS}.JSONSchemaProps`) return field.name;
  const renamed = JSON_SCHEMA_PROPS_NAMES[field.name];
  if (renamed !== undefined) return renamed;
  return field.name.startsWith('xKubernetes') ? `x${field.name.slice(1).replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}` : field.name;
}

/** The Kubernetes JSON of a decoded message, with unset and Go-zero fields left out. */
export function messageToJson(desc: DescMessage, message: Message): unknown {
  const m = message as unknown as Json;
  const special = SPECIAL[desc.typeName];
  if (special !== undefined) {
    // Set fields only; scalars stay as decoded (bytes, bigint) for the special form to read.
    const set = desc.fields.filter((f) => isFieldSet(message, f));
    return special.toJson(
      Object.fromEntries(set.map((f) => [f.localName, f.fieldKind === 'scalar' ? m[f.localName] : fieldToJson(f, m[f.localName])])),
    );
  }
  const out: Json = {};
  for (const field of desc.fields) {
    if (!isFieldSet(message, field)) continue;
    const value = fieldToJson(field, m[field.localName]);
    if (value === undefined) continue;
    const goName = `${desc.name}.${field.name}`;
    if (INLINE_FIELDS.has(goName)) Object.assign(out, value);
    // A message's own JSON form may be a zero (JSONSchemaPropsOrBool's false): only scalars and lists are Go zeros.
    else if (field.fieldKind === 'message' || !isGoZero(value) || POINTER_FIELDS.has(goName)) out[jsonKey(desc, field)] = value;
  }
  return out;
}

function isGoZero(value: unknown): boolean {
  if (value === '' || value === 0 || value === false) return true;
  return Array.isArray(value) ? value.length === 0 : false;
}

/** How one direction converts a message and a scalar; fields, lists and maps are walked alike. */
interface Direction {
  message(desc: DescMessage, value: unknown): unknown;
  scalar(type: ScalarType, value: unknown): unknown;
}

function convertField(field: DescField, value: unknown, to: Direction): unknown {
  switch (field.fieldKind) {
    case 'scalar':
      return to.scalar(field.scalar, value);
    case 'enum':
      return value;
    case 'message':
      return to.message(field.message, value);
    case 'list':
      return (value as unknown[]).map((v) =>
        field.listKind === 'message' ? to.message(field.message, v) : field.listKind === 'scalar' ? to.scalar(field.scalar, v) : v,
      );
    case 'map':
      return Object.fromEntries(
        Object.entries(value as Json).map(([k, v]) => [
          k,
          field.mapKind === 'message' ? to.message(field.message, v) : field.mapKind === 'scalar' ? to.scalar(field.scalar, v) : v,
        ]),
      );
  }
}

const TO_JSON: Direction = { message: (desc, v) => messageToJson(desc, v as Message), scalar: (type, v) => scalarToJson(type, v) };
const FROM_JSON: Direction = { message: (desc, v) => jsonToInit(desc, v), scalar: (type, v) => scalarFromJson(type, v) };

function fieldToJson(field: DescField, value: unknown): unknown {
  return value === undefined ? undefined : convertField(field, value, TO_JSON);
}

function scalarToJson(type: ScalarType, value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (type === ScalarType.BYTES) return Buffer.from(value as Uint8Array).toString('base64');
  return value;
}

/** The message init of Kubernetes JSON, for `create` and `toBinary`; keys the descriptor lacks are dropped. */
export function jsonToMessage<Desc extends DescMessage>(desc: Desc, json: unknown): MessageShape<Desc> {
  return create(desc, jsonToInit(desc, json) as never);
}

function jsonToInit(desc: DescMessage, json: unknown): Json {
  const special = SPECIAL[desc.typeName];
  if (special !== undefined) {
    const init = special.fromJson(json);
    // The special form's scalars are ready; its messages are JSON still (JSONSchemaPropsOrBool's schema).
    for (const field of desc.fields) {
      if (field.fieldKind !== 'scalar' && init[field.localName] !== undefined)
        init[field.localName] = fieldFromJson(field, init[field.localName]);
    }
    return init;
  }
  const out: Json = {};
  if (json === null || typeof json !== 'object') return out;
  const obj = json as Json;
  for (const field of desc.fields) {
    const value = INLINE_FIELDS.has(`${desc.name}.${field.name}`) ? obj : obj[jsonKey(desc, field)];
    if (value === undefined || value === null) continue;
    out[field.localName] = fieldFromJson(field, value);
  }
  return out;
}

function fieldFromJson(field: DescField, value: unknown): unknown {
  return convertField(field, value, FROM_JSON);
}

const INT64_TYPES = new Set([ScalarType.INT64, ScalarType.UINT64, ScalarType.SINT64, ScalarType.FIXED64, ScalarType.SFIXED64]);

function scalarFromJson(type: ScalarType, value: unknown): unknown {
  if (INT64_TYPES.has(type)) return BigInt(Math.trunc(Number(value)));
  if (type === ScalarType.BYTES) return new Uint8Array(Buffer.from(String(value), 'base64'));
  return value;
}

// Time is second-precision on both wires; MicroTime keeps microseconds (micro-time.ts's format).
function timeSpecial(micro: boolean): Special {
  return {
    toJson: (m) => {
      const seconds = m['seconds'] as bigint | undefined;
      const nanos = (m['nanos'] as number | undefined) ?? 0;
      if (seconds === undefined) return undefined;
      const iso = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
      return micro ? `${iso}.${String(Math.trunc(nanos / 1000)).padStart(6, '0')}Z` : `${iso}Z`;
    },
    fromJson: (v) => {
      const text = String(v);
      const ms = Date.parse(text);
      const fraction = /\.(\d+)/.exec(text)?.[1] ?? '';
      const seconds = BigInt(Math.floor(ms / 1000));
      return micro ? { seconds, nanos: Number(fraction.padEnd(9, '0').slice(0, 9)) } : { seconds };
    },
  };
}
