// Built-in objects as kube-apiserver stores and answers them. Its Go types tag optional fields
// `json:",omitempty"`: a null decodes to nil and an empty map or list to an empty one, and both
// are left out when the object is encoded again, so a ConfigMap created with `data: {}` and
// `labels: {}` reads back with neither. A test written against the embedded server must not see
// a field the real server would drop. Structs stay (`resources: {}`: Go writes a struct field
// whatever it holds), scalars stay (whether a zero is dropped depends on a pointer the schema
// does not show), and custom resources keep what was sent: they are unstructured JSON there too.
//
// Which fields are optional comes from the OpenAPI schemas of the built-in kinds
// (openapi-builtin-schemas.ts): a property outside `required` is `omitempty` in Go, with the
// exceptions below.

import { isJsonObject } from '@kindex/core/internal';
import { builtinSchemas, type OpenApiSchema } from '../machinery/openapi-builtin-schemas.js';
import type { Json } from '../storage/object-store.js';

// Optional in the schema but not `omitempty` in Go: an empty list is written as `[]`.
const KEPT_WHEN_EMPTY = new Set(['io.k8s.api.rbac.v1.ClusterRole.rules', 'io.k8s.api.rbac.v1.Role.rules']);

// metav1.Time and MicroTime are mostly struct fields in Go, not pointers: omitempty never drops a
// struct, and their zero is written as `null` (an Event's firstTimestamp, `creationTimestamp: null`
// in a dry run). The pointers among them drop a null like any optional field.
const NULL_WRITTEN = new Set(['io.k8s.apimachinery.pkg.apis.meta.v1.Time', 'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime']);
const POINTER_TIMES = new Set(['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta.deletionTimestamp']);

const REF_PREFIX = '#/components/schemas/';

/** What a kind needs to find its schema. */
export interface BuiltinKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/**
 * Drops, in place, the nulls and the empty optional maps and lists of a built-in object, as
 * kube-apiserver's Go types do when they encode it. Does nothing for a kind without a schema.
 */
export function omitEmpty(obj: Json, kind: BuiltinKind): void {
  const schemas = builtinSchemas();
  const name = schemas.nameOf(kind);
  if (name === undefined) return;
  visit(obj, name, schemas.schemas);
}

// The schema name a property refers to (`allOf: [{$ref}]` or `$ref`), if it is a reference.
function refOf(schema: OpenApiSchema | undefined): string | undefined {
  if (schema === undefined) return undefined;
  const direct = schema['$ref'];
  const ref = typeof direct === 'string' ? direct : (schema['allOf'] as Array<{ $ref?: unknown }> | undefined)?.[0]?.$ref;
  return typeof ref === 'string' && ref.startsWith(REF_PREFIX) ? ref.slice(REF_PREFIX.length) : undefined;
}

function isMap(schema: OpenApiSchema): boolean {
  return isJsonObject(schema['additionalProperties']);
}

function visit(value: Json, name: string, schemas: Readonly<Record<string, OpenApiSchema>>): void {
  const schema = schemas[name];
  const properties = schema?.['properties'] as Readonly<Record<string, OpenApiSchema>> | undefined;
  if (properties === undefined) return; // an opaque object (RawExtension, FieldsV1): kept as sent
  const required = (schema!['required'] as readonly string[] | undefined) ?? [];
  for (const key of Object.keys(value)) {
    const property = properties[key];
    if (property === undefined) continue;
    const field = value[key];
    const optional = !required.includes(key);
    if (field === null && optional && (!NULL_WRITTEN.has(refOf(property) ?? '') || POINTER_TIMES.has(`${name}.${key}`))) {
      delete value[key];
      continue;
    }
    const empty = Array.isArray(field) ? field.length === 0 : isJsonObject(field) && isMap(property) && Object.keys(field).length === 0;
    if (empty && optional && !KEPT_WHEN_EMPTY.has(`${name}.${key}`)) {
      delete value[key];
      continue;
    }
    visitField(field, property, schemas);
  }
}

function visitField(field: unknown, property: OpenApiSchema, schemas: Readonly<Record<string, OpenApiSchema>>): void {
  const ref = refOf(property);
  if (ref !== undefined) {
    if (isJsonObject(field)) visit(field, ref, schemas);
    return;
  }
  if (Array.isArray(field)) {
    const items = property['items'] as OpenApiSchema | undefined;
    const itemRef = refOf(items);
    if (itemRef !== undefined) for (const item of field) if (isJsonObject(item)) visit(item, itemRef, schemas);
    return;
  }
  if (isJsonObject(field) && isMap(property)) {
    const valueRef = refOf(property['additionalProperties'] as OpenApiSchema);
    if (valueRef !== undefined) for (const v of Object.values(field)) if (isJsonObject(v)) visit(v, valueRef, schemas);
  }
}
