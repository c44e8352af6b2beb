// A custom resource's OpenAPI schemas, built from its CRD's openAPIV3Schema as kube-apiserver's
// apiextensions builder does (k8s.io/apiextensions-apiserver pkg/controller/openapi/builder): the
// kind's schema gains apiVersion, kind, a reference to ObjectMeta and its
// x-kubernetes-group-version-kind; the list kind is synthesised; names are the reversed group, the
// version and the kind (`com.example.stable.v1.CronTab`). OpenAPI v2 gets the structural v2 form
// (openapi/v2/conversion.go), which drops what kubectl's v2 validation cannot read.

import { META_V1, type BuiltinSchemas, type OpenApiSchema } from '../machinery/openapi-builtin-schemas.js';
import type { ResourceType } from '../storage/resource-registry.js';

/** The OpenAPI model name of a custom kind: the group reversed, then version and kind. */
export function crdModelName(group: string, version: string, kind: string): string {
  return `${group.split('.').reverse().join('.')}.${version}.${kind}`;
}

const V3_REF = '#/components/schemas/';

function ref(name: string, description: string): OpenApiSchema {
  // A described reference is wrapped in allOf in v3 (openapi-v2.ts unwraps it).
  return { description, allOf: [{ $ref: `${V3_REF}${name}` }] };
}

// The apiextensions builder's texts (PartialObjectMetadata's and TypeMeta's swagger docs).
const DOCS = 'https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md';
const METADATA = `Standard object's metadata. More info: ${DOCS}#metadata`;
const LIST_METADATA = `Standard list metadata. More info: ${DOCS}#types-kinds`;
const EMBEDDED_API_VERSION = `apiVersion defines the versioned schema of this representation of an object. More info: ${DOCS}#resources`;
const EMBEDDED_KIND = `kind is a string value representing the type of this object. In CamelCase. More info: ${DOCS}#types-kinds`;

// TypeMeta's apiVersion and kind, taken from a built-in kind so they match kube-apiserver's.
function typeMeta(builtin: BuiltinSchemas): { apiVersion: unknown; kind: unknown } {
  const lease = builtin.schemas['io.k8s.api.coordination.v1.Lease']!['properties'] as Record<string, OpenApiSchema>;
  return { apiVersion: lease['apiVersion'], kind: lease['kind'] };
}

// Embedded resources (x-kubernetes-embedded-resource) carry their own apiVersion, kind and
// metadata; not in v2 where they preserve unknown fields (kubectl would refuse the others).
function withEmbeddedMeta(schema: OpenApiSchema, form: 'v2' | 'v3'): OpenApiSchema {
  const out: OpenApiSchema = { ...schema };
  const properties = schema['properties'] as Record<string, OpenApiSchema> | undefined;
  if (properties !== undefined) {
    out['properties'] = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, withEmbeddedMeta(v, form)]));
  }
  for (const key of ['items', 'additionalProperties'] as const) {
    const child = schema[key];
    if (child !== null && typeof child === 'object') out[key] = withEmbeddedMeta(child as OpenApiSchema, form);
  }
  if (form === 'v2' && schema['x-kubernetes-preserve-unknown-fields'] === true) return out;
  if (schema['x-kubernetes-embedded-resource'] === true) {
    out['properties'] = {
      ...((out['properties'] ?? {}) as OpenApiSchema),
      apiVersion: { description: EMBEDDED_API_VERSION, type: 'string' },
      kind: { description: EMBEDDED_KIND, type: 'string' },
      metadata: ref(`${META_V1}.ObjectMeta`, METADATA),
    };
    const required = (schema['required'] ?? []) as string[];
    out['required'] = [...required, ...['kind', 'apiVersion'].filter((f) => !required.includes(f))];
  }
  return out;
}

/**
 * The schemas (kind and list kind, by model name) of one served version of a custom resource, in
 * v3 form, or in the structural v2 form that /openapi/v2 converts (references still in v3 form).
 */
export function crdSchemas(t: ResourceType, version: string, builtin: BuiltinSchemas, form: 'v2' | 'v3'): Record<string, OpenApiSchema> {
  const meta = typeMeta(builtin);
  const name = crdModelName(t.group, version, t.kind);
  const source = t.schemas?.[version];
  const gvk = (kind: string): OpenApiSchema => ({ 'x-kubernetes-group-version-kind': [{ group: t.group, kind, version }] });
  // Without a schema kube-apiserver publishes a bare object, so clients do not assume no fields
  // are allowed; v2 does the same for a kind preserving unknown fields, which kubectl's v2
  // validation would otherwise refuse.
  const bare = source === undefined || (form === 'v2' && source['x-kubernetes-preserve-unknown-fields'] === true);
  const kindSchema: OpenApiSchema = bare
    ? { type: 'object', ...gvk(t.kind) }
    : (() => {
        const s = withEmbeddedMeta(form === 'v2' ? structuralV2(source) : structuredClone(source), form);
        s['properties'] = {
          ...((s['properties'] ?? {}) as OpenApiSchema),
          apiVersion: meta.apiVersion,
          kind: meta.kind,
          metadata: ref(`${META_V1}.ObjectMeta`, METADATA),
        };
        return { ...s, ...gvk(t.kind) };
      })();
  const listSchema: OpenApiSchema = {
    description: `${t.listKind} is a list of ${t.kind}`,
    type: 'object',
    required: ['items'],
    properties: {
      apiVersion: meta.apiVersion,
      items: {
        description: `List of ${t.resource}. More info: ${DOCS}`,
        type: 'array',
        items: { $ref: `${V3_REF}${name}` },
      },
      kind: meta.kind,
      metadata: ref(`${META_V1}.ListMeta`, LIST_METADATA),
    },
    ...gvk(t.listKind),
  };
  return { [name]: kindSchema, [crdModelName(t.group, version, t.listKind)]: listSchema };
}

// openapi/v2/conversion.go: no value validations (allOf, oneOf, anyOf, not), nullable fields and
// fields preserving unknown fields lose their type and children, arrays without items their type.
function structuralV2(schema: OpenApiSchema): OpenApiSchema {
  const out: OpenApiSchema = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === 'allOf' || k === 'oneOf' || k === 'anyOf' || k === 'not' || k === 'nullable') continue;
    if (k === 'properties') {
      out[k] = Object.fromEntries(Object.entries(v as Record<string, OpenApiSchema>).map(([p, s]) => [p, structuralV2(s)]));
    } else if ((k === 'items' || k === 'additionalProperties') && v !== null && typeof v === 'object') {
      out[k] = structuralV2(v as OpenApiSchema);
    } else out[k] = v;
  }
  if (schema['nullable'] === true || schema['x-kubernetes-preserve-unknown-fields'] === true) {
    delete out['type'];
    delete out['items'];
    delete out['properties'];
  }
  if (out['type'] === 'array' && out['items'] === undefined) delete out['type'];
  return out;
}
