import { expect } from 'chai';
import type { ApiStatus } from '../helpers/api-status.js';
import { createTestCrd } from '../helpers/test-crd.js';
import { rawRequest, type RawResponse } from '../helpers/raw-request.js';
import { uniqueName } from '../helpers/unique-name.js';
import { configMapsPath, useConformanceFixture } from './conformance-fixture.js';

// `?fieldValidation=`: Strict refuses unknown fields, Warn (the default) answers with a Warning
// header per field, Ignore is silent; the fields are never stored. Wording is kube-apiserver
// 1.36.3's. Node joins repeated Warning headers with ", ", on both servers alike.
describe('conformance: field validation', () => {
  const fixture = useConformanceFixture();

  async function send(method: string, path: string, body: unknown, contentType = 'application/json'): Promise<RawResponse> {
    return rawRequest(fixture().kubeConfig, {
      method,
      path,
      headers: { 'content-type': contentType, accept: 'application/json' },
      body: JSON.stringify(body),
    });
  }

  function service(name: string): Record<string, unknown> {
    return {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, extra: 1 },
      spec: { bogus: 1, ports: [{ port: 80, bad: 2 }] },
      top: 3,
    };
  }
  const serviceUnknown = ['metadata.extra', 'spec.bogus', 'spec.ports[0].bad', 'top'];
  const warningsOf = (fields: string[]) => fields.map((f) => `299 - "unknown field \\"${f}\\""`).join(', ');

  it('Strict refuses unknown fields of a built-in kind with 400 naming each, on create and update', async () => {
    const { namespace } = fixture();
    const name = uniqueName('svc');
    const services = `/api/v1/namespaces/${namespace}/services`;
    const created = await send('POST', `${services}?fieldValidation=Strict`, service(name));
    const status = JSON.parse(created.text) as ApiStatus;
    const expected = `Service in version "v1" cannot be handled as a Service: strict decoding error: ${serviceUnknown.map((f) => `unknown field "${f}"`).join(', ')}`;
    expect(status).to.include({ code: 400, reason: 'BadRequest', message: expected });
    expect((await rawRequest(fixture().kubeConfig, { path: `${services}/${name}` })).status, 'nothing stored').to.equal(404);
    expect(
      (await send('POST', services, { ...service(name), metadata: { name }, top: undefined, spec: { ports: [{ port: 80 }] } })).status,
    ).to.equal(201);
    const updated = await send('PUT', `${services}/${name}?fieldValidation=Strict`, { ...service(name), metadata: { name } });
    expect(JSON.parse(updated.text)).to.include({
      code: 400,
      message: `Service in version "v1" cannot be handled as a Service: strict decoding error: unknown field "spec.bogus", unknown field "spec.ports[0].bad", unknown field "top"`,
    });
  });

  it('Warn, the default, writes the object without the unknown fields and names each in a Warning header', async () => {
    const { namespace } = fixture();
    const name = uniqueName('svc');
    const response = await send('POST', `/api/v1/namespaces/${namespace}/services`, service(name));
    expect(response.status).to.equal(201);
    expect(response.headers['warning']).to.equal(warningsOf(serviceUnknown));
    const stored = JSON.parse(
      (await rawRequest(fixture().kubeConfig, { path: `/api/v1/namespaces/${namespace}/services/${name}` })).text,
    ) as {
      metadata: Record<string, unknown>;
      spec: { bogus?: unknown; ports: Record<string, unknown>[] };
      top?: unknown;
    };
    expect(stored.metadata).to.not.have.property('extra');
    expect(stored.spec).to.not.have.property('bogus');
    expect(stored.spec.ports[0]).to.not.have.property('bad');
    expect(stored).to.not.have.property('top');
  });

  it('Ignore drops unknown fields without a warning', async () => {
    const { namespace } = fixture();
    const name = uniqueName('cm');
    const response = await send('POST', `${configMapsPath(namespace)}?fieldValidation=Ignore`, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name },
      bogus: 1,
    });
    expect(response.status).to.equal(201);
    expect(response.headers['warning']).to.equal(undefined);
    expect(JSON.parse(response.text)).to.not.have.property('bogus');
  });

  it('patches: Warn names the unknown fields, Strict is a 422 on the patch', async () => {
    const { namespace } = fixture();
    const name = uniqueName('svc');
    const path = `/api/v1/namespaces/${namespace}/services/${name}`;
    expect(
      (
        await send('POST', `/api/v1/namespaces/${namespace}/services`, {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name },
          spec: { ports: [{ port: 80 }] },
        })
      ).status,
    ).to.equal(201);
    const merge = await send('PATCH', path, { spec: { bogus: 1 } }, 'application/merge-patch+json');
    expect(merge.status).to.equal(200);
    expect(merge.headers['warning']).to.equal(warningsOf(['spec.bogus']));
    const json = await send('PATCH', path, [{ op: 'add', path: '/spec/bogus', value: 1 }], 'application/json-patch+json');
    expect(json.headers['warning']).to.equal(warningsOf(['spec.bogus']));
    const strategic = JSON.parse(
      (await send('PATCH', `${path}?fieldValidation=Strict`, { spec: { bogus: 1 } }, 'application/strategic-merge-patch+json')).text,
    ) as ApiStatus;
    const cause = 'Invalid value: "map[spec:map[bogus:1]]": strict decoding error: unknown field "spec.bogus"';
    expect(strategic).to.deep.include({ code: 422, reason: 'Invalid', message: ` "" is invalid: patch: ${cause}` });
    expect(strategic.details).to.deep.equal({ causes: [{ reason: 'FieldValueInvalid', field: 'patch', message: cause }] });
    // A merge patch shows the whole patched object, which differs between servers beyond the fields compared here.
    const mergeStrict = JSON.parse(
      (await send('PATCH', `${path}?fieldValidation=Strict`, { spec: { bogus: 1 } }, 'application/merge-patch+json')).text,
    ) as ApiStatus;
    expect(mergeStrict).to.include({ code: 422, reason: 'Invalid' });
    expect(mergeStrict.message).to.match(
      /^ "" is invalid: patch: Invalid value: "\{\\"apiVersion\\":\\"v1\\",\\"kind\\":\\"Service\\",.*\}": strict decoding error: unknown field "spec\.bogus"$/,
    );
    const stored = JSON.parse((await rawRequest(fixture().kubeConfig, { path })).text) as { spec: Record<string, unknown> };
    expect(stored.spec).to.not.have.property('bogus');
  });

  it('server-side apply of an undeclared field fails with 500, whatever fieldValidation says', async () => {
    const { namespace } = fixture();
    const name = uniqueName('svc');
    const response = await send(
      'PATCH',
      `/api/v1/namespaces/${namespace}/services/${name}?fieldManager=test&fieldValidation=Ignore`,
      { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace }, spec: { bogus: 1, ports: [{ port: 80 }] } },
      'application/apply-patch+yaml',
    );
    expect(JSON.parse(response.text)).to.include({
      code: 500,
      message: `failed to create typed patch object (${namespace}/${name}; /v1, Kind=Service): .spec.bogus: field not declared in schema`,
    });
  });

  it('custom resources: unknown fields outside the CRD schema are refused under Strict and named under Warn', async () => {
    const { apiextensions, custom, namespace } = fixture();
    const crd = await createTestCrd(apiextensions, custom, {
      specSchema: {
        type: 'object',
        properties: {
          size: { type: 'integer' },
          items: { type: 'array', items: { type: 'object', properties: { n: { type: 'string' } } } },
        },
      },
    });
    const path = `/apis/${crd.group}/${crd.version}/namespaces/${namespace}/${crd.plural}`;
    const body = (name: string) => ({
      apiVersion: crd.apiVersion,
      kind: crd.kind,
      metadata: { name, extra: 1 },
      spec: { size: 1, bogus: 2, items: [{ n: 'a', x: 1 }] },
      top: 1,
    });
    const unknown = ['metadata.extra', 'spec.bogus', 'spec.items[0].x', 'top'];
    const strict = JSON.parse((await send('POST', `${path}?fieldValidation=Strict`, body('strict'))).text) as ApiStatus;
    expect(strict).to.include({
      code: 400,
      message: `${crd.kind} in version "v1" cannot be handled as a ${crd.kind}: strict decoding error: ${unknown.map((f) => `unknown field "${f}"`).join(', ')}`,
    });
    const warned = await send('POST', path, body('warned'));
    expect(warned.status).to.equal(201);
    expect(warned.headers['warning']).to.equal(warningsOf(unknown));
    expect((JSON.parse(warned.text) as { spec: unknown }).spec).to.deep.equal({ size: 1, items: [{ n: 'a' }] });
  });

  it('repeated keys in a JSON body: Strict refuses them, Warn names them and keeps the last value', async () => {
    const { kubeConfig, namespace } = fixture();
    const post = (path: string, text: string) =>
      rawRequest(kubeConfig, {
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: text,
      });
    const name = uniqueName('svc');
    const strict = await post(
      `/api/v1/namespaces/${namespace}/services?fieldValidation=Strict`,
      `{"apiVersion":"v1","kind":"Service","metadata":{"name":"${name}"},"spec":{"ports":[{"port":80}],"ports":[{"port":81}]}}`,
    );
    expect(JSON.parse(strict.text)).to.include({
      code: 400,
      message: 'Service in version "v1" cannot be handled as a Service: strict decoding error: duplicate field "spec.ports"',
    });
    const cm = uniqueName('cm');
    const warned = await post(configMapsPath(namespace), `{"metadata":{"name":"${cm}"},"data":{"a":"1","a":"2"}}`);
    expect(warned.status).to.equal(201);
    expect(warned.headers['warning']).to.equal('299 - "duplicate field \\"data.a\\""');
    expect((JSON.parse(warned.text) as { data: unknown }).data).to.deep.equal({ a: '2' });
  });
});
