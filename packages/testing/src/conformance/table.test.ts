import { expect } from 'chai';
import { eventually } from '../helpers/eventually.js';
import { rawRequest } from '../helpers/raw-request.js';
import { uniqueName } from '../helpers/unique-name.js';
import { configMapsPath, createConfigMap, useConformanceFixture } from './conformance-fixture.js';

// What `kubectl get` sends.
const TABLE_ACCEPT = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

interface Table {
  kind: string;
  apiVersion: string;
  metadata: { resourceVersion?: string };
  columnDefinitions: Array<{ name: string; type: string; format: string; priority: number }>;
  rows: Array<{ cells: unknown[]; object: { kind: string; apiVersion: string; metadata: { name: string } } }>;
}

describe('conformance: Table output (kubectl get)', () => {
  const fixture = useConformanceFixture();

  it("answers a list asked as Table with the kind's columns and the objects' metadata", async () => {
    const { core, kubeConfig, namespace } = fixture();
    const cm = await createConfigMap(core, namespace, { data: { a: '1', b: '2' } });
    const r = await rawRequest(kubeConfig, { path: configMapsPath(namespace), headers: { Accept: TABLE_ACCEPT } });
    expect(r.status).to.equal(200);
    const table = JSON.parse(r.text) as Table;
    expect(table).to.include({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
    expect(table.metadata.resourceVersion).to.be.a('string');
    expect(table.columnDefinitions.map((c) => c.name)).to.deep.equal(['Name', 'Data', 'Age']);
    expect(table.columnDefinitions[0]).to.include({ type: 'string', format: 'name' });
    expect(table.rows.map((row) => row.cells.slice(0, 2))).to.deep.equal([[cm.metadata!.name, 2]]);
    expect(table.rows[0]!.object).to.include({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' });
    expect(table.rows[0]!.object.metadata.name).to.equal(cm.metadata!.name);
    // One object asked as Table is a Table of one row.
    const one = JSON.parse(
      (
        await rawRequest(kubeConfig, {
          path: `${configMapsPath(namespace)}/${cm.metadata!.name}`,
          headers: { Accept: TABLE_ACCEPT },
        })
      ).text,
    ) as Table;
    expect(one.rows.map((row) => row.cells[0])).to.deep.equal([cm.metadata!.name]);
  });

  it("uses a CRD's additionalPrinterColumns, and Name and Age when it declares none", async () => {
    const { apiextensions, custom, kubeConfig, namespace } = fixture();
    const group = `${uniqueName('g')}.kindex.test`;
    const version = (printer: boolean) => ({
      name: 'v1',
      served: true,
      storage: true,
      schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } },
      ...(printer ? { additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }] } : {}),
    });
    for (const [kind, printer] of [
      ['Sized', true],
      ['Plain', false],
    ] as const) {
      const plural = `${kind.toLowerCase()}s`;
      await apiextensions.createCustomResourceDefinition({
        body: {
          metadata: { name: `${plural}.${group}` },
          spec: { group, scope: 'Namespaced', names: { plural, kind }, versions: [version(printer)] },
        },
      });
      await eventually(() => custom.listClusterCustomObject({ group, version: 'v1', plural }), { timeoutMs: 30_000, intervalMs: 100 });
      await custom.createNamespacedCustomObject({
        group,
        version: 'v1',
        plural,
        namespace,
        body: { apiVersion: `${group}/v1`, kind, metadata: { name: 'one' }, spec: { size: 3 } },
      });
    }
    const sized = JSON.parse(
      (await rawRequest(kubeConfig, { path: `/apis/${group}/v1/namespaces/${namespace}/sizeds`, headers: { Accept: TABLE_ACCEPT } })).text,
    ) as Table;
    expect(sized.columnDefinitions.map((c) => [c.name, c.type])).to.deep.equal([
      ['Name', 'string'],
      ['Size', 'integer'],
    ]);
    expect(sized.rows.map((row) => row.cells)).to.deep.equal([['one', 3]]);
    const plain = JSON.parse(
      (await rawRequest(kubeConfig, { path: `/apis/${group}/v1/namespaces/${namespace}/plains`, headers: { Accept: TABLE_ACCEPT } })).text,
    ) as Table;
    expect(plain.columnDefinitions.map((c) => [c.name, c.type])).to.deep.equal([
      ['Name', 'string'],
      ['Age', 'date'],
    ]);
    expect(plain.rows[0]!.cells[0]).to.equal('one');
    // Dates print as ages, as kubectl shows them.
    expect(plain.rows[0]!.cells[1]).to.match(/^\d+s$/);
  });

  it('answers a watch asked as Table (kubectl get --watch) with a one-row Table per event, the column definitions on the first only', async () => {
    const { core, kubeConfig, namespace } = fixture();
    const a = await createConfigMap(core, namespace, { data: { a: '1' } });
    const watched = rawRequest(kubeConfig, {
      path: `${configMapsPath(namespace)}?watch=true&timeoutSeconds=3`,
      headers: { Accept: TABLE_ACCEPT },
      timeoutMs: 20_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const b = await createConfigMap(core, namespace, { data: { b: '1', c: '2' } });
    await core.patchNamespacedConfigMap({ name: a.metadata!.name!, namespace, body: [{ op: 'add', path: '/data/z', value: '9' }] });
    const r = await watched;
    expect(r.status).to.equal(200);
    const events = r.text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { type: string; object: Table });
    expect(events.map((e) => [e.type, e.object.rows.map((row) => row.cells.slice(0, 2))])).to.deep.equal([
      ['ADDED', [[a.metadata!.name, 1]]],
      ['ADDED', [[b.metadata!.name, 2]]],
      ['MODIFIED', [[a.metadata!.name, 2]]],
    ]);
    for (const { object } of events) {
      expect(object).to.include({ kind: 'Table', apiVersion: 'meta.k8s.io/v1' });
      expect(object.rows[0]!.object).to.include({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' });
    }
    expect(events[0]!.object.columnDefinitions.map((c) => c.name)).to.deep.equal(['Name', 'Data', 'Age']);
    expect(events.slice(1).map((e) => e.object.columnDefinitions ?? [])).to.deep.equal([[], []]);
  });
});
