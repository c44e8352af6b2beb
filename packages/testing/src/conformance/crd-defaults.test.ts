import type { V1CustomResourceDefinition, V1JSONSchemaProps } from '@kubernetes/client-node';
import { expect } from 'chai';
import { eventually } from '../helpers/eventually.js';
import { WatchEventCollector } from '../helpers/watch-event-collector.js';
import { createTestCrd, type Widget } from '../helpers/test-crd.js';
import { useConformanceFixture } from './conformance-fixture.js';
import { customObjects } from './custom-objects.js';

// client-node knows `default` by its model name `_default`.
const specSchema: V1JSONSchemaProps = {
  type: 'object',
  properties: {
    replicas: { type: 'integer', _default: 1 },
    // A defaulted object whose properties have defaults of their own.
    policy: { type: 'object', _default: {}, properties: { mode: { type: 'string', _default: 'auto' }, limit: { type: 'integer' } } },
    ports: {
      type: 'array',
      // client-node types `items` as any and sends it as written: wire names here.
      items: { type: 'object', properties: { name: { type: 'string' }, protocol: { type: 'string', default: 'TCP' } } },
    },
    // A nullable field keeps its null; a non-nullable null gets the default.
    note: { type: 'string', nullable: true, _default: 'none' },
    size: { type: 'string', _default: 'small' },
  },
};

describe('conformance: CRD structural defaults', () => {
  const fixture = useConformanceFixture();

  it('fills in defaults on create: absent fields, nested objects, array items, non-nullable nulls', async () => {
    const { apiextensions, custom, namespace } = fixture();
    const crd = await createTestCrd(apiextensions, custom, { specSchema });
    const { at, body } = customObjects(crd, namespace);
    const created = (await custom.createNamespacedCustomObject({
      ...at,
      body: body({ ports: [{ name: 'http' }], note: null, size: null }),
    })) as Widget;
    expect(created.spec).to.deep.equal({
      replicas: 1,
      policy: { mode: 'auto' },
      ports: [{ name: 'http', protocol: 'TCP' }],
      note: null,
      size: 'small',
    });
    // An update that drops a defaulted field gets it back.
    const replaced = (await custom.replaceNamespacedCustomObject({
      ...at,
      name: 'w',
      body: { ...created, spec: { replicas: 3, policy: { limit: 2 } } },
    })) as Widget;
    expect(replaced.spec).to.deep.equal({ replicas: 3, policy: { mode: 'auto', limit: 2 }, note: 'none', size: 'small' });
  });

  it('defaults on read: objects stored before the CRD gained a default show it in get, list and watch', async () => {
    const { apiextensions, custom, namespace } = fixture();
    const crd = await createTestCrd(apiextensions, custom, {
      specSchema: { type: 'object', properties: { replicas: { type: 'integer' }, size: { type: 'string' } } },
    });
    const { at, body } = customObjects(crd, namespace);
    await custom.createNamespacedCustomObject({ ...at, body: body({ replicas: 2 }, 'old') });
    const before = (await custom.getNamespacedCustomObject({ ...at, name: 'old' })) as Widget;
    expect(before.spec).to.deep.equal({ replicas: 2 });
    const current: V1CustomResourceDefinition = await apiextensions.readCustomResourceDefinition({ name: crd.name });
    const spec = current.spec.versions[0]!.schema!.openAPIV3Schema!.properties!['spec']!;
    spec.properties!['size'] = { type: 'string', _default: 'small' };
    await apiextensions.replaceCustomResourceDefinition({ name: crd.name, body: current });
    // The real server re-reads the CRD asynchronously, within about a second.
    await eventually(
      async () => {
        const read = (await custom.getNamespacedCustomObject({ ...at, name: 'old' })) as Widget;
        expect(read.spec).to.deep.equal({ replicas: 2, size: 'small' });
        const list = (await custom.listNamespacedCustomObject({ ...at })) as { items: Widget[] };
        expect(list.items.map((w) => w.spec)).to.deep.equal([{ replicas: 2, size: 'small' }]);
        // Defaulting on read writes nothing: the resourceVersion stays.
        expect(read.metadata?.resourceVersion).to.equal(before.metadata?.resourceVersion);
      },
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    // A watch's initial ADDED events come from storage too.
    const w = await WatchEventCollector.start(fixture().kubeConfig, `/apis/${crd.apiVersion}/namespaces/${namespace}/${crd.plural}`);
    try {
      const [added] = await w.waitForCount(1);
      expect(added!.type).to.equal('ADDED');
      expect((added!.object as Widget).spec).to.deep.equal({ replicas: 2, size: 'small' });
    } finally {
      await w.stop();
    }
  });
});
