import { PatchStrategy, setHeaderOptions, type V1ManagedFieldsEntry } from '@kubernetes/client-node';
import { expect } from 'chai';
import { catchApiStatus } from '../helpers/api-status.js';
import { rawRequest } from '../helpers/raw-request.js';
import { createTestCrd } from '../helpers/test-crd.js';
import { uniqueName } from '../helpers/unique-name.js';
import { asPatch, configMapsPath, useConformanceFixture } from './conformance-fixture.js';

const asApply = () => setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);

// managedFields without their timestamps, which only say when.
function owners(entries: V1ManagedFieldsEntry[] | undefined): Array<Record<string, unknown>> {
  return (entries ?? []).map(({ time: _time, ...rest }) => ({ ...rest }));
}

function configMap(name: string, data: Record<string, string>, labels?: Record<string, string>) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}) }, data };
}

describe('conformance: server-side apply', () => {
  const fixture = useConformanceFixture();

  it('creates a missing object (201) owned by the applier, and records ordinary writes as Update entries', async () => {
    const { core, kubeConfig, namespace } = fixture();
    const name = uniqueName('cm');
    const created = await rawRequest(kubeConfig, {
      method: 'PATCH',
      path: `${configMapsPath(namespace)}/${name}?fieldManager=applier`,
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
      // YAML, as an apply configuration may be written.
      body: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  a: "1"\n`,
    });
    expect(created.status).to.equal(201);
    const patched = await core.patchNamespacedConfigMap(
      { name, namespace, fieldManager: 'patcher', body: { data: { b: '2' }, metadata: { labels: { l: 'v' } } } },
      asPatch.merge(),
    );
    expect(patched.data).to.deep.equal({ a: '1', b: '2' });
    expect(owners(patched.metadata?.managedFields)).to.deep.equal([
      { manager: 'applier', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } },
      {
        manager: 'patcher',
        operation: 'Update',
        apiVersion: 'v1',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { 'f:b': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:l': {} } } },
      },
    ]);
  });

  it('a write without fieldManager is recorded under the User-Agent product name', async () => {
    const { kubeConfig, namespace } = fixture();
    const name = uniqueName('cm');
    const r = await rawRequest(kubeConfig, {
      method: 'POST',
      path: configMapsPath(namespace),
      headers: { 'Content-Type': 'application/json', 'User-Agent': 'kindex-probe/1.2.3 (linux)' },
      body: JSON.stringify(configMap(name, { k: 'v' })),
    });
    expect(r.status).to.equal(201);
    const entries = (JSON.parse(r.text) as { metadata: { managedFields: V1ManagedFieldsEntry[] } }).metadata.managedFields;
    expect(entries.map((e) => [e.manager, e.operation])).to.deep.equal([['kindex-probe', 'Update']]);
    expect(entries[0]!.fieldsV1).to.deep.equal({ 'f:data': { '.': {}, 'f:k': {} } });
  });

  it('apply without fieldManager is rejected with 422 naming the field', async () => {
    const { core, namespace } = fixture();
    const name = uniqueName('cm');
    const status = await catchApiStatus(core.patchNamespacedConfigMap({ name, namespace, body: configMap(name, { a: '1' }) }, asApply()));
    expect(status).to.include({ code: 422, reason: 'Invalid' });
    expect(status.details?.causes).to.deep.equal([
      { reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' },
    ]);
  });

  it('a field owned by another manager with another value is a 409 naming manager and field; force takes it over', async () => {
    const { core, namespace } = fixture();
    const name = uniqueName('cm');
    await core.createNamespacedConfigMap({ namespace, fieldManager: 'creator', body: configMap(name, { x: '1' }, { a: 'b' }) });
    await core.patchNamespacedConfigMap({ name, namespace, fieldManager: 'first', body: configMap(name, { y: '1' }) }, asApply());
    const status = await catchApiStatus(
      core.patchNamespacedConfigMap(
        { name, namespace, fieldManager: 'second', body: configMap(name, { x: '2', y: '2' }, { a: 'c' }) },
        asApply(),
      ),
    );
    expect(status).to.include({ code: 409, reason: 'Conflict' });
    expect(status.message).to.equal(
      'Apply failed with 3 conflicts: conflicts with "creator" using v1:\n- .data.x\n- .metadata.labels.a\nconflicts with "first":\n- .data.y',
    );
    // The real server's order of causes varies from call to call (Go map iteration); the message's does not.
    expect(status.details?.causes).to.have.deep.members([
      { reason: 'FieldManagerConflict', message: 'conflict with "first"', field: '.data.y' },
      { reason: 'FieldManagerConflict', message: 'conflict with "creator" using v1', field: '.data.x' },
      { reason: 'FieldManagerConflict', message: 'conflict with "creator" using v1', field: '.metadata.labels.a' },
    ]);
    const single = await catchApiStatus(
      core.patchNamespacedConfigMap({ name, namespace, fieldManager: 'second', body: configMap(name, { y: '2' }) }, asApply()),
    );
    expect(single.message).to.equal('Apply failed with 1 conflict: conflict with "first": .data.y');

    const forced = await core.patchNamespacedConfigMap(
      { name, namespace, fieldManager: 'second', force: true, body: configMap(name, { y: '2' }) },
      asApply(),
    );
    expect(forced.data).to.deep.equal({ x: '1', y: '2' });
    // "first" owned nothing else, so its entry is gone.
    expect(owners(forced.metadata?.managedFields).map((e) => [e['manager'], e['fieldsV1']])).to.deep.equal([
      ['second', { 'f:data': { 'f:y': {} } }],
      ['creator', { 'f:data': { '.': {}, 'f:x': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:a': {} } } }],
    ]);
  });

  it('fields an applier leaves out are removed unless another manager also owns them', async () => {
    const { core, namespace } = fixture();
    const name = uniqueName('cm');
    await core.patchNamespacedConfigMap(
      { name, namespace, fieldManager: 'one', body: configMap(name, { solo: 's', shared: 'x' }) },
      asApply(),
    );
    // The same value is no conflict: both managers own the field.
    const shared = await core.patchNamespacedConfigMap(
      { name, namespace, fieldManager: 'two', body: configMap(name, { shared: 'x' }) },
      asApply(),
    );
    // "two" changed nothing, so its entry has no time and sorts first.
    expect(shared.metadata?.managedFields?.map((e) => [e.manager, e.fieldsV1, e.time === undefined])).to.deep.equal([
      ['two', { 'f:data': { 'f:shared': {} } }, true],
      ['one', { 'f:data': { 'f:shared': {}, 'f:solo': {} } }, false],
    ]);
    const after = await core.patchNamespacedConfigMap({ name, namespace, fieldManager: 'one', body: configMap(name, {}) }, asApply());
    expect(after.data).to.deep.equal({ shared: 'x' });
    expect(owners(after.metadata?.managedFields).map((e) => e['manager'])).to.deep.equal(['two', 'one']);
  });

  it('an apply that changes nothing writes nothing (same resourceVersion)', async () => {
    const { core, namespace } = fixture();
    const name = uniqueName('cm');
    const first = await core.patchNamespacedConfigMap({ name, namespace, fieldManager: 'm', body: configMap(name, { a: '1' }) }, asApply());
    const again = await core.patchNamespacedConfigMap({ name, namespace, fieldManager: 'm', body: configMap(name, { a: '1' }) }, asApply());
    expect(again.metadata?.resourceVersion).to.equal(first.metadata?.resourceVersion);
  });

  it('containers are owned by name and container ports by containerPort and protocol', async () => {
    const { core, namespace } = fixture();
    const name = uniqueName('pod');
    const pod = (manager: string, containers: unknown[]) =>
      core.patchNamespacedPod(
        { name, namespace, fieldManager: manager, body: { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers } } },
        asApply(),
      );
    const first = await pod('web', [{ name: 'web', image: 'nginx:1', ports: [{ containerPort: 80 }] }]);
    expect(first.metadata?.managedFields?.[0]?.fieldsV1).to.deep.equal({
      'f:spec': {
        'f:containers': {
          'k:{"name":"web"}': {
            '.': {},
            'f:image': {},
            'f:name': {},
            'f:ports': { 'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} } },
          },
        },
      },
    });
    const status = await catchApiStatus(pod('other', [{ name: 'web', image: 'nginx:2' }]));
    expect(status.code).to.equal(409);
    expect(status.details?.causes?.map((c) => c.field)).to.deep.equal(['.spec.containers[name="web"].image']);
  });

  it('custom resources: list items of x-kubernetes-list-type map are owned by key, other lists whole', async () => {
    const { apiextensions, custom, namespace } = fixture();
    const crd = await createTestCrd(apiextensions, custom, {
      specSchema: {
        type: 'object',
        properties: {
          items: {
            type: 'array',
            x_kubernetes_list_type: 'map',
            x_kubernetes_list_map_keys: ['name'],
            items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, size: { type: 'integer' } } },
          },
          tags: { type: 'array', items: { type: 'string' } },
        },
      },
    });
    const name = uniqueName('w');
    const apply = (manager: string, spec: unknown, force = false) =>
      custom.patchNamespacedCustomObject(
        {
          group: crd.group,
          version: crd.version,
          plural: crd.plural,
          namespace,
          name,
          fieldManager: manager,
          force,
          body: { apiVersion: crd.apiVersion, kind: crd.kind, metadata: { name }, spec },
        },
        asApply(),
      ) as Promise<{ spec: unknown; metadata: { managedFields: V1ManagedFieldsEntry[] } }>;
    await apply('a', { items: [{ name: 'one', size: 1 }], tags: ['x'] });
    // Another item of the same list is no conflict: items are owned one by one.
    const both = await apply('b', { items: [{ name: 'two', size: 2 }] });
    expect(both.spec).to.deep.equal({
      items: [
        { name: 'one', size: 1 },
        { name: 'two', size: 2 },
      ],
      tags: ['x'],
    });
    expect(both.metadata.managedFields.find((e) => e.manager === 'b')?.fieldsV1).to.deep.equal({
      'f:spec': { 'f:items': { 'k:{"name":"two"}': { '.': {}, 'f:name': {}, 'f:size': {} } } },
    });
    const status = await catchApiStatus(apply('b', { items: [{ name: 'two', size: 2 }], tags: ['y'] }));
    expect(status.details?.causes).to.deep.equal([{ reason: 'FieldManagerConflict', message: 'conflict with "a"', field: '.spec.tags' }]);
    // Giving up an item removes it.
    const dropped = await apply('b', { items: [] });
    expect(dropped.spec).to.deep.equal({ items: [{ name: 'one', size: 1 }], tags: ['x'] });
  });

  it('apply on the status subresource owns status fields only, in an entry of its own', async () => {
    const { apiextensions, custom, namespace } = fixture();
    const crd = await createTestCrd(apiextensions, custom);
    const name = uniqueName('w');
    const coords = { group: crd.group, version: crd.version, plural: crd.plural, namespace, name };
    await custom.patchNamespacedCustomObject(
      { ...coords, fieldManager: 'spec-owner', body: { apiVersion: crd.apiVersion, kind: crd.kind, metadata: { name }, spec: { a: 1 } } },
      asApply(),
    );
    const applied = (await custom.patchNamespacedCustomObjectStatus(
      {
        ...coords,
        fieldManager: 'status-owner',
        body: { apiVersion: crd.apiVersion, kind: crd.kind, metadata: { name }, spec: { a: 2 }, status: { ready: true } },
      },
      asApply(),
    )) as { spec: unknown; status: unknown; metadata: { managedFields: V1ManagedFieldsEntry[] } };
    expect(applied.spec).to.deep.equal({ a: 1 });
    expect(applied.status).to.deep.equal({ ready: true });
    expect(owners(applied.metadata.managedFields)).to.deep.equal([
      {
        manager: 'spec-owner',
        operation: 'Apply',
        apiVersion: crd.apiVersion,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:spec': { 'f:a': {} } },
      },
      {
        manager: 'status-owner',
        operation: 'Apply',
        apiVersion: crd.apiVersion,
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:status': { 'f:ready': {} } },
        subresource: 'status',
      },
    ]);
    await custom.patchNamespacedCustomObjectStatus(
      { ...coords, fieldManager: 'merger', body: { status: { phase: 'x' } } },
      asPatch.merge(),
    );
    const status = await catchApiStatus(
      custom.patchNamespacedCustomObjectStatus(
        {
          ...coords,
          fieldManager: 'late',
          body: { apiVersion: crd.apiVersion, kind: crd.kind, metadata: { name }, status: { phase: 'y' } },
        },
        asApply(),
      ),
    );
    expect(status.message).to.equal(
      `Apply failed with 1 conflict: conflict with "merger" with subresource "status" using ${crd.apiVersion}: .status.phase`,
    );
  });

  it('dry run applies nothing but answers with the object and its managedFields', async () => {
    const { core, namespace } = fixture();
    const name = uniqueName('cm');
    const answer = await core.patchNamespacedConfigMap(
      { name, namespace, fieldManager: 'dry', dryRun: 'All', body: configMap(name, { a: '1' }) },
      asApply(),
    );
    expect(answer.data).to.deep.equal({ a: '1' });
    expect(answer.metadata?.managedFields?.map((e) => [e.manager, e.operation])).to.deep.equal([['dry', 'Apply']]);
    const status = await catchApiStatus(core.readNamespacedConfigMap({ name, namespace }));
    expect(status.code).to.equal(404);
  });

  it('force on a patch that is not an apply is rejected with 422', async () => {
    const { core, namespace } = fixture();
    const name = uniqueName('cm');
    await core.createNamespacedConfigMap({ namespace, body: configMap(name, { a: '1' }) });
    const status = await catchApiStatus(
      core.patchNamespacedConfigMap({ name, namespace, force: true, body: { data: { a: '2' } } }, asPatch.merge()),
    );
    expect(status).to.include({ code: 422 });
    expect(status.details?.causes?.map((c) => c.field)).to.deep.equal(['force']);
  });

  it('an apply body without kind and apiVersion is rejected with 400', async () => {
    const { core, namespace } = fixture();
    const name = uniqueName('cm');
    const status = await catchApiStatus(
      core.patchNamespacedConfigMap({ name, namespace, fieldManager: 'm', body: { metadata: { name }, data: { a: '1' } } }, asApply()),
    );
    expect(status).to.include({ code: 400, reason: 'BadRequest', message: 'invalid object type: /, Kind=' });
  });
});
