// The OpenAPI v3 path items of one served resource, laid out as kube-apiserver's installer (and the
// apiextensions builder for custom resources) lays them out: the collection, the object, its
// subresources, and for namespaced kinds the list across namespaces. Each operation carries
// x-kubernetes-action and x-kubernetes-group-version-kind; kubectl finds a kind's PATCH operation
// by the latter and, when it lists the fieldValidation parameter, lets the server validate fields
// (cli-runtime's query_param_verifier_v3.go) instead of validating on the client.

import { META_V1, type OpenApiSchema } from '../machinery/openapi-builtin-schemas.js';
import type { GroupVersionKind, ServedResource } from '../machinery/served-resources.js';

type Json = Record<string, unknown>;

/** The model names of the kinds a resource's operations read and write. */
export type SchemaNameOf = (gvk: GroupVersionKind) => string;

const REF = '#/components/schemas/';

// The query parameters operations take, with kube-apiserver's descriptions (shortened).
const QUERY_PARAMETERS: Readonly<Record<string, readonly ['string' | 'boolean' | 'integer', string]>> = {
  pretty: ['string', "If 'true', then the output is pretty printed."],
  dryRun: [
    'string',
    'When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed',
  ],
  fieldManager: ['string', 'fieldManager is a name associated with the actor or entity that is making these changes.'],
  fieldValidation: [
    'string',
    'fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: Ignore, Warn (the default), Strict.',
  ],
  force: ['boolean', 'Force is going to "force" Apply requests.'],
  allowWatchBookmarks: ['boolean', 'allowWatchBookmarks requests watch events with type "BOOKMARK".'],
  continue: ['string', 'The continue option should be set when retrieving more results from the server.'],
  fieldSelector: ['string', 'A selector to restrict the list of returned objects by their fields. Defaults to everything.'],
  labelSelector: ['string', 'A selector to restrict the list of returned objects by their labels. Defaults to everything.'],
  limit: ['integer', 'limit is a maximum number of responses to return for a list call.'],
  resourceVersion: ['string', 'resourceVersion sets a constraint on what resource versions a request may be served from.'],
  resourceVersionMatch: ['string', 'resourceVersionMatch determines how resourceVersion is applied to list calls.'],
  sendInitialEvents: ['boolean', 'sendInitialEvents=true may be set together with watch=true.'],
  timeoutSeconds: ['integer', 'Timeout for the list/watch call.'],
  watch: ['boolean', 'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.'],
  gracePeriodSeconds: ['integer', 'The duration in seconds before the object should be deleted.'],
  propagationPolicy: ['string', "Whether and how garbage collection will be performed: 'Orphan', 'Background' or 'Foreground'."],
};

function queries(...names: string[]): Json[] {
  return names.map((name) => {
    const [type, description] = QUERY_PARAMETERS[name]!;
    return { name, in: 'query', description, schema: { type, uniqueItems: true } };
  });
}

const PRETTY = queries('pretty')[0]!;
const WRITE_PARAMETERS = queries('dryRun', 'fieldManager', 'fieldValidation');
const LIST_PARAMETERS = queries(
  'allowWatchBookmarks',
  'continue',
  'fieldSelector',
  'labelSelector',
  'limit',
  'resourceVersion',
  'resourceVersionMatch',
  'sendInitialEvents',
  'timeoutSeconds',
  'watch',
);
const DELETE_PARAMETERS = queries('dryRun', 'gracePeriodSeconds', 'propagationPolicy');
// Custom resources take no strategic merge patch.
const CUSTOM_PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];
const PATCH_TYPES = [...CUSTOM_PATCH_TYPES, 'application/strategic-merge-patch+json'];

function content(types: readonly string[], name: string): Json {
  return Object.fromEntries(types.map((t) => [t, { schema: { $ref: `${REF}${name}` } }]));
}

const JSON_TYPES = ['application/json', 'application/yaml'];

// One operation: `action` is x-kubernetes-action, `verb` the word its operationId starts with.
interface OperationSpec {
  readonly action: 'get' | 'list' | 'post' | 'put' | 'patch' | 'delete' | 'deletecollection';
  readonly verb: string;
  readonly suffix: string;
  readonly responseKind: GroupVersionKind;
  readonly request?: string;
  readonly parameters: readonly Json[];
  readonly description: string;
}

/** The operationId word of a group: the group without `.k8s.io`, each dotted part capitalised ("Core" for the core group). */
export function groupWord(group: string): string {
  if (group === '') return 'Core';
  return group
    .replace(/\.k8s\.io$/, '')
    .split(/[.-]/)
    .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
    .join('');
}

function operation(r: ServedResource, nameOf: SchemaNameOf, tag: string, op: OperationSpec): Json {
  const response = nameOf(op.responseKind);
  const created = op.action === 'post';
  const responses: Json = {
    '200': { description: 'OK', content: content(JSON_TYPES, response) },
    ...(created || op.action === 'put' || op.action === 'patch'
      ? { '201': { description: 'Created', content: content(JSON_TYPES, response) } }
      : {}),
    ...(created || op.action === 'delete' ? { '202': { description: 'Accepted', content: content(JSON_TYPES, response) } } : {}),
    '401': { description: 'Unauthorized' },
  };
  const version = r.version.charAt(0).toUpperCase() + r.version.slice(1);
  return {
    tags: [tag],
    description: op.description,
    operationId: `${op.verb}${groupWord(r.group)}${version}${op.suffix}`,
    parameters: op.parameters,
    ...(op.request === undefined
      ? {}
      : {
          requestBody: {
            content: content(op.action !== 'patch' ? JSON_TYPES : r.type?.custom === true ? CUSTOM_PATCH_TYPES : PATCH_TYPES, op.request),
            required: true,
          },
        }),
    responses,
    'x-kubernetes-action': op.action,
    'x-kubernetes-group-version-kind': op.responseKind,
  };
}

function pathParameters(names: readonly ('name' | 'namespace')[], kind: string): Json[] {
  return [
    ...names.map((n) => ({
      name: n,
      in: 'path',
      required: true,
      description: n === 'name' ? `name of the ${kind}` : 'object name and auth scope, such as for teams and projects',
      schema: { type: 'string', uniqueItems: true },
    })),
    PRETTY,
  ];
}

/** The v3 path items (by path) of one served resource in its version. */
export function resourcePaths(r: ServedResource, nameOf: SchemaNameOf): Record<string, OpenApiSchema> {
  const prefix = r.group === '' ? `/api/${r.version}` : `/apis/${r.group}/${r.version}`;
  const word = groupWord(r.group);
  const tag = `${word.charAt(0).toLowerCase()}${word.slice(1)}_${r.version}`;
  const kind: GroupVersionKind = { group: r.group, version: r.version, kind: r.kind };
  const ns = r.namespaced ? 'Namespaced' : '';
  const base = r.namespaced ? `${prefix}/namespaces/{namespace}/${r.resource}` : `${prefix}/${r.resource}`;
  const scope: ('name' | 'namespace')[] = r.namespaced ? ['namespace'] : [];
  const op = (spec: OperationSpec): Json => operation(r, nameOf, tag, spec);
  const paths: Record<string, OpenApiSchema> = {};
  const write = (verb: string, action: 'post' | 'put' | 'patch', suffix: string, responseKind: GroupVersionKind, what: string): Json =>
    op({
      action,
      verb,
      suffix,
      responseKind,
      request: action === 'patch' ? `${META_V1}.Patch` : nameOf(responseKind),
      parameters: action === 'patch' ? [...WRITE_PARAMETERS, ...queries('force')] : WRITE_PARAMETERS,
      description: `${verb === 'patch' ? 'partially update' : verb} ${what}`,
    });
  if (r.listKind === undefined) {
    // Create-only (reviews): one POST on the collection.
    paths[base] = { parameters: pathParameters(scope, r.kind), post: write('create', 'post', `${ns}${r.kind}`, kind, `a ${r.kind}`) };
    return paths;
  }
  const list: GroupVersionKind = { ...kind, kind: r.listKind };
  const status: GroupVersionKind = { group: '', version: 'v1', kind: 'Status' };
  if (r.namespaced) {
    paths[`${prefix}/${r.resource}`] = {
      parameters: [PRETTY],
      get: op({
        action: 'list',
        verb: 'list',
        suffix: `${r.kind}ForAllNamespaces`,
        responseKind: list,
        parameters: LIST_PARAMETERS,
        description: `list or watch objects of kind ${r.kind}`,
      }),
    };
  }
  paths[base] = {
    parameters: pathParameters(scope, r.kind),
    get: op({
      action: 'list',
      verb: 'list',
      suffix: `${ns}${r.kind}`,
      responseKind: list,
      parameters: LIST_PARAMETERS,
      description: `list or watch objects of kind ${r.kind}`,
    }),
    post: write('create', 'post', `${ns}${r.kind}`, kind, `a ${r.kind}`),
    delete: op({
      action: 'deletecollection',
      verb: 'deleteCollection',
      suffix: `${ns}${r.kind}`,
      responseKind: status,
      parameters: [...LIST_PARAMETERS, ...DELETE_PARAMETERS],
      description: `delete collection of ${r.kind}`,
    }),
  };
  // Namespaces have no deletecollection (served-resources.ts).
  if (!r.verbs.includes('deletecollection')) delete paths[base]['delete'];
  paths[`${base}/{name}`] = {
    parameters: pathParameters(['name', ...scope], r.kind),
    get: op({
      action: 'get',
      verb: 'read',
      suffix: `${ns}${r.kind}`,
      responseKind: kind,
      parameters: [],
      description: `read the specified ${r.kind}`,
    }),
    put: write('replace', 'put', `${ns}${r.kind}`, kind, `the specified ${r.kind}`),
    patch: write('patch', 'patch', `${ns}${r.kind}`, kind, `the specified ${r.kind}`),
    delete: op({
      action: 'delete',
      verb: 'delete',
      suffix: `${ns}${r.kind}`,
      responseKind: status,
      request: `${META_V1}.DeleteOptions`,
      parameters: DELETE_PARAMETERS,
      description: `delete a ${r.kind}`,
    }),
  };
  for (const s of r.subresources) {
    const word = s.name.charAt(0).toUpperCase() + s.name.slice(1);
    const suffix = `${ns}${r.kind}${word}`;
    const what = `${s.name} of the specified ${r.kind}`;
    paths[`${base}/{name}/${s.name}`] = s.verbs.includes('get')
      ? {
          parameters: pathParameters(['name', ...scope], r.kind),
          get: op({ action: 'get', verb: 'read', suffix, responseKind: s.responseKind, parameters: [], description: `read ${what}` }),
          put: write('replace', 'put', suffix, s.responseKind, what),
          patch: write('patch', 'patch', suffix, s.responseKind, what),
        }
      : { parameters: pathParameters(['name', ...scope], r.kind), post: write('create', 'post', suffix, s.responseKind, what) };
  }
  return paths;
}
