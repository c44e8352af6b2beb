// Generates openapi/kubernetes-schemas.json: the OpenAPI v3 schemas of the built-in kinds the
// embedded server serves, and every schema they reference, taken from Kubernetes' own published
// spec (api/openapi-spec/v3 of k8s.io/kubernetes, the documents kube-apiserver serves). No npm
// package ships these specs for current Kubernetes versions, so the artefact is generated here and
// committed; rerun this after changing the served kinds or the Kubernetes version:
//
//   npx tsx packages/testing/scripts/generate-openapi-schemas.ts [path to api/openapi-spec/v3]
//
// Defaults to the Go module cache's k8s.io/kubernetes@v1.36.3.

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { BUILTIN_TYPES } from '../src/apiserver/storage/resource-registry.js';
import { CREATE_ONLY_RESOURCES } from '../src/apiserver/machinery/served-resources.js';
import { BUILTIN_SCHEMAS_SOURCE, REQUIRED_SCHEMAS } from '../src/apiserver/machinery/openapi-builtin-schemas.js';

type Schema = Record<string, unknown>;
const KUBERNETES = 'v1.36.3';
const dir = process.argv[2] ?? join(homedir(), 'go/pkg/mod/k8s.io', `kubernetes@${KUBERNETES}`, 'api/openapi-spec/v3');

// Every schema of every group version document (they agree where they overlap).
const all = new Map<string, Schema>();
for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
  const doc = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { components?: { schemas?: Record<string, Schema> } };
  for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) all.set(name, schema);
}

function byKind(group: string, version: string, kind: string): string {
  for (const [name, schema] of all) {
    const gvks = (schema['x-kubernetes-group-version-kind'] ?? []) as { group: string; version: string; kind: string }[];
    if (gvks.some((g) => g.group === group && g.version === version && g.kind === kind)) return name;
  }
  throw new Error(`no schema for ${group}/${version} ${kind} in ${dir}: is the served kind in this Kubernetes version?`);
}

const roots = new Set<string>(REQUIRED_SCHEMAS);
for (const t of BUILTIN_TYPES) {
  for (const v of t.versions) {
    roots.add(byKind(t.group, v, t.kind));
    roots.add(byKind(t.group, v, t.listKind));
  }
}
for (const r of CREATE_ONLY_RESOURCES) roots.add(byKind(r.group, r.version, r.kind));
roots.add(byKind('autoscaling', 'v1', 'Scale'));
roots.add(byKind('authentication.k8s.io', 'v1', 'TokenRequest'));

// The closure over $ref.
const keep = new Map<string, Schema>();
const visit = (name: string): void => {
  if (keep.has(name)) return;
  const schema = all.get(name);
  if (schema === undefined) throw new Error(`schema ${name} is referenced but not defined in ${dir}`);
  keep.set(name, schema);
  JSON.stringify(schema, (key, value: unknown) => {
    if (key === '$ref' && typeof value === 'string') visit(value.replace('#/components/schemas/', ''));
    return value;
  });
};
for (const name of roots) visit(name);

const sorted = Object.fromEntries([...keep].sort(([a], [b]) => (a < b ? -1 : 1)));
const out = new URL('../openapi/kubernetes-schemas.json', import.meta.url);
writeFileSync(out, JSON.stringify({ source: `${BUILTIN_SCHEMAS_SOURCE}`, kubernetes: KUBERNETES, schemas: sorted }) + '\n');
console.log(`wrote ${keep.size} schemas to ${out.pathname}`);
