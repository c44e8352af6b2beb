// OpenAPI v3 and v2 documents, in the shapes kubectl relies on: the v3 index and its hashed
// serverRelativeURLs (kubectl explain, apply), each kind's PATCH operation naming its
// group-version-kind and the fieldValidation parameter (kubectl apply then lets the server
// validate fields), schemas whose references resolve, and custom resources' schemas built from
// their CRDs, appearing and disappearing with them.

import { expect } from 'chai';
import type { KubeConfig } from '@kubernetes/client-node';
import { eventually } from '../helpers/eventually.js';
import { rawRequest } from '../helpers/raw-request.js';
import { uniqueName } from '../helpers/unique-name.js';
import { useConformanceFixture } from './conformance-fixture.js';
import { createRawCrd, deleteRawCrd } from './raw-crd.js';
import { SERVED_KINDS } from './served-kinds.js';

type Json = Record<string, unknown>;
interface OpenApiV3 {
  openapi: string;
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json> };
}

const WAIT = { timeoutMs: 30_000, intervalMs: 250 };
const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

async function getJson<T>(kubeConfig: KubeConfig, path: string): Promise<T> {
  const response = await rawRequest(kubeConfig, { path, headers: { accept: 'application/json' } });
  expect(response.status, `${path}: ${response.text.slice(0, 300)}`).to.equal(200);
  return JSON.parse(response.text) as T;
}

async function v3Index(kubeConfig: KubeConfig): Promise<Record<string, { serverRelativeURL: string }>> {
  return (await getJson<{ paths: Record<string, { serverRelativeURL: string }> }>(kubeConfig, '/openapi/v3')).paths;
}

async function v3Document(kubeConfig: KubeConfig, key: string): Promise<OpenApiV3> {
  const entry = (await v3Index(kubeConfig))[key];
  expect(entry, `/openapi/v3 lists ${key}`).to.not.equal(undefined);
  return getJson<OpenApiV3>(kubeConfig, entry!.serverRelativeURL);
}

// Every $ref of a document names a schema the document defines.
function expectReferencesResolve(doc: unknown, prefix: string, defined: Record<string, unknown>): void {
  const missing = new Set<string>();
  JSON.stringify(doc, (key, value: unknown) => {
    if (key === '$ref' && typeof value === 'string' && defined[value.slice(prefix.length)] === undefined) missing.add(value);
    return value;
  });
  expect([...missing]).to.deep.equal([]);
}

function patchOperations(doc: OpenApiV3, kind: { group: string; version: string; kind: string }): Json[] {
  return Object.values(doc.paths)
    .map((item) => item['patch'])
    .filter((op): op is Json => op !== undefined && JSON.stringify(op['x-kubernetes-group-version-kind']) !== undefined)
    .filter((op) => {
      const gvk = op['x-kubernetes-group-version-kind'] as { group: string; version: string; kind: string };
      return gvk.group === kind.group && gvk.version === kind.version && gvk.kind === kind.kind;
    });
}

function hasFieldValidation(op: Json): boolean {
  return ((op['parameters'] ?? []) as Json[]).some((p) => p['name'] === 'fieldValidation' && p['in'] === 'query');
}

describe('conformance: OpenAPI', () => {
  const fixture = useConformanceFixture();

  it('/openapi/v3 lists each served group version with a serverRelativeURL carrying a hash', async () => {
    const index = await v3Index(fixture().kubeConfig);
    for (const k of SERVED_KINDS) {
      const key = k.group === '' ? `api/${k.version}` : `apis/${k.group}/${k.version}`;
      expect(index[key]?.serverRelativeURL, key).to.match(new RegExp(`^/openapi/v3/${key.replace(/\./g, '\\.')}\\?hash=[0-9A-F]{32,}$`));
    }
  });

  it('answers the v3 index whatever the Accept', async () => {
    const index = await rawRequest(fixture().kubeConfig, { path: '/openapi/v3', headers: { accept: 'application/yaml' } });
    expect(index.status).to.equal(200);
    expect(Object.keys((JSON.parse(index.text) as { paths: object }).paths)).to.include('api/v1');
  });

  it('a group version document has a PATCH operation with fieldValidation for each served kind, as kubectl apply checks', async () => {
    const docs = new Map<string, OpenApiV3>();
    for (const k of SERVED_KINDS.filter((x) => x.verbs.includes('patch'))) {
      const key = k.group === '' ? `api/${k.version}` : `apis/${k.group}/${k.version}`;
      if (!docs.has(key)) docs.set(key, await v3Document(fixture().kubeConfig, key));
      const ops = patchOperations(docs.get(key)!, k);
      expect(ops.length, `${key} ${k.kind}`).to.be.greaterThan(0);
      for (const op of ops) expect(hasFieldValidation(op), `${key} ${k.kind} ${String(op['operationId'])}`).to.equal(true);
    }
  });

  it('apps/v1 describes Deployment fields, and every reference in it resolves', async () => {
    const doc = await v3Document(fixture().kubeConfig, 'apis/apps/v1');
    expect(doc.openapi).to.match(/^3\.0\./);
    const deployment = doc.components.schemas['io.k8s.api.apps.v1.Deployment']!;
    expect(deployment['x-kubernetes-group-version-kind']).to.deep.equal([{ group: 'apps', kind: 'Deployment', version: 'v1' }]);
    const spec = doc.components.schemas['io.k8s.api.apps.v1.DeploymentSpec']!;
    expect(((spec['properties'] as Record<string, Json>)['replicas']!['description'] as string).length).to.be.greaterThan(10);
    const op = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale']!['patch']!;
    expect(op['x-kubernetes-group-version-kind']).to.deep.equal({ group: 'autoscaling', version: 'v1', kind: 'Scale' });
    expectReferencesResolve(doc, '#/components/schemas/', doc.components.schemas);
  });

  it('redirects an outdated hash to the current document and answers 404 for a group version it does not serve', async () => {
    const { kubeConfig } = fixture();
    const current = (await v3Index(kubeConfig))['api/v1']!.serverRelativeURL;
    const stale = await rawRequest(kubeConfig, { path: '/openapi/v3/api/v1?hash=ABC' });
    expect(stale.status).to.equal(301);
    expect(stale.headers.location).to.equal(current);
    const missing = await rawRequest(kubeConfig, { path: '/openapi/v3/apis/nothing.kindex.test/v1' });
    expect(missing.status).to.equal(404);
  });

  it('/openapi/v2 is one Swagger 2.0 document with the built-in definitions and their PATCH operations', async () => {
    const doc = await getJson<{ swagger: string; paths: Record<string, Record<string, Json>>; definitions: Record<string, Json> }>(
      fixture().kubeConfig,
      '/openapi/v2',
    );
    expect(doc.swagger).to.equal('2.0');
    const deployment = doc.definitions['io.k8s.api.apps.v1.Deployment']!;
    expect(deployment['x-kubernetes-group-version-kind']).to.deep.equal([{ group: 'apps', kind: 'Deployment', version: 'v1' }]);
    expect((deployment['properties'] as Record<string, Json>)['metadata']!['$ref']).to.equal(`#/definitions/${META}.ObjectMeta`);
    const patch = doc.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}']!['patch']!;
    expect(patch['x-kubernetes-group-version-kind']).to.deep.equal({ group: 'apps', version: 'v1', kind: 'Deployment' });
    expect(((patch['responses'] as Record<string, Json>)['200']!['schema'] as Json)['$ref']).to.equal(
      '#/definitions/io.k8s.api.apps.v1.Deployment',
    );
    expect(doc.definitions[`${META}.ObjectMeta`]).to.not.equal(undefined);
  });

  it('/openapi/v2 answers in protobuf as client-go asks for it: a gnostic Document with the definitions', async () => {
    const response = await rawRequest(fixture().kubeConfig, {
      path: '/openapi/v2',
      headers: { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' },
    });
    expect(response.status).to.equal(200);
    expect(response.headers['content-type']).to.equal('application/com.github.proto-openapi.spec.v2.v1.0+protobuf');
    // Field 1 (swagger), length-delimited, "2.0".
    expect(response.text.slice(0, 5)).to.equal('\n\u00032.0');
    expect(response.text).to.contain('io.k8s.api.apps.v1.Deployment');
  });

  it("publishes a CRD's schema as kube-apiserver's apiextensions builder does, in v3 and v2, and drops it with the CRD", async function () {
    this.timeout(90_000);
    const { kubeConfig } = fixture();
    const group = `${uniqueName('oapi')}.kindex.test`;
    const model = `${group.split('.').reverse().join('.')}.v1.Gizmo`;
    const spec = {
      type: 'object',
      description: 'What the gizmo should be.',
      properties: {
        size: { type: 'integer', description: 'How big the gizmo is.' },
        color: { type: 'string', nullable: true },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        pick: { type: 'string', anyOf: [{ enum: ['a'] }, { enum: ['b'] }] },
        template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
      },
    };
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `gizmos.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural: 'gizmos', singular: 'gizmo', kind: 'Gizmo' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            subresources: { status: {} },
            schema: { openAPIV3Schema: { type: 'object', description: 'A gizmo.', properties: { spec, status: { type: 'object' } } } },
          },
        ],
      },
    };
    await createRawCrd(kubeConfig, crd);
    try {
      const doc = await eventually(() => v3Document(kubeConfig, `apis/${group}/v1`), WAIT);
      const gizmo = doc.components.schemas[model]!;
      expect(gizmo['x-kubernetes-group-version-kind']).to.deep.equal([{ group, kind: 'Gizmo', version: 'v1' }]);
      expect(gizmo['description']).to.equal('A gizmo.');
      const properties = gizmo['properties'] as Record<string, Json>;
      expect(properties['metadata']!['allOf']).to.deep.equal([{ $ref: `#/components/schemas/${META}.ObjectMeta` }]);
      expect(properties['apiVersion']!['type']).to.equal('string');
      expect(properties['kind']!['type']).to.equal('string');
      const specProperties = properties['spec']!['properties'] as Record<string, Json>;
      expect(specProperties['size']).to.deep.equal({ type: 'integer', description: 'How big the gizmo is.' });
      expect(specProperties['color']).to.deep.equal({ type: 'string', nullable: true });
      const template = specProperties['template']!;
      expect(Object.keys(template['properties'] as Json)).to.have.members(['apiVersion', 'kind', 'metadata']);
      expect(template['required']).to.deep.equal(['kind', 'apiVersion']);
      const list = doc.components.schemas[`${model}List`]!;
      expect(list['x-kubernetes-group-version-kind']).to.deep.equal([{ group, kind: 'GizmoList', version: 'v1' }]);
      expect(((list['properties'] as Record<string, Json>)['items']!['items'] as Json)['$ref']).to.equal(`#/components/schemas/${model}`);
      const objectPath = `/apis/${group}/v1/namespaces/{namespace}/gizmos/{name}`;
      expect(Object.keys(doc.paths)).to.include.members([`/apis/${group}/v1/gizmos`, objectPath, `${objectPath}/status`]);
      const patch = doc.paths[objectPath]!['patch']!;
      expect(hasFieldValidation(patch)).to.equal(true);
      expect(Object.keys((patch['requestBody'] as { content: Json }).content)).to.not.include('application/strategic-merge-patch+json');
      expectReferencesResolve(doc, '#/components/schemas/', doc.components.schemas);

      // v2: the structural v2 form, without what kubectl's v2 validation cannot read.
      const v2 = await eventually(async () => {
        const d = await getJson<{ definitions: Record<string, Json> }>(kubeConfig, '/openapi/v2');
        expect(d.definitions[model], model).to.not.equal(undefined);
        return d;
      }, WAIT);
      const v2Properties = v2.definitions[model]!['properties'] as Record<string, Json>;
      expect(v2Properties['metadata']).to.deep.include({ $ref: `#/definitions/${META}.ObjectMeta` });
      const v2Spec = v2Properties['spec']!['properties'] as Record<string, Json>;
      expect(v2Spec['color']).to.deep.equal({});
      expect(v2Spec['pick']).to.deep.equal({ type: 'string' });
      expect(v2Spec['free']).to.deep.equal({ 'x-kubernetes-preserve-unknown-fields': true });
      expect(v2Spec['template']).to.deep.equal({ 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true });
    } finally {
      await deleteRawCrd(kubeConfig, crd.metadata.name);
    }
    await eventually(async () => {
      expect(Object.keys(await v3Index(kubeConfig))).to.not.include(`apis/${group}/v1`);
    }, WAIT);
  });
});
