import { expect } from 'chai';
import { createTestCrd, type TestCrd } from '../helpers/test-crd.js';
import { rawRequest, type RawResponse } from '../helpers/raw-request.js';
import { decodeCbor, decodeCborSequence, encodeCbor } from '../apiserver/negotiation/kube-cbor.js';
import { configMapsPath, useConformanceFixture } from './conformance-fixture.js';

const CBOR = 'application/cbor';
const SELF_DESCRIBED = [0xd9, 0xd9, 0xf7];
const SERVED = 'application/json, application/yaml, application/vnd.kubernetes.protobuf, application/cbor';

/** Checks what kube-apiserver's CBOR serializer writes: the tag 55799 head, then a map whose first key is a byte string. */
function expectKubeCbor(bytes: Uint8Array): void {
  expect([...bytes.subarray(0, 3)], 'the self-described CBOR tag first').to.deep.equal(SELF_DESCRIBED);
  expect(bytes[3]! >> 5, 'a map').to.equal(5);
  expect(bytes[4]! >> 5, 'its keys are byte strings (major type 2)').to.equal(2);
}

function json(r: RawResponse): { message?: string; metadata?: { resourceVersion?: string } } {
  expect(r.headers['content-type']).to.equal('application/json');
  return JSON.parse(r.text) as { message?: string };
}

describe('conformance: CBOR for custom resources (CBORServingAndStorage)', () => {
  const fixture = useConformanceFixture({ cborServingAndStorage: true });

  async function widgets(): Promise<{ crd: TestCrd; path: string }> {
    const { namespace, apiextensions, custom } = fixture();
    const crd = await createTestCrd(apiextensions, custom);
    return { crd, path: `/apis/${crd.group}/${crd.version}/namespaces/${namespace}/${crd.plural}` };
  }

  it('creates from a CBOR body, and answers get and list in CBOR equal to their JSON', async () => {
    const { kubeConfig } = fixture();
    const { crd, path } = await widgets();
    const body = encodeCbor({
      apiVersion: crd.apiVersion,
      kind: crd.kind,
      metadata: { name: 'w1', labels: { tier: 'web' } },
      spec: { replicas: 3, ratio: 1.5, on: true },
    });
    const created = await rawRequest(kubeConfig, { method: 'POST', path, headers: { 'content-type': CBOR, accept: CBOR }, body });
    expect(created.status, created.text).to.equal(201);
    expect(created.headers['content-type']).to.equal(CBOR);
    expectKubeCbor(created.bytes);
    expect(decodeCbor(created.bytes)).to.deep.include({ spec: { replicas: 3, ratio: 1.5, on: true } });

    const one = await rawRequest(kubeConfig, { path: `${path}/w1`, headers: { accept: `${CBOR};q=1, application/json;q=0.9` } });
    expect(one.headers['content-type']).to.equal(CBOR);
    expectKubeCbor(one.bytes);
    const asJson = await rawRequest(kubeConfig, { path: `${path}/w1` });
    expect(decodeCbor(one.bytes)).to.deep.equal(JSON.parse(asJson.text));

    const list = await rawRequest(kubeConfig, { path, headers: { accept: CBOR } });
    expect(list.headers['content-type']).to.equal(CBOR);
    expectKubeCbor(list.bytes);
    const decoded = decodeCbor(list.bytes) as {
      kind: string;
      items: { metadata: { name: string } }[];
      metadata: { resourceVersion: string };
    };
    expect(decoded.kind).to.equal(`${crd.kind}List`);
    expect(decoded.items.map((i) => i.metadata.name)).to.deep.equal(['w1']);
    expect(decoded.metadata.resourceVersion).to.match(/^\d+$/);
  });

  it('streams a watch as application/cbor-seq: one tagged {type, object} item an event', async () => {
    const { kubeConfig } = fixture();
    const { crd, path } = await widgets();
    for (const name of ['w1', 'w2']) {
      const body = JSON.stringify({ apiVersion: crd.apiVersion, kind: crd.kind, metadata: { name }, spec: { replicas: 1 } });
      expect(
        (await rawRequest(kubeConfig, { method: 'POST', path, headers: { 'content-type': 'application/json' }, body })).status,
      ).to.equal(201);
    }
    const watch = await rawRequest(kubeConfig, {
      path: `${path}?watch=true&resourceVersion=0&timeoutSeconds=1`,
      headers: { accept: CBOR },
    });
    expect(watch.status).to.equal(200);
    expect(watch.headers['content-type']).to.equal('application/cbor-seq');
    expectKubeCbor(watch.bytes);
    const events = decodeCborSequence(watch.bytes) as { type: string; object: { metadata: { name: string } } }[];
    expect(events.map((e) => `${e.type} ${e.object.metadata.name}`).sort()).to.deep.equal(['ADDED w1', 'ADDED w2']);
  });

  it('answers JSON when CBOR is not the first choice, and 406 for application/cbor-seq, listing CBOR', async () => {
    const { kubeConfig } = fixture();
    const { path } = await widgets();
    const fallback = await rawRequest(kubeConfig, { path, headers: { accept: `${CBOR};q=0.5, application/json` } });
    expect(fallback.status).to.equal(200);
    json(fallback);
    for (const accept of ['application/cbor-seq', 'text/html']) {
      const refused = await rawRequest(kubeConfig, { path: `${path}?watch=true&timeoutSeconds=1`, headers: { accept } });
      expect(refused.status, accept).to.equal(406);
      expect(json(refused).message).to.equal(`only the following media types are accepted: ${SERVED}`);
    }
  });

  it('lists CBOR in the 406 of a built-in object, and application/cbor-seq in that of a YAML watch', async () => {
    const { kubeConfig, namespace } = fixture();
    const cms = configMapsPath(namespace);
    const html = await rawRequest(kubeConfig, { path: `${cms}/missing`, headers: { accept: 'text/html' } });
    expect(html.status).to.equal(406);
    expect(json(html).message).to.equal(`406: Not Acceptable\n\nAvailable representations: ${SERVED}`);
    const yaml = await rawRequest(kubeConfig, { path: `${cms}?watch=true&timeoutSeconds=1`, headers: { accept: 'application/yaml' } });
    expect(yaml.status).to.equal(406);
    expect(yaml.headers['content-type']).to.equal('application/yaml');
    expect(yaml.text).to.include('application/cbor-seq');
    const cborWatch = await rawRequest(kubeConfig, { path: `${cms}?watch=true&timeoutSeconds=1`, headers: { accept: CBOR } });
    expect(cborWatch.headers['content-type']).to.equal('application/cbor-seq');
  });

  it('answers 400 with kube-apiserver wording for a body that is not CBOR', async () => {
    const { kubeConfig } = fixture();
    const { crd, path } = await widgets();
    const bad = await rawRequest(kubeConfig, {
      method: 'POST',
      path,
      headers: { 'content-type': CBOR },
      body: Uint8Array.from([...SELF_DESCRIBED, 0xff]),
    });
    expect(bad.status).to.equal(400);
    expect(json(bad).message).to.match(
      new RegExp(`^the object provided is unrecognized \\(must be of type ${crd.kind}\\): .*\\(d9d9f7ff\\)$`),
    );
  });
});
