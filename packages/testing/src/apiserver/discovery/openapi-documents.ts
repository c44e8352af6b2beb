// The OpenAPI documents: /openapi/v3 (an index of group versions, each with a serverRelativeURL
// whose hash query names its current content), /openapi/v3/api/v1 and /openapi/v3/apis/<g>/<v>
// (paths of the served resources and every schema they reach), and /openapi/v2 (one Swagger 2.0
// document for everything). Built-in kinds' schemas come from openapi-builtin-schemas.ts, custom
// kinds' from their CRDs (crd-openapi.ts). Documents are built on the first request after the
// served kinds change (the registry's revision), never at start.

import { createHash } from 'node:crypto';
import type http from 'node:http';
import { crdModelName, crdSchemas } from '../apiextensions/crd-openapi.js';
import { builtinSchemas, REQUIRED_SCHEMAS, type OpenApiSchema } from '../machinery/openapi-builtin-schemas.js';
import { resourcePaths } from './openapi-paths.js';
import { swaggerV2 } from './openapi-v2.js';
import { swaggerV2Protobuf } from './openapi-v2-protobuf.js';
import type { ResourceRegistry } from '../storage/resource-registry.js';
import { servedGroups, servedResources, type GroupVersionKind } from '../machinery/served-resources.js';
import { ApiStatusError } from '../storage/status-error.js';

const REF = '#/components/schemas/';

/** One group version's v3 document: its JSON and the hash its serverRelativeURL carries. */
interface GroupVersionDocument {
  readonly doc: OpenApiSchema;
  readonly text: string;
  readonly hash: string;
}

interface Built {
  readonly revision: number;
  /** By index key: `api/v1`, `apis/<group>/<version>`. */
  readonly v3: ReadonlyMap<string, GroupVersionDocument>;
  v2?: OpenApiSchema;
  v2Text?: string;
  v2Protobuf?: Buffer;
}

// The schemas a set of roots reaches through $ref.
function closure(roots: Iterable<string>, schemas: Readonly<Record<string, OpenApiSchema>>): Record<string, OpenApiSchema> {
  const out: Record<string, OpenApiSchema> = {};
  const visit = (name: string): void => {
    if (out[name] !== undefined) return;
    const schema = schemas[name];
    if (schema === undefined) return;
    out[name] = schema;
    JSON.stringify(schema, (key, value: unknown) => {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(REF)) visit(value.slice(REF.length));
      return value;
    });
  };
  for (const name of roots) visit(name);
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** Serves the /openapi tree of one embedded server. */
export class OpenApiDocuments {
  readonly #registry: ResourceRegistry;
  #built: Built | undefined;

  constructor(registry: ResourceRegistry) {
    this.#registry = registry;
  }

  /** Answers a GET under /openapi. */
  serve(url: URL, accept: string | undefined, res: http.ServerResponse): void {
    const path = url.pathname.replace(/\/$/, '');
    // kube-openapi answers the v3 index whatever the Accept, and the documents in JSON or
    // protobuf; the embedded server has protobuf for v2 alone, which client-go asks for in
    // protobuf only (discovery_client.go OpenAPISchema).
    const media = negotiate(accept, path === '/openapi/v2' ? [JSON_TYPE, V2_PROTOBUF] : [JSON_TYPE]);
    if (path !== '/openapi/v3' && media === undefined) {
      const accepted = path === '/openapi/v2' ? `${JSON_TYPE}, ${V2_PROTOBUF}` : JSON_TYPE;
      throw new ApiStatusError(406, 'NotAcceptable', `only the following media types are accepted: ${accepted}`);
    }
    const built = this.#build();
    if (path === '/openapi/v2') {
      const v2 = (built.v2 ??= swaggerV2(this.#mergedV3(built)));
      if (media === V2_PROTOBUF) {
        built.v2Protobuf ??= swaggerV2Protobuf(v2);
        return send(res, 200, built.v2Protobuf, 'no-cache, private', V2_PROTOBUF_CONTENT_TYPE);
      }
      return send(res, 200, (built.v2Text ??= JSON.stringify(v2)));
    }
    if (path === '/openapi/v3') {
      const paths = Object.fromEntries(
        [...built.v3].map(([key, gv]) => [key, { serverRelativeURL: `/openapi/v3/${key}?hash=${gv.hash}` }]),
      );
      return send(res, 200, JSON.stringify({ paths }));
    }
    const gv = path.startsWith('/openapi/v3/') ? built.v3.get(path.slice('/openapi/v3/'.length)) : undefined;
    if (gv === undefined) throw new ApiStatusError(404, 'NotFound', 'the server could not find the requested resource');
    const hash = url.searchParams.get('hash');
    // An outdated hash is redirected to the current document, as kube-openapi's handler3 does.
    if (hash !== null && hash !== gv.hash) {
      res.writeHead(301, { Location: `${url.pathname}?hash=${gv.hash}`, 'Content-Length': 0 });
      res.end();
      return;
    }
    send(res, 200, gv.text, hash === null ? 'no-cache, private' : 'public, immutable');
  }

  #build(): Built {
    const revision = this.#registry.revision;
    if (this.#built?.revision === revision) return this.#built;
    const builtin = builtinSchemas();
    const custom: Record<string, OpenApiSchema> = {};
    const nameOf = (gvk: GroupVersionKind): string => builtin.nameOf(gvk) ?? crdModelName(gvk.group, gvk.version, gvk.kind);
    const resources = servedResources(this.#registry);
    for (const r of resources) if (r.type?.custom === true) Object.assign(custom, crdSchemas(r.type, r.version, builtin, 'v3'));
    const schemas = { ...builtin.schemas, ...custom };
    const v3 = new Map<string, GroupVersionDocument>();
    for (const g of servedGroups(this.#registry)) {
      for (const version of g.versions) {
        const paths: Record<string, OpenApiSchema> = {};
        const roots = new Set(REQUIRED_SCHEMAS);
        for (const r of resources.filter((x) => x.group === g.group && x.version === version)) {
          Object.assign(paths, resourcePaths(r, nameOf));
          roots.add(nameOf(r));
          if (r.listKind !== undefined) roots.add(nameOf({ ...r, kind: r.listKind }));
          for (const s of r.subresources) roots.add(nameOf(s.responseKind));
        }
        const doc: OpenApiSchema = {
          openapi: '3.0.0',
          info: { title: 'Kubernetes', version: '1.36' },
          paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => (a < b ? -1 : 1))),
          components: {
            schemas: closure(roots, schemas),
            securitySchemes: {
              BearerToken: { type: 'apiKey', description: 'Bearer Token authentication', name: 'authorization', in: 'header' },
            },
          },
        };
        const text = JSON.stringify(doc);
        const hash = createHash('sha512').update(text).digest('hex').toUpperCase();
        v3.set(g.group === '' ? `api/${version}` : `apis/${g.group}/${version}`, { doc, text, hash });
      }
    }
    this.#built = { revision, v3 };
    return this.#built;
  }

  // Every group version's paths and schemas in one v3 document, for the v2 conversion; custom
  // kinds take their structural v2 form.
  #mergedV3(built: Built): OpenApiSchema {
    const paths: OpenApiSchema = {};
    const schemas: OpenApiSchema = {};
    for (const gv of built.v3.values()) {
      Object.assign(paths, gv.doc['paths']);
      Object.assign(schemas, (gv.doc['components'] as { schemas: OpenApiSchema }).schemas);
    }
    for (const r of servedResources(this.#registry)) {
      if (r.type?.custom === true) Object.assign(schemas, crdSchemas(r.type, r.version, builtinSchemas(), 'v2'));
    }
    return { paths, components: { schemas } };
  }
}

const JSON_TYPE = 'application/json';
const V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
// What kube-apiserver answers with (a dot where the Accept has an at sign).
const V2_PROTOBUF_CONTENT_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

// The first media type of the Accept header that one of `offers` satisfies (JSON for wildcards
// and an absent header), or undefined.
function negotiate(accept: string | undefined, offers: readonly string[]): string | undefined {
  if (accept === undefined || accept.trim() === '') return JSON_TYPE;
  for (const m of accept.split(',')) {
    const type = m.split(';')[0]!.trim();
    if (type === '*/*' || type === 'application/*') return JSON_TYPE;
    if (offers.includes(type)) return type;
  }
  return undefined;
}

function send(
  res: http.ServerResponse,
  status: number,
  body: string | Buffer,
  cacheControl = 'no-cache, private',
  contentType = JSON_TYPE,
): void {
  res.writeHead(status, { 'Content-Type': contentType, 'Cache-Control': cacheControl, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}
