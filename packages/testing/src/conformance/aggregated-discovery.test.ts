// Aggregated discovery (apidiscovery.k8s.io/v2), as kubectl 1.3x asks for it: one document for
// /api and one for /apis, negotiated by the Accept header, with every served resource's scope,
// verbs, names and subresources, and custom resources coming and going with their CRDs. The legacy
// per-group-version documents must say the same (SERVED_KINDS is read from kube-apiserver 1.36.3).

import { expect } from 'chai';
import { eventually } from '../helpers/eventually.js';
import { rawRequest } from '../helpers/raw-request.js';
import { uniqueName } from '../helpers/unique-name.js';
import { useConformanceFixture } from './conformance-fixture.js';
import { createRawCrd, deleteRawCrd } from './raw-crd.js';
import { SERVED_KINDS, type ServedKind } from './served-kinds.js';
import type { KubeConfig } from '@kubernetes/client-node';

const AGGREGATED_V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const AGGREGATED_V2BETA1 = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';
// What kubectl 1.32 sends.
const KUBECTL_ACCEPT = `${AGGREGATED_V2},${AGGREGATED_V2BETA1},application/json`;
const WAIT = { timeoutMs: 30_000, intervalMs: 200 };

interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}
interface ResourceDiscovery {
  resource: string;
  responseKind: GroupVersionKind;
  scope: string;
  singularResource: string;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  subresources?: { subresource: string; responseKind: GroupVersionKind; verbs: string[] }[];
}
interface GroupDiscoveryList {
  kind: string;
  apiVersion: string;
  items: { metadata: { name?: string }; versions: { version: string; resources: ResourceDiscovery[]; freshness?: string }[] }[];
}

async function aggregated(
  kubeConfig: KubeConfig,
  path: '/api' | '/apis',
  accept = KUBECTL_ACCEPT,
): Promise<{ contentType: string; doc: GroupDiscoveryList }> {
  const response = await rawRequest(kubeConfig, { path, headers: { accept } });
  expect(response.status, response.text).to.equal(200);
  return { contentType: String(response.headers['content-type']), doc: JSON.parse(response.text) as GroupDiscoveryList };
}

function find(doc: GroupDiscoveryList, group: string, version: string, resource: string): ResourceDiscovery | undefined {
  const g = doc.items.find((i) => (i.metadata.name ?? '') === group);
  return g?.versions.find((v) => v.version === version)?.resources.find((r) => r.resource === resource);
}

function kindOf(gvk: GroupVersionKind): string {
  return `${gvk.group}/${gvk.version}/${gvk.kind}`;
}

function expectDiscovered(entry: ResourceDiscovery | undefined, expected: ServedKind, custom = false): void {
  const what = `${expected.group}/${expected.version}/${expected.resource}`;
  expect(entry, `${what} is missing from aggregated discovery`).to.not.equal(undefined);
  // kube-apiserver leaves group and version empty for built-in kinds, and names them for custom ones.
  const own = custom ? { group: expected.group, version: expected.version } : { group: '', version: '' };
  expect(entry!.responseKind, what).to.deep.equal({ ...own, kind: expected.kind });
  expect(entry!.scope, what).to.equal(expected.namespaced ? 'Namespaced' : 'Cluster');
  expect(entry!.singularResource, what).to.equal(expected.singularName);
  expect([...entry!.verbs].sort(), what).to.deep.equal([...expected.verbs].sort());
  expect(entry!.shortNames ?? [], what).to.deep.equal(expected.shortNames ?? []);
  expect(entry!.categories ?? [], what).to.deep.equal(expected.categories ?? []);
  for (const [name, sub] of Object.entries(expected.subresources ?? {})) {
    const found = entry!.subresources?.find((s) => s.subresource === name);
    expect(found, `${what}/${name}`).to.not.equal(undefined);
    expect([...found!.verbs].sort(), `${what}/${name}`).to.deep.equal([...sub.verbs].sort());
    expect(kindOf(found!.responseKind), `${what}/${name}`).to.equal(sub.kind);
  }
}

describe('conformance: aggregated discovery', () => {
  const fixture = useConformanceFixture();

  for (const path of ['/api', '/apis'] as const) {
    it(`answers ${path} with an APIGroupDiscoveryList v2 and its content type when kubectl asks for it`, async () => {
      const { contentType, doc } = await aggregated(fixture().kubeConfig, path);
      expect(contentType).to.equal(AGGREGATED_V2);
      expect(doc).to.include({ kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2' });
      expect(doc.items.length).to.be.greaterThan(0);
      for (const item of doc.items) expect(item.versions.length, item.metadata.name).to.be.greaterThan(0);
    });
  }

  it('answers the legacy APIGroupList when only v2beta1 is asked for (kube-apiserver 1.36 serves v2 alone)', async () => {
    const response = await rawRequest(fixture().kubeConfig, {
      path: '/apis',
      headers: { accept: `${AGGREGATED_V2BETA1},application/json` },
    });
    expect(response.status).to.equal(200);
    expect(response.headers['content-type']).to.equal('application/json');
    expect((JSON.parse(response.text) as { kind: string }).kind).to.equal('APIGroupList');
  });

  it('answers the legacy APIGroupList to a plain application/json Accept', async () => {
    const response = await rawRequest(fixture().kubeConfig, { path: '/apis', headers: { accept: 'application/json' } });
    expect(String(response.headers['content-type'])).to.match(/^application\/json(;|$)/);
    expect(response.headers['content-type']).to.not.include('apidiscovery');
    expect((JSON.parse(response.text) as { kind: string }).kind).to.equal('APIGroupList');
  });

  it('lists the core group unnamed under /api, and not under /apis', async () => {
    const api = (await aggregated(fixture().kubeConfig, '/api')).doc;
    expect(api.items.map((i) => i.metadata.name ?? '')).to.deep.equal(['']);
    const apis = (await aggregated(fixture().kubeConfig, '/apis')).doc;
    expect(apis.items.map((i) => i.metadata.name ?? '')).to.not.include('');
  });

  it('describes every served kind as kube-apiserver does: scope, verbs, names, categories and subresources', async () => {
    const api = (await aggregated(fixture().kubeConfig, '/api')).doc;
    const apis = (await aggregated(fixture().kubeConfig, '/apis')).doc;
    for (const expected of SERVED_KINDS) {
      expectDiscovered(find(expected.group === '' ? api : apis, expected.group, expected.version, expected.resource), expected);
    }
  });

  it('the legacy group version documents say the same as the aggregated ones', async () => {
    for (const expected of SERVED_KINDS) {
      const path = expected.group === '' ? `/api/${expected.version}` : `/apis/${expected.group}/${expected.version}`;
      const response = await rawRequest(fixture().kubeConfig, { path });
      expect(response.status, path).to.equal(200);
      const resources = (JSON.parse(response.text) as { resources: Record<string, unknown>[] }).resources;
      const entry = resources.find((r) => r['name'] === expected.resource);
      expect(entry, `${path} ${expected.resource}`).to.not.equal(undefined);
      expect(entry, `${path} ${expected.resource}`).to.include({
        kind: expected.kind,
        namespaced: expected.namespaced,
        singularName: expected.singularName,
      });
      expect([...(entry!['verbs'] as string[])].sort()).to.deep.equal([...expected.verbs].sort());
      for (const [name, sub] of Object.entries(expected.subresources ?? {})) {
        const s = resources.find((r) => r['name'] === `${expected.resource}/${name}`);
        expect(s, `${path} ${expected.resource}/${name}`).to.not.equal(undefined);
        const [group, version, kind] = sub.kind.split('/');
        expect(s!['kind']).to.equal(kind);
        if (group !== '') expect(s).to.include({ group, version });
        else expect(s).to.not.have.any.keys('group', 'version');
      }
    }
  });

  it('lists a CRD with all its served versions and its status and scale subresources, and drops it when the CRD is deleted', async function () {
    this.timeout(90_000);
    const { kubeConfig } = fixture();
    const group = `${uniqueName('agg')}.kindex.test`;
    const schema = {
      openAPIV3Schema: {
        type: 'object',
        properties: {
          spec: { type: 'object', properties: { replicas: { type: 'integer' } } },
          status: { type: 'object', properties: { replicas: { type: 'integer' } } },
        },
      },
    };
    const subresources = { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } };
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `gadgets.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', shortNames: ['gdg'], categories: ['all'] },
        versions: [
          { name: 'v1', served: true, storage: true, schema, subresources },
          { name: 'v1beta1', served: true, storage: false, schema },
        ],
      },
    };
    await createRawCrd(kubeConfig, crd);
    try {
      await eventually(async () => {
        const doc = (await aggregated(kubeConfig, '/apis')).doc;
        const item = doc.items.find((i) => i.metadata.name === group);
        expect(item, group).to.not.equal(undefined);
        expect(item!.versions.map((v) => v.version)).to.deep.equal(['v1', 'v1beta1']);
        const expected = {
          group,
          resource: 'gadgets',
          kind: 'Gadget',
          singularName: 'gadget',
          namespaced: true,
          shortNames: ['gdg'],
          categories: ['all'],
        };
        const all = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
        expectDiscovered(
          find(doc, group, 'v1', 'gadgets'),
          {
            ...expected,
            version: 'v1',
            verbs: all,
            subresources: {
              status: { verbs: ['get', 'patch', 'update'], kind: `${group}/v1/Gadget` },
              scale: { verbs: ['get', 'patch', 'update'], kind: 'autoscaling/v1/Scale' },
            },
          },
          true,
        );
        const beta = find(doc, group, 'v1beta1', 'gadgets');
        expectDiscovered(beta, { ...expected, version: 'v1beta1', verbs: all }, true);
        expect(beta!.subresources ?? []).to.deep.equal([]);
      }, WAIT);
    } finally {
      await deleteRawCrd(kubeConfig, crd.metadata.name);
    }
    await eventually(async () => {
      const doc = (await aggregated(kubeConfig, '/apis')).doc;
      expect(doc.items.map((i) => i.metadata.name)).to.not.include(group);
    }, WAIT);
  });
});
