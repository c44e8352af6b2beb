import { expect } from 'chai';
import { catchApiStatus, isStatus, type ApiStatus } from '../helpers/api-status.js';
import { rawRequest, type RawRequest } from '../helpers/raw-request.js';
import { configMapsPath, createConfigMap, stored, useConformanceFixture } from './conformance-fixture.js';

describe('conformance: errors', () => {
  const fixture = useConformanceFixture();

  async function rawStatus(request: RawRequest): Promise<ApiStatus & { httpStatus: number }> {
    const response = await rawRequest(fixture().kubeConfig, {
      ...request,
      headers: { 'content-type': 'application/json', accept: 'application/json', ...request.headers },
    });
    const body = JSON.parse(response.text) as unknown;
    expect(isStatus(body), `a Status body, got ${response.text.slice(0, 200)}`).to.equal(true);
    const status = body as ApiStatus;
    expect(status.code, 'Status.code equals the HTTP status').to.equal(response.status);
    expect(status).to.include({ kind: 'Status', apiVersion: 'v1', status: 'Failure' });
    return { ...status, httpStatus: response.status };
  }

  it('a missing object is a 404 NotFound Status naming the object and its resource', async () => {
    const { namespace } = fixture();
    const status = await rawStatus({ path: `${configMapsPath(namespace)}/nowhere` });
    expect(status).to.include({ code: 404, reason: 'NotFound' });
    expect(status.details).to.include({ name: 'nowhere', kind: 'configmaps' });
    expect(status.message).to.contain('nowhere');
  });

  it('creating in a namespace that does not exist fails with 404 NotFound naming the namespace', async () => {
    const { core } = fixture();
    const status = await catchApiStatus(createConfigMap(core, 'no-such-namespace-kx'));
    expect(status).to.include({ code: 404, reason: 'NotFound' });
    expect(status.message).to.contain('no-such-namespace-kx');
  });

  it('malformed JSON is a 400 BadRequest and stores nothing', async () => {
    const { core, namespace } = fixture();
    const status = await rawStatus({
      method: 'POST',
      path: configMapsPath(namespace),
      body: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"broken"',
    });
    expect(status).to.include({ code: 400, reason: 'BadRequest' });
    expect((await core.listNamespacedConfigMap({ namespace })).items).to.deep.equal([]);
  });

  it('a missing name is a 422 Invalid naming metadata.name', async () => {
    const { namespace } = fixture();
    const status = await rawStatus({
      method: 'POST',
      path: configMapsPath(namespace),
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: {}, data: { a: 'b' } }),
    });
    expect(status).to.include({ code: 422, reason: 'Invalid' });
    expect(status.details?.causes?.map((c) => c.field)).to.include('metadata.name');
  });

  it('a name that is not a DNS subdomain is a 422 Invalid naming metadata.name', async () => {
    const { core, namespace } = fixture();
    const status = await catchApiStatus(createConfigMap(core, namespace, { name: 'Not_Valid!' }));
    expect(status).to.include({ code: 422, reason: 'Invalid' });
    expect(status.details?.name).to.equal('Not_Valid!');
    expect(status.details?.causes?.map((c) => c.field)).to.include('metadata.name');
  });

  it('an invalid data key is a 422 Invalid naming the field, and the stored object is unchanged', async () => {
    const { core, namespace } = fixture();
    const created = await createConfigMap(core, namespace, { data: { good: '1' } });
    const { name, resourceVersion } = stored(created);
    const status = await catchApiStatus(
      core.replaceNamespacedConfigMap({ name, namespace, body: { ...created, data: { 'bad key!': '1' } } }),
    );
    expect(status).to.include({ code: 422, reason: 'Invalid' });
    expect(status.details?.name).to.equal(name);
    expect(status.details?.causes?.map((c) => c.field ?? '').join(' ')).to.contain('bad key!');
    const read = await core.readNamespacedConfigMap({ name, namespace });
    expect(read.data).to.deep.equal({ good: '1' });
    expect(read.metadata?.resourceVersion).to.equal(resourceVersion);
  });

  it('a body of the wrong kind for the path is a 400 BadRequest', async () => {
    const { namespace } = fixture();
    const status = await rawStatus({
      method: 'POST',
      path: configMapsPath(namespace),
      body: JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'wrong-kind' }, stringData: { a: 'b' } }),
    });
    expect(status).to.include({ code: 400, reason: 'BadRequest' });
  });

  it('a body whose namespace differs from the path is a 400 BadRequest', async () => {
    const { namespace } = fixture();
    const status = await rawStatus({
      method: 'POST',
      path: configMapsPath(namespace),
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'elsewhere' } }),
    });
    expect(status).to.include({ code: 400, reason: 'BadRequest' });
    expect(status.message).to.contain('namespace');
  });

  it('an update whose body names another object than the path is a 400 BadRequest', async () => {
    const { core, namespace } = fixture();
    const created = await createConfigMap(core, namespace);
    const { name } = stored(created);
    const status = await rawStatus({
      method: 'PUT',
      path: `${configMapsPath(namespace)}/${name}`,
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'another-name' }, data: {} }),
    });
    expect(status).to.include({ code: 400, reason: 'BadRequest' });
    expect((await core.readNamespacedConfigMap({ name, namespace })).data).to.deep.equal(created.data);
  });

  it('an unknown resource is a 404 NotFound Status', async () => {
    const { namespace } = fixture();
    const status = await rawStatus({ path: `/api/v1/namespaces/${namespace}/gizmos` });
    expect(status).to.include({ code: 404, reason: 'NotFound' });
  });

  it('an unknown API group answers 404', async () => {
    const response = await rawRequest(fixture().kubeConfig, { path: '/apis/nothing.kindex.test/v1/gizmos' });
    expect(response.status).to.equal(404);
  });

  it('an unsupported content type is a 415 UnsupportedMediaType', async () => {
    const { namespace } = fixture();
    const status = await rawStatus({
      method: 'POST',
      path: configMapsPath(namespace),
      headers: { 'content-type': 'text/plain' },
      body: 'name: nope',
    });
    expect(status).to.include({ code: 415, reason: 'UnsupportedMediaType' });
  });

  it('keeps serving and keeps stored state intact after a burst of bad requests', async () => {
    const { core, namespace } = fixture();
    const created = await createConfigMap(core, namespace, { data: { safe: 'yes' } });
    const path = configMapsPath(namespace);
    const bad: RawRequest[] = [
      { method: 'POST', path, body: '' },
      { method: 'POST', path, body: 'null' },
      { method: 'POST', path, body: '[]' },
      { method: 'POST', path, body: '"text"' },
      { method: 'POST', path, body: '{"metadata": 5}' },
      { method: 'PUT', path: `${path}/${created.metadata!.name}`, body: '{"metadata":{"name":' },
      {
        method: 'PATCH',
        path: `${path}/${created.metadata!.name}`,
        headers: { 'content-type': 'application/merge-patch+json' },
        body: '{{',
      },
      { method: 'GET', path: `${path}?labelSelector=${encodeURIComponent('a in (')}` },
      { method: 'GET', path: `${path}?fieldSelector=${encodeURIComponent('spec.nothing=1')}` },
    ];
    for (const request of bad) {
      const response = await rawRequest(fixture().kubeConfig, {
        ...request,
        headers: { 'content-type': 'application/json', ...request.headers },
      });
      expect(response.status, `${request.method} ${request.path} ${String(request.body ?? '')}`).to.be.within(400, 499);
    }
    const read = await core.readNamespacedConfigMap({ name: created.metadata!.name!, namespace });
    expect(read.data).to.deep.equal({ safe: 'yes' });
    expect(read.metadata?.resourceVersion).to.equal(created.metadata?.resourceVersion);
    expect((await core.listNamespacedConfigMap({ namespace })).items).to.have.length(1);
  });
});
