// Structural defaulting of custom objects, as kube-apiserver's decoder applies it on create,
// update and every read from storage (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/
// defaulting/algorithm.go): a property that is absent, or null where the schema is not nullable,
// gets a deep copy of its default; then every present value is defaulted with its own schema,
// so the properties of a defaulted object get their defaults too. An array item or map value
// that is null gets the default of the items/additionalProperties schema.

import { isJsonObject } from '../resource/is-json-object.js';
import type { Schema } from './schema-field-error.js';

function schemaOf(v: unknown): Schema | undefined {
  return isJsonObject(v) ? v : undefined;
}

// kube-apiserver's isNonNullableNull: a null that its schema's default replaces.
function replacesNull(value: unknown, schema: Schema | undefined): schema is Schema {
  return value === null && schema !== undefined && schema['nullable'] !== true && schema['default'] !== undefined;
}

/**
 * Fills in, in place, the defaults a CRD version's structural schema declares, as kube-apiserver
 * does on create, update and every read: a missing property (or a null one where the schema is
 * not nullable) gets a copy of its `default`, then the properties of every present value get
 * theirs.
 *
 * @example
 * ```ts
 * import { defaultCustomObject } from '@kindex/core';
 *
 * const schema = { type: 'object', properties: { spec: { type: 'object', properties: { replicas: { type: 'integer', default: 1 } } } } };
 * const widget = { spec: {} };
 * defaultCustomObject(schema, widget); // widget.spec is { replicas: 1 }
 * ```
 */
export function defaultCustomObject(schema: object, object: unknown): void {
  defaultNode(object, schema as Schema);
}

function defaultNode(value: unknown, schema: Schema | undefined): void {
  if (schema === undefined) return;
  if (Array.isArray(value)) {
    const items = schemaOf(schema['items']);
    value.forEach((v, i) => {
      if (replacesNull(v, items)) value[i] = structuredClone(items['default']);
      // As in kube-apiserver, the item defaulted from null is not defaulted further.
      defaultNode(v, items);
    });
    return;
  }
  if (!isJsonObject(value)) return;
  const properties = schemaOf(schema['properties']) as Record<string, Schema> | undefined;
  for (const [k, prop] of Object.entries(properties ?? {})) {
    if (!isJsonObject(prop) || prop['default'] === undefined) continue;
    if (value[k] === undefined || replacesNull(value[k], prop)) value[k] = structuredClone(prop['default']);
  }
  const additional = schemaOf(schema['additionalProperties']);
  for (const [k, v] of Object.entries(value)) {
    const prop = properties?.[k];
    if (prop !== undefined) defaultNode(v, schemaOf(prop));
    else if (additional !== undefined) {
      if (replacesNull(v, additional)) value[k] = structuredClone(additional['default']);
      defaultNode(v, additional);
    }
  }
}
