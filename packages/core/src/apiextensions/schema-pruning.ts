// Pruning of custom objects, as kube-apiserver's decoder applies it
// (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning): fields the structural schema does
// not declare are dropped, unless the node has x-kubernetes-preserve-unknown-fields; so is a null
// where the schema is neither nullable nor has a default (PruneNonNullableNullsWithoutDefaults).

import { isJsonObject } from '../resource/is-json-object.js';
import type { Schema } from './schema-field-error.js';

/** Fields of the root that the API server owns, whatever the schema says. */
export const ROOT_KEEP = new Set(['apiVersion', 'kind', 'metadata']);

/**
 * Removes, in place, the fields of a custom object that its CRD version's structural schema does
 * not declare, as kube-apiserver does before it stores the object (it prunes rather than refuses).
 * `apiVersion`, `kind` and `metadata` of the root are kept; a node with
 * `x-kubernetes-preserve-unknown-fields` keeps its unknown fields. A null field whose schema is
 * neither nullable nor has a default is dropped too.
 *
 * @example
 * ```ts
 * import { pruneCustomObject } from '@kindex/core/internal';
 *
 * const schema = { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } };
 * const widget = { apiVersion: 'example.com/v1', kind: 'Widget', spec: { size: 2, junk: true } };
 * pruneCustomObject(schema, widget); // widget.spec is { size: 2 }
 * ```
 */
export function pruneCustomObject(schema: object, object: Record<string, unknown>): void {
  pruneNode(object, schema as Schema, true);
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
    if (sub !== undefined && value[key] === null && sub['nullable'] !== true && sub['default'] === undefined) delete value[key];
    else if (sub !== undefined) pruneNode(value[key], sub);
    else if (!preserve && additional !== true) delete value[key];
  }
}
