import { expect } from 'chai';
import { asPatch, useConformanceFixture } from './conformance-fixture.js';
import { createTestCrd, type Widget } from '../helpers/test-crd.js';

describe('conformance: generation', () => {
  const fixture = useConformanceFixture();

  async function widget(statusSubresource: boolean) {
    const { apiextensions, custom, namespace } = fixture();
    const crd = await createTestCrd(apiextensions, custom, { statusSubresource });
    const ref = { group: crd.group, version: crd.version, plural: crd.plural, namespace, name: 'w' };
    const created = (await custom.createNamespacedCustomObject({
      ...ref,
      body: { apiVersion: crd.apiVersion, kind: crd.kind, metadata: { name: 'w' }, spec: { size: 1 } },
    })) as Widget;
    const merge = async (body: object) => (await custom.patchNamespacedCustomObject({ ...ref, body }, asPatch.merge())) as Widget;
    const mergeStatus = async (body: object) =>
      (await custom.patchNamespacedCustomObjectStatus({ ...ref, body }, asPatch.merge())) as Widget;
    return { created, merge, mergeStatus };
  }

  it('is 1 on create', async () => {
    const { created } = await widget(true);
    expect(created.metadata?.generation).to.equal(1);
  });

  it('is bumped by one for each change to the spec', async () => {
    const { merge } = await widget(true);
    expect((await merge({ spec: { size: 2 } })).metadata?.generation).to.equal(2);
    expect((await merge({ spec: { size: 3, extra: true } })).metadata?.generation).to.equal(3);
  });

  it('is not bumped by metadata changes (labels, annotations, finalizers)', async () => {
    const { merge } = await widget(true);
    const patched = await merge({
      metadata: { labels: { a: 'b' }, annotations: { note: 'x' }, finalizers: ['kindex.test/f'] },
    });
    expect(patched.metadata?.generation).to.equal(1);
    expect((await merge({ metadata: { finalizers: null } })).metadata?.generation).to.equal(1);
  });

  it('is not bumped by status writes through the status subresource', async () => {
    const { mergeStatus } = await widget(true);
    const patched = await mergeStatus({ status: { phase: 'Ready' } });
    expect(patched.status).to.deep.equal({ phase: 'Ready' });
    expect(patched.metadata?.generation).to.equal(1);
  });

  it('is not bumped by a write that changes nothing', async () => {
    const { merge } = await widget(true);
    expect((await merge({ spec: { size: 1 } })).metadata?.generation).to.equal(1);
  });

  it('without a status subresource, is bumped by status changes too', async () => {
    const { merge } = await widget(false);
    expect((await merge({ status: { phase: 'Ready' } })).metadata?.generation).to.equal(2);
    expect((await merge({ metadata: { labels: { a: 'b' } } })).metadata?.generation).to.equal(2);
  });
});
