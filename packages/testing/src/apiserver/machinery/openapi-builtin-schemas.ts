// The OpenAPI v3 schemas of the built-in kinds, from the artefact that
// scripts/generate-openapi-schemas.ts cuts out of Kubernetes' published spec. About a megabyte of
// JSON, so it is read on the first /openapi request, never at start: the server starts in a few
// milliseconds and most test runs never ask for OpenAPI.

import { readFileSync } from 'node:fs';
import type { GroupVersionKind } from './served-resources.js';

/** An OpenAPI schema object, as JSON. */
export type OpenApiSchema = Record<string, unknown>;

/** Where the artefact's schemas come from. */
export const BUILTIN_SCHEMAS_SOURCE = 'k8s.io/kubernetes api/openapi-spec/v3';

/** The prefix of the apimachinery meta/v1 schema names. */
export const META_V1 = 'io.k8s.apimachinery.pkg.apis.meta.v1';

/** Schemas every group version document needs, whatever its kinds (operations and CRDs refer to them). */
export const REQUIRED_SCHEMAS: readonly string[] = [
  `${META_V1}.ObjectMeta`,
  `${META_V1}.ListMeta`,
  `${META_V1}.Status`,
  `${META_V1}.Patch`,
  `${META_V1}.DeleteOptions`,
];

interface Artefact {
  readonly schemas: Readonly<Record<string, OpenApiSchema>>;
}

/** The built-in schemas by name, and the name of each kind's schema. */
export interface BuiltinSchemas {
  readonly schemas: Readonly<Record<string, OpenApiSchema>>;
  /** The schema name of a kind, or undefined when the artefact has none. */
  nameOf(gvk: GroupVersionKind): string | undefined;
}

let loaded: BuiltinSchemas | undefined;

/** The built-in schemas, read from the artefact on the first call. */
export function builtinSchemas(): BuiltinSchemas {
  if (loaded !== undefined) return loaded;
  const artefact = JSON.parse(readFileSync(new URL('../../../openapi/kubernetes-schemas.json', import.meta.url), 'utf8')) as Artefact;
  const byKind = new Map<string, string>();
  for (const [name, schema] of Object.entries(artefact.schemas)) {
    for (const gvk of (schema['x-kubernetes-group-version-kind'] ?? []) as GroupVersionKind[]) {
      byKind.set(`${gvk.group}/${gvk.version}/${gvk.kind}`, name);
    }
  }
  loaded = { schemas: artefact.schemas, nameOf: (gvk) => byKind.get(`${gvk.group}/${gvk.version}/${gvk.kind}`) };
  return loaded;
}
