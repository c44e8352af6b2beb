// /openapi/v2: the Swagger 2.0 form of the served paths and schemas, converted from their v3 form
// as kube-openapi publishes both from one source: references move from #/components/schemas to
// #/definitions, a described reference loses its allOf wrapper (v2 allows siblings of $ref),
// parameters carry their type directly, request bodies become `in: body` parameters, and
// responses name one schema.

import type { OpenApiSchema } from '../machinery/openapi-builtin-schemas.js';

type Json = Record<string, unknown>;

const V3_REF = '#/components/schemas/';
const V2_REF = '#/definitions/';
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function schemaV2(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(schemaV2);
  if (value === null || typeof value !== 'object') return value;
  const s = value as Json;
  const allOf = s['allOf'] as Json[] | undefined;
  if (allOf?.length === 1 && typeof allOf[0]!['$ref'] === 'string') {
    // A described reference: v2 keeps the description beside $ref, and no default.
    const { allOf: _, default: __, ...rest } = s;
    return schemaV2({ ...rest, $ref: allOf[0]!['$ref'] });
  }
  const out: Json = {};
  for (const [k, v] of Object.entries(s)) {
    // v2 has no nullable, anyOf or oneOf.
    if (k === 'nullable' || k === 'anyOf' || k === 'oneOf') continue;
    out[k] = k === '$ref' && typeof v === 'string' ? v.replace(V3_REF, V2_REF) : schemaV2(v);
  }
  return out;
}

function parameterV2(p: Json): Json {
  const { schema, ...rest } = p;
  return { ...rest, ...(schemaV2(schema) as Json) };
}

function operationV2(op: Json): Json {
  const { requestBody, responses, parameters, ...rest } = op;
  const params = ((parameters ?? []) as Json[]).map(parameterV2);
  const body = requestBody as { content: Record<string, { schema: Json }> } | undefined;
  const consumes = body === undefined ? ['*/*'] : Object.keys(body.content);
  if (body !== undefined) {
    params.unshift({ name: 'body', in: 'body', required: true, schema: schemaV2(Object.values(body.content)[0]!.schema) });
  }
  const responsesV2 = Object.fromEntries(
    Object.entries(responses as Record<string, { description: string; content?: Record<string, { schema: Json }> }>).map(([code, r]) => [
      code,
      r.content === undefined
        ? { description: r.description }
        : { description: r.description, schema: schemaV2(r.content['application/json']!.schema) },
    ]),
  );
  return {
    ...rest,
    consumes,
    produces: ['application/json', 'application/yaml'],
    schemes: ['https'],
    parameters: params,
    responses: responsesV2,
  };
}

/** The Swagger 2.0 document of a v3 document's paths and component schemas. */
export function swaggerV2(v3: OpenApiSchema): OpenApiSchema {
  const paths = Object.fromEntries(
    Object.entries(v3['paths'] as Record<string, Json>).map(([path, item]) => [
      path,
      Object.fromEntries(
        Object.entries(item).map(([k, v]) =>
          k === 'parameters' ? [k, (v as Json[]).map(parameterV2)] : METHODS.includes(k) ? [k, operationV2(v as Json)] : [k, v],
        ),
      ),
    ]),
  );
  const schemas = (v3['components'] as { schemas: Record<string, Json> }).schemas;
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: '1.36' },
    paths,
    definitions: Object.fromEntries(Object.entries(schemas).map(([name, s]) => [name, schemaV2(s)])),
    securityDefinitions: {
      BearerToken: { type: 'apiKey', description: 'Bearer Token authentication', name: 'authorization', in: 'header' },
    },
    security: [{ BearerToken: [] }],
  };
}
