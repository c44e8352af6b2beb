import type { V1CustomResourceDefinition } from '@kubernetes/client-node';
import { expect } from 'chai';
import { catchApiStatus } from '../helpers/api-status.js';
import { eventually } from '../helpers/eventually.js';
import { createTestCrd, type TestCrd } from '../helpers/test-crd.js';
import { WatchEventCollector } from '../helpers/watch-event-collector.js';
import { asPatch, useConformanceFixture } from './conformance-fixture.js';

const CLEANUP = 'customresourcecleanup.apiextensions.k8s.io';
// The real cleanup controller polls for remaining objects every few seconds.
const GONE_WAIT = { timeoutMs: 60_000, intervalMs: 200 };

function terminating(crd: V1CustomResourceDefinition): string | undefined {
  const c = crd.status?.conditions?.find((x) => x.type === 'Terminating');
  return c === undefined ? undefined : `${c.status}/${c.reason}/${c.message}`;
}

describe('conformance: deleting a CustomResourceDefinition', () => {
  const fixture = useConformanceFixture();

  async function crdWithObjects(names: { name: string; finalizers?: string[] }[]): Promise<TestCrd> {
    const { apiextensions, custom, namespace } = fixture();
    const crd = await createTestCrd(apiextensions, custom);
    for (const { name, finalizers } of names) {
      await custom.createNamespacedCustomObject({
        group: crd.group,
        version: crd.version,
        plural: crd.plural,
        namespace,
        body: { apiVersion: crd.apiVersion, kind: crd.kind, metadata: { name, ...(finalizers ? { finalizers } : {}) }, spec: {} },
      });
    }
    return crd;
  }

  it('carries no finalizer until deleted; the delete adds the cleanup finalizer and a Terminating condition', async () => {
    const { apiextensions } = fixture();
    const crd = await crdWithObjects([{ name: 'held', finalizers: ['example.com/hold'] }]);
    const before = await apiextensions.readCustomResourceDefinition({ name: crd.name });
    expect(before.metadata?.finalizers ?? []).to.deep.equal([]);
    expect(terminating(before)).to.equal(undefined);
    // client-node types the answer as a Status; it is the CRD, marked for deletion.
    const answer = (await apiextensions.deleteCustomResourceDefinition({ name: crd.name })) as unknown as V1CustomResourceDefinition;
    expect(answer.kind).to.equal('CustomResourceDefinition');
    expect(terminating(answer)).to.equal(
      'True/InstanceDeletionPending/CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
    );
    const during = await eventually(async () => {
      const read = await apiextensions.readCustomResourceDefinition({ name: crd.name });
      expect(terminating(read)).to.equal('True/InstanceDeletionInProgress/CustomResource deletion is in progress');
      return read;
    }, GONE_WAIT);
    expect(during.metadata?.finalizers).to.deep.equal([CLEANUP]);
    expect(during.metadata?.deletionTimestamp).to.not.equal(undefined);
  });

  it('deletes every object (watchers see DELETED), then the CRD and its endpoints and discovery go', async () => {
    const { apiextensions, custom, kubeConfig, namespace } = fixture();
    const crd = await crdWithObjects([{ name: 'a' }, { name: 'b' }]);
    const coordinates = { group: crd.group, version: crd.version, plural: crd.plural, namespace };
    const watch = await WatchEventCollector.start(kubeConfig, `/apis/${crd.group}/${crd.version}/namespaces/${namespace}/${crd.plural}`, {
      resourceVersion: '0',
    });
    try {
      await watch.waitForCount(2);
      await apiextensions.deleteCustomResourceDefinition({ name: crd.name });
      await watch.waitFor((e) => e.type === 'DELETED' && (e.object as { metadata?: { name?: string } }).metadata?.name === 'b', 30_000);
      expect(
        watch
          .summary()
          .filter((s) => s.startsWith('DELETED'))
          .sort(),
      ).to.deep.equal(['DELETED a', 'DELETED b']);
    } finally {
      await watch.stop();
    }
    await eventually(async () => {
      expect(await catchApiStatus(apiextensions.readCustomResourceDefinition({ name: crd.name }))).to.include({ code: 404 });
      expect(await catchApiStatus(custom.listNamespacedCustomObject(coordinates))).to.include({ code: 404 });
    }, GONE_WAIT);
    const resources = await custom.getAPIResources({ group: crd.group, version: crd.version }).then(
      (list) => list.resources.map((r) => r.name),
      () => [] as string[],
    );
    expect(resources).to.not.include(crd.plural);
  });

  it('an object with a finalizer holds the CRD; new objects are refused (403) until the CRD is gone', async () => {
    const { apiextensions, custom, namespace } = fixture();
    const crd = await crdWithObjects([{ name: 'held', finalizers: ['example.com/hold'] }]);
    const coordinates = { group: crd.group, version: crd.version, plural: crd.plural, namespace };
    await apiextensions.deleteCustomResourceDefinition({ name: crd.name });
    const held = await eventually(async () => {
      const o = (await custom.getNamespacedCustomObject({ ...coordinates, name: 'held' })) as { metadata?: { deletionTimestamp?: string } };
      expect(o.metadata?.deletionTimestamp).to.be.a('string');
      return o;
    }, GONE_WAIT);
    expect(held.metadata?.deletionTimestamp).to.be.a('string');
    const refused = await catchApiStatus(
      custom.createNamespacedCustomObject({
        ...coordinates,
        body: { apiVersion: crd.apiVersion, kind: crd.kind, metadata: { name: 'late' }, spec: {} },
      }),
    );
    expect(refused.code).to.equal(403);
    expect(refused.reason).to.equal('Forbidden');
    expect(refused.message).to.equal(
      `${crd.plural}.${crd.group} "late" is forbidden: create not allowed while custom resource definition is terminating`,
    );
    expect(refused.details).to.deep.include({ name: 'late', group: crd.group, kind: crd.plural });
    // Still there while the object's finalizer holds it.
    expect((await apiextensions.readCustomResourceDefinition({ name: crd.name })).metadata?.finalizers).to.deep.equal([CLEANUP]);
    await custom.patchNamespacedCustomObject({ ...coordinates, name: 'held', body: { metadata: { finalizers: null } } }, asPatch.merge());
    await eventually(async () => {
      expect(await catchApiStatus(apiextensions.readCustomResourceDefinition({ name: crd.name }))).to.include({ code: 404 });
    }, GONE_WAIT);
  });
});
