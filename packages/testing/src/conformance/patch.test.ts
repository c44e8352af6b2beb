import { expect } from 'chai';
import { catchApiStatus } from '../helpers/api-status.js';
import { asPatch, createConfigMap, stored, useConformanceFixture } from './conformance-fixture.js';
import { createTestCrd } from '../helpers/test-crd.js';

describe('conformance: patch', () => {
  const fixture = useConformanceFixture();

  it('merge patch sets and adds keys and deletes keys set to null', async () => {
    const { core, namespace } = fixture();
    const { name } = stored(await createConfigMap(core, namespace, { data: { keep: 'k', change: 'c', drop: 'd' } }));
    const patched = await core.patchNamespacedConfigMap(
      { name, namespace, body: { metadata: { labels: { added: 'yes' } }, data: { change: 'C', drop: null, add: 'a' } } },
      asPatch.merge(),
    );
    expect(patched.data).to.deep.equal({ keep: 'k', change: 'C', add: 'a' });
    expect(patched.metadata?.labels).to.deep.equal({ added: 'yes' });
    expect((await core.readNamespacedConfigMap({ name, namespace })).data).to.deep.equal(patched.data);
  });

  it('JSON patch applies add, replace and remove in order', async () => {
    const { core, namespace } = fixture();
    const { name } = stored(await createConfigMap(core, namespace, { data: { a: '1', b: '2' } }));
    const patched = await core.patchNamespacedConfigMap(
      {
        name,
        namespace,
        body: [
          { op: 'add', path: '/data/c', value: '3' },
          { op: 'replace', path: '/data/a', value: 'one' },
          { op: 'remove', path: '/data/b' },
          { op: 'add', path: '/metadata/labels', value: { l: 'v' } },
        ],
      },
      asPatch.json(),
    );
    expect(patched.data).to.deep.equal({ a: 'one', c: '3' });
    expect(patched.metadata?.labels).to.deep.equal({ l: 'v' });
  });

  it('a JSON patch whose test operation fails is rejected with 422 and changes nothing', async () => {
    const { core, namespace } = fixture();
    const created = await createConfigMap(core, namespace, { data: { a: '1' } });
    const { name, resourceVersion } = stored(created);
    const status = await catchApiStatus(
      core.patchNamespacedConfigMap(
        {
          name,
          namespace,
          body: [
            { op: 'test', path: '/data/a', value: 'not 1' },
            { op: 'replace', path: '/data/a', value: '2' },
          ],
        },
        asPatch.json(),
      ),
    );
    expect(status.code).to.equal(422);
    const read = await core.readNamespacedConfigMap({ name, namespace });
    expect(read.data).to.deep.equal({ a: '1' });
    expect(read.metadata?.resourceVersion).to.equal(resourceVersion);
  });

  it('a JSON patch removing a missing path is rejected with 422', async () => {
    const { core, namespace } = fixture();
    const { name } = stored(await createConfigMap(core, namespace));
    const status = await catchApiStatus(
      core.patchNamespacedConfigMap({ name, namespace, body: [{ op: 'remove', path: '/data/nope' }] }, asPatch.json()),
    );
    expect(status.code).to.equal(422);
  });

  it('a JSON patch that is not an array of operations is rejected with 400 BadRequest', async () => {
    const { core, namespace } = fixture();
    const { name } = stored(await createConfigMap(core, namespace));
    const status = await catchApiStatus(core.patchNamespacedConfigMap({ name, namespace, body: { data: { a: 'b' } } }, asPatch.json()));
    expect(status).to.include({ code: 400, reason: 'BadRequest' });
  });

  it('strategic merge patch on a built-in merges maps like a merge patch', async () => {
    const { core, namespace } = fixture();
    const { name } = stored(await createConfigMap(core, namespace, { data: { a: '1', b: '2' } }));
    const patched = await core.patchNamespacedConfigMap({ name, namespace, body: { data: { b: null, c: '3' } } }, asPatch.strategic());
    expect(patched.data).to.deep.equal({ a: '1', c: '3' });
  });

  it('patch of a missing object fails with 404 NotFound', async () => {
    const { core, namespace } = fixture();
    const status = await catchApiStatus(
      core.patchNamespacedConfigMap({ name: 'absent', namespace, body: { data: { a: 'b' } } }, asPatch.merge()),
    );
    expect(status).to.include({ code: 404, reason: 'NotFound' });
  });

  it('a patch that changes nothing keeps the resourceVersion', async () => {
    const { core, namespace } = fixture();
    const { name, resourceVersion } = stored(await createConfigMap(core, namespace, { data: { a: '1' } }));
    const patched = await core.patchNamespacedConfigMap({ name, namespace, body: { data: { a: '1' } } }, asPatch.merge());
    expect(patched.metadata?.resourceVersion).to.equal(resourceVersion);
  });

  it('patch cannot rename an object: a different metadata.name is rejected', async () => {
    const { core, namespace } = fixture();
    const { name } = stored(await createConfigMap(core, namespace));
    const status = await catchApiStatus(
      core.patchNamespacedConfigMap({ name, namespace, body: { metadata: { name: 'renamed' } } }, asPatch.merge()),
    );
    expect([400, 422]).to.include(status.code);
    expect((await core.readNamespacedConfigMap({ name, namespace })).metadata?.name).to.equal(name);
  });

  it('merge and JSON patch work on custom resources; strategic merge patch gets 415', async () => {
    const { apiextensions, custom, namespace } = fixture();
    const crd = await createTestCrd(apiextensions, custom);
    const ref = { group: crd.group, version: crd.version, plural: crd.plural, namespace, name: 'w' };
    await custom.createNamespacedCustomObject({
      ...ref,
      body: { apiVersion: crd.apiVersion, kind: crd.kind, metadata: { name: 'w' }, spec: { size: 1, color: 'red' } },
    });
    const merged = (await custom.patchNamespacedCustomObject({ ...ref, body: { spec: { size: 2, color: null } } }, asPatch.merge())) as {
      spec?: Record<string, unknown>;
    };
    expect(merged.spec).to.deep.equal({ size: 2 });
    const jsonPatched = (await custom.patchNamespacedCustomObject(
      { ...ref, body: [{ op: 'add', path: '/spec/shape', value: 'round' }] },
      asPatch.json(),
    )) as { spec?: Record<string, unknown> };
    expect(jsonPatched.spec).to.deep.equal({ size: 2, shape: 'round' });
    const status = await catchApiStatus(custom.patchNamespacedCustomObject({ ...ref, body: { spec: { size: 3 } } }, asPatch.strategic()));
    expect(status).to.include({ code: 415, reason: 'UnsupportedMediaType' });
  });
});
