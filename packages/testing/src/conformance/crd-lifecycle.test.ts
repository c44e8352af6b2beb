import { expect } from 'chai';
import { catchApiStatus } from '../helpers/api-status.js';
import { eventually } from '../helpers/eventually.js';
import { useConformanceFixture } from './conformance-fixture.js';
import { createTestCrd, type Widget } from '../helpers/test-crd.js';

const DISCOVERY_WAIT = { timeoutMs: 30_000, intervalMs: 100 };

describe('conformance: CustomResourceDefinition lifecycle', () => {
  const fixture = useConformanceFixture();

  it('a namespaced CRD with status is served: discovery lists it and its status subresource', async () => {
    const { apiextensions, custom } = fixture();
    const crd = await createTestCrd(apiextensions, custom, { scope: 'Namespaced', statusSubresource: true });
    const list = await eventually(async () => {
      const resources = await custom.getAPIResources({ group: crd.group, version: crd.version });
      expect(resources.resources.map((r) => r.name)).to.include.members([crd.plural, `${crd.plural}/status`]);
      return resources;
    }, DISCOVERY_WAIT);
    expect(list.groupVersion).to.equal(crd.apiVersion);
    const main = list.resources.find((r) => r.name === crd.plural)!;
    expect(main).to.include({ namespaced: true, kind: 'Widget' });
    expect(main.verbs).to.include.members(['create', 'get', 'list', 'watch', 'update', 'patch', 'delete']);
  });

  it('a CRD without status subresource lists no /status resource', async () => {
    const { apiextensions, custom } = fixture();
    const crd = await createTestCrd(apiextensions, custom, { statusSubresource: false });
    // Discovery may trail the serving of the resource for a moment on a real server.
    await eventually(async () => {
      const list = await custom.getAPIResources({ group: crd.group, version: crd.version });
      expect(list.resources.map((r) => r.name))
        .to.include(crd.plural)
        .and.not.include(`${crd.plural}/status`);
    }, DISCOVERY_WAIT);
  });

  it('a namespaced CRD serves create, get and list of custom objects in a namespace', async () => {
    const { apiextensions, custom, namespace } = fixture();
    const crd = await createTestCrd(apiextensions, custom);
    const coordinates = { group: crd.group, version: crd.version, plural: crd.plural };
    const created = (await custom.createNamespacedCustomObject({
      ...coordinates,
      namespace,
      body: { apiVersion: crd.apiVersion, kind: crd.kind, metadata: { name: 'one' }, spec: { n: 1 } },
    })) as Widget;
    expect(created.metadata?.namespace).to.equal(namespace);
    expect(created.metadata?.uid).to.be.a('string');
    expect(created.kind).to.equal('Widget');
    expect(created.apiVersion).to.equal(crd.apiVersion);
    const read = (await custom.getNamespacedCustomObject({ ...coordinates, namespace, name: 'one' })) as Widget;
    expect(read.spec).to.deep.equal({ n: 1 });
    const list = (await custom.listNamespacedCustomObject({ ...coordinates, namespace })) as { kind?: string; items: Widget[] };
    expect(list.kind).to.equal('WidgetList');
    expect(list.items.map((w) => w.metadata?.name)).to.deep.equal(['one']);
  });

  it('a cluster-scoped CRD is served without a namespace and listed as not namespaced', async () => {
    const { apiextensions, custom } = fixture();
    const crd = await createTestCrd(apiextensions, custom, { scope: 'Cluster' });
    const coordinates = { group: crd.group, version: crd.version, plural: crd.plural };
    await eventually(async () => {
      const list = await custom.getAPIResources({ group: crd.group, version: crd.version });
      expect(list.resources.find((r) => r.name === crd.plural)).to.include({ namespaced: false });
    }, DISCOVERY_WAIT);
    const created = (await custom.createClusterCustomObject({
      ...coordinates,
      body: { apiVersion: crd.apiVersion, kind: crd.kind, metadata: { name: 'global' }, spec: {} },
    })) as Widget;
    expect(created.metadata?.namespace ?? '').to.equal('');
    const read = (await custom.getClusterCustomObject({ ...coordinates, name: 'global' })) as Widget;
    expect(read.metadata?.uid).to.equal(created.metadata?.uid);
  });

  it('reports the CRD as Established and its accepted names', async () => {
    const { apiextensions, custom } = fixture();
    const crd = await createTestCrd(apiextensions, custom);
    const read = await eventually(
      async () => {
        const current = await apiextensions.readCustomResourceDefinition({ name: crd.name });
        const established = current.status?.conditions?.find((c) => c.type === 'Established');
        expect(established?.status).to.equal('True');
        return current;
      },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect(read.status?.acceptedNames?.kind).to.equal('Widget');
    expect(read.status?.acceptedNames?.plural).to.equal(crd.plural);
  });

  it('deleting the CRD stops serving its resource and removes its objects', async () => {
    const { apiextensions, custom, namespace } = fixture();
    const crd = await createTestCrd(apiextensions, custom);
    const coordinates = { group: crd.group, version: crd.version, plural: crd.plural };
    await custom.createNamespacedCustomObject({
      ...coordinates,
      namespace,
      body: { apiVersion: crd.apiVersion, kind: crd.kind, metadata: { name: 'doomed' }, spec: {} },
    });
    await apiextensions.deleteCustomResourceDefinition({ name: crd.name });
    await eventually(
      async () => {
        expect(await catchApiStatus(custom.listNamespacedCustomObject({ ...coordinates, namespace }))).to.include({ code: 404 });
        expect(await catchApiStatus(apiextensions.readCustomResourceDefinition({ name: crd.name }))).to.include({ code: 404 });
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    const groups = await custom.getAPIResources({ group: crd.group, version: crd.version }).then(
      (list) => list.resources.map((r) => r.name),
      () => [] as string[],
    );
    expect(groups).to.not.include(crd.plural);
  });

  it('re-creating a deleted CRD serves it again without the old objects', async () => {
    const { apiextensions, custom, namespace } = fixture();
    const crd = await createTestCrd(apiextensions, custom);
    const coordinates = { group: crd.group, version: crd.version, plural: crd.plural };
    const body = { apiVersion: crd.apiVersion, kind: crd.kind, metadata: { name: 'phoenix' }, spec: {} };
    await custom.createNamespacedCustomObject({ ...coordinates, namespace, body });
    const definition = await apiextensions.readCustomResourceDefinition({ name: crd.name });
    await apiextensions.deleteCustomResourceDefinition({ name: crd.name });
    await eventually(
      async () => {
        expect(await catchApiStatus(apiextensions.readCustomResourceDefinition({ name: crd.name }))).to.include({ code: 404 });
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
    await apiextensions.createCustomResourceDefinition({
      body: { apiVersion: definition.apiVersion, kind: definition.kind, metadata: { name: crd.name }, spec: definition.spec },
    });
    const list = await eventually(
      async () => (await custom.listNamespacedCustomObject({ ...coordinates, namespace })) as { items: unknown[] },
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    expect(list.items).to.deep.equal([]);
  });

  it('prunes fields the structural schema does not declare', async () => {
    const { apiextensions, custom, namespace } = fixture();
    const crd = await createTestCrd(apiextensions, custom, {
      specSchema: { type: 'object', properties: { size: { type: 'integer' } } },
    });
    const created = (await custom.createNamespacedCustomObject({
      group: crd.group,
      version: crd.version,
      plural: crd.plural,
      namespace,
      body: { apiVersion: crd.apiVersion, kind: crd.kind, metadata: { name: 'pruned' }, spec: { size: 1, undeclared: 'x' }, bogus: true },
    })) as Widget & { bogus?: unknown };
    expect(created.spec).to.deep.equal({ size: 1 });
    expect(created).to.not.have.property('bogus');
  });

  it('rejects an object that violates the schema with 422 Invalid naming the field', async () => {
    const { apiextensions, custom, namespace } = fixture();
    const crd = await createTestCrd(apiextensions, custom, {
      specSchema: { type: 'object', properties: { size: { type: 'integer' } } },
    });
    const status = await catchApiStatus(
      custom.createNamespacedCustomObject({
        group: crd.group,
        version: crd.version,
        plural: crd.plural,
        namespace,
        body: { apiVersion: crd.apiVersion, kind: crd.kind, metadata: { name: 'invalid' }, spec: { size: 'large' } },
      }),
    );
    expect(status).to.include({ code: 422, reason: 'Invalid' });
    expect(status.details?.name).to.equal('invalid');
    expect(status.details?.causes?.map((c) => c.field)).to.include('spec.size');
  });
});
