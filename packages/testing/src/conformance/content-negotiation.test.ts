import { create, fromBinary, toBinary, type DescMessage, type MessageShape } from '@bufbuild/protobuf';
import { expect } from 'chai';
import { parse as parseYaml } from 'yaml';
import { DeploymentSchema } from '../apiserver/negotiation/protobuf/generated/k8s.io/api/apps/v1/generated_pb.js';
import { SelfSubjectAccessReviewSchema } from '../apiserver/negotiation/protobuf/generated/k8s.io/api/authorization/v1/generated_pb.js';
import { LeaseSchema } from '../apiserver/negotiation/protobuf/generated/k8s.io/api/coordination/v1/generated_pb.js';
import {
  ConfigMapListSchema,
  ConfigMapSchema,
  PodSchema,
} from '../apiserver/negotiation/protobuf/generated/k8s.io/api/core/v1/generated_pb.js';
import { CustomResourceDefinitionSchema } from '../apiserver/negotiation/protobuf/generated/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1/generated_pb.js';
import {
  APIResourceListSchema,
  DeleteOptionsSchema,
  StatusSchema,
  WatchEventSchema,
} from '../apiserver/negotiation/protobuf/generated/k8s.io/apimachinery/pkg/apis/meta/v1/generated_pb.js';
import { UnknownSchema } from '../apiserver/negotiation/protobuf/generated/k8s.io/apimachinery/pkg/runtime/generated_pb.js';
import { ApiextensionsV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { createTestCrd } from '../helpers/test-crd.js';
import { rawRequest, type RawResponse } from '../helpers/raw-request.js';
import { uniqueName } from '../helpers/unique-name.js';
import { configMapsPath, createConfigMap, getAccepting, useConformanceFixture } from './conformance-fixture.js';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const MAGIC = Buffer.from('k8s\0', 'latin1');
const SERVED = 'application/json, application/yaml, application/vnd.kubernetes.protobuf';

/** A protobuf body as client-go writes it: the magic, then a runtime.Unknown around the kind's message. */
function wrap<Desc extends DescMessage>(schema: Desc, apiVersion: string, kind: string, message: MessageShape<Desc>): Uint8Array {
  const raw = toBinary(schema, message);
  return Buffer.concat([MAGIC, toBinary(UnknownSchema, create(UnknownSchema, { typeMeta: { apiVersion, kind }, raw }))]);
}

/** The runtime.Unknown of a protobuf answer, after checking its magic. */
function unwrap(body: Uint8Array): { apiVersion: string; kind: string; raw: Uint8Array } {
  expect(Buffer.from(body.subarray(0, 4)).equals(MAGIC), 'the answer starts with k8s\\0').to.equal(true);
  const unknown = fromBinary(UnknownSchema, body.subarray(4));
  return { apiVersion: unknown.typeMeta?.apiVersion ?? '', kind: unknown.typeMeta?.kind ?? '', raw: unknown.raw ?? new Uint8Array() };
}

function status(r: RawResponse): { code: number; reason: string; message: string } {
  return r.headers['content-type'] === PROTOBUF
    ? (() => {
        const s = fromBinary(StatusSchema, unwrap(r.bytes).raw);
        return { code: s.code ?? 0, reason: s.reason ?? '', message: s.message ?? '' };
      })()
    : (() => {
        const text = r.headers['content-type'] === 'application/yaml' ? (parseYaml(r.text) as unknown) : (JSON.parse(r.text) as unknown);
        return text as { code: number; reason: string; message: string };
      })();
}

describe('conformance: content negotiation (protobuf, YAML, 406, 415)', () => {
  const fixture = useConformanceFixture();

  it('answers a built-in object and list in protobuf when asked, first choice or not', async () => {
    const { core, kubeConfig, namespace } = fixture();
    const cm = await createConfigMap(core, namespace, { data: { a: 'b' }, labels: { l: 'v' } });
    const name = cm.metadata!.name!;
    for (const accept of [PROTOBUF, `${PROTOBUF}, application/json`]) {
      const one = await getAccepting(kubeConfig, `${configMapsPath(namespace)}/${name}`, accept);
      expect(one.status).to.equal(200);
      expect(one.headers['content-type']).to.equal(PROTOBUF);
      const unknown = unwrap(one.bytes);
      expect(unknown).to.include({ apiVersion: 'v1', kind: 'ConfigMap' });
      const decoded = fromBinary(ConfigMapSchema, unknown.raw);
      expect(decoded.metadata?.name).to.equal(name);
      expect(decoded.metadata?.resourceVersion).to.equal(cm.metadata!.resourceVersion);
      expect(decoded.metadata?.labels).to.deep.equal({ l: 'v' });
      expect(decoded.data).to.deep.equal({ a: 'b' });
      // Time is whole seconds since the epoch on the protobuf wire.
      expect(Number(decoded.metadata?.creationTimestamp?.seconds)).to.equal(Math.floor(cm.metadata!.creationTimestamp!.getTime() / 1000));
    }
    const list = await getAccepting(kubeConfig, configMapsPath(namespace), PROTOBUF);
    expect(list.headers['content-type']).to.equal(PROTOBUF);
    const unknown = unwrap(list.bytes);
    expect(unknown).to.include({ apiVersion: 'v1', kind: 'ConfigMapList' });
    const items = fromBinary(ConfigMapListSchema, unknown.raw);
    expect(items.items.map((i) => i.metadata?.name)).to.deep.equal([name]);
    expect(items.metadata?.resourceVersion).to.match(/^\d+$/);
  });

  it('decodes protobuf bodies of built-in kinds, keeping a pointer field set to zero', async () => {
    const { kubeConfig, namespace } = fixture();
    const name = uniqueName('pb');
    const body = wrap(ConfigMapSchema, 'v1', 'ConfigMap', create(ConfigMapSchema, { metadata: { name }, data: { a: 'b' } }));
    const created = await rawRequest(kubeConfig, {
      method: 'POST',
      path: configMapsPath(namespace),
      headers: { 'Content-Type': PROTOBUF, Accept: 'application/json' },
      body,
    });
    expect(created.status, created.text).to.equal(201);
    expect(created.headers['content-type']).to.equal('application/json');
    expect(JSON.parse(created.text)).to.deep.include({ kind: 'ConfigMap', data: { a: 'b' } });

    const deployment = create(DeploymentSchema, {
      metadata: { name },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: { containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', ports: [{ containerPort: 8080 }] }] },
        },
      },
    });
    const path = `/apis/apps/v1/namespaces/${namespace}/deployments`;
    const d = await rawRequest(kubeConfig, {
      method: 'POST',
      path,
      headers: { 'Content-Type': PROTOBUF, Accept: PROTOBUF },
      body: wrap(DeploymentSchema, 'apps/v1', 'Deployment', deployment),
    });
    expect(d.status).to.equal(201);
    expect(d.headers['content-type']).to.equal(PROTOBUF);
    const answered = fromBinary(DeploymentSchema, unwrap(d.bytes).raw);
    expect(answered.spec?.replicas).to.equal(0);
    const stored = JSON.parse((await rawRequest(kubeConfig, { path: `${path}/${name}` })).text) as {
      spec: { replicas: number; template: { spec: { containers: Array<{ ports: Array<{ containerPort: number; protocol: string }> }> } } };
    };
    expect(stored.spec.replicas).to.equal(0);
    expect(stored.spec.template.spec.containers[0]!.ports[0]).to.deep.equal({ containerPort: 8080, protocol: 'TCP' });
  });

  it('carries Quantity, IntOrString, embedded structs and MicroTime through protobuf both ways', async () => {
    const { kubeConfig, namespace } = fixture();
    const name = uniqueName('pod');
    const pod = create(PodSchema, {
      metadata: { name },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'registry.k8s.io/pause:3.10',
            resources: { limits: { cpu: { string: '250m' }, memory: { string: '64Mi' } } },
            // Probe's handler and the key selector's LocalObjectReference are inline in JSON.
            readinessProbe: { handler: { httpGet: { path: '/ready', port: { type: 1n, strVal: 'http' } } } },
            livenessProbe: { handler: { tcpSocket: { port: { type: 0n, intVal: 8080 } } } },
            env: [{ name: 'A', valueFrom: { configMapKeyRef: { localObjectReference: { name: 'settings' }, key: 'a' } } }],
          },
        ],
      },
    });
    const path = `/api/v1/namespaces/${namespace}/pods`;
    const created = await rawRequest(kubeConfig, {
      method: 'POST',
      path,
      headers: { 'Content-Type': PROTOBUF, Accept: 'application/json' },
      body: wrap(PodSchema, 'v1', 'Pod', pod),
    });
    expect(created.status, created.text).to.equal(201);
    const container = (JSON.parse(created.text) as { spec: { containers: Array<Record<string, unknown>> } }).spec.containers[0]!;
    // (kube-apiserver also defaults requests to the limits; the embedded server does not yet.)
    expect(container['resources']).to.have.deep.property('limits', { cpu: '250m', memory: '64Mi' });
    expect(container['readinessProbe']).to.have.nested.property('httpGet.port', 'http');
    expect(container['readinessProbe']).to.have.nested.property('httpGet.path', '/ready');
    expect(container['livenessProbe']).to.have.nested.property('tcpSocket.port', 8080);
    expect(container['env']).to.deep.equal([{ name: 'A', valueFrom: { configMapKeyRef: { name: 'settings', key: 'a' } } }]);

    const read = await getAccepting(kubeConfig, `${path}/${name}`, PROTOBUF);
    const back = fromBinary(PodSchema, unwrap(read.bytes).raw).spec!.containers[0]!;
    expect(back.resources?.limits['cpu']?.string).to.equal('250m');
    expect(back.readinessProbe?.handler?.httpGet?.port).to.deep.include({ type: 1n, strVal: 'http' });
    expect(back.livenessProbe?.handler?.tcpSocket?.port).to.deep.include({ type: 0n, intVal: 8080 });
    expect(back.env[0]?.valueFrom?.configMapKeyRef?.localObjectReference?.name).to.equal('settings');

    const renewTime = '2026-11-25T21:20:30.123456Z';
    const lease = await rawRequest(kubeConfig, {
      method: 'POST',
      path: `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`,
      headers: { 'Content-Type': 'application/json', Accept: PROTOBUF },
      body: JSON.stringify({ metadata: { name }, spec: { holderIdentity: 'a', renewTime, leaseDurationSeconds: 15 } }),
    });
    expect(lease.status, lease.text).to.equal(201);
    const spec = fromBinary(LeaseSchema, unwrap(lease.bytes).raw).spec!;
    // MicroTime keeps its microseconds on the protobuf wire.
    expect(spec.renewTime).to.deep.include({ seconds: BigInt(Date.parse(renewTime) / 1000 - 0.123), nanos: 123_456_000 });
    expect(spec.leaseDurationSeconds).to.equal(15);
  });

  it('answers a CustomResourceDefinition in protobuf, its schema included', async () => {
    const { kubeConfig } = fixture();
    const crd = await createTestCrd(kubeConfig.makeApiClient(ApiextensionsV1Api), kubeConfig.makeApiClient(CustomObjectsApi), {
      specSchema: { type: 'object', properties: { size: { type: 'integer', minimum: 1 } }, x_kubernetes_preserve_unknown_fields: true },
    });
    const r = await rawRequest(kubeConfig, {
      path: `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.name}`,
      headers: { Accept: PROTOBUF },
    });
    expect(r.status).to.equal(200);
    const unknown = unwrap(r.bytes);
    expect(unknown).to.include({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' });
    const decoded = fromBinary(CustomResourceDefinitionSchema, unknown.raw);
    expect(decoded.spec?.names?.kind).to.equal(crd.kind);
    const spec = decoded.spec?.versions[0]?.schema?.openAPIV3Schema?.properties['spec'];
    expect(spec?.xKubernetesPreserveUnknownFields).to.equal(true);
    expect(spec?.properties['size']).to.deep.include({ type: 'integer', minimum: 1 });
  });

  it('decodes DeleteOptions sent in protobuf (a failed precondition is 409)', async () => {
    const { core, kubeConfig, namespace } = fixture();
    const cm = await createConfigMap(core, namespace);
    const r = await rawRequest(kubeConfig, {
      method: 'DELETE',
      path: `${configMapsPath(namespace)}/${cm.metadata!.name}`,
      headers: { 'Content-Type': PROTOBUF, Accept: PROTOBUF },
      body: wrap(DeleteOptionsSchema, 'v1', 'DeleteOptions', create(DeleteOptionsSchema, { preconditions: { uid: 'not-its-uid' } })),
    });
    expect(r.status).to.equal(409);
    expect(status(r)).to.deep.include({ code: 409, reason: 'Conflict' });
  });

  it('answers a SelfSubjectAccessReview sent in protobuf (kubectl auth can-i) in protobuf', async () => {
    const { kubeConfig, namespace } = fixture();
    const review = create(SelfSubjectAccessReviewSchema, {
      spec: { resourceAttributes: { namespace, verb: 'create', resource: 'configmaps' } },
    });
    const r = await rawRequest(kubeConfig, {
      method: 'POST',
      path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
      headers: { 'Content-Type': PROTOBUF, Accept: `${PROTOBUF}, application/json` },
      body: wrap(SelfSubjectAccessReviewSchema, 'authorization.k8s.io/v1', 'SelfSubjectAccessReview', review),
    });
    expect(r.status).to.equal(201);
    const unknown = unwrap(r.bytes);
    expect(unknown).to.include({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview' });
    const answered = fromBinary(SelfSubjectAccessReviewSchema, unknown.raw);
    expect(answered.status?.allowed).to.equal(true);
    expect(answered.spec?.resourceAttributes?.namespace).to.equal(namespace);
  });

  it('answers errors in protobuf when protobuf was asked for', async () => {
    const { kubeConfig, namespace } = fixture();
    const r = await getAccepting(kubeConfig, `${configMapsPath(namespace)}/missing`, PROTOBUF);
    expect(r.status).to.equal(404);
    expect(r.headers['content-type']).to.equal(PROTOBUF);
    expect(unwrap(r.bytes)).to.include({ apiVersion: 'v1', kind: 'Status' });
    expect(status(r)).to.deep.equal({ code: 404, reason: 'NotFound', message: 'configmaps "missing" not found' });
  });

  it('streams a protobuf watch as length-prefixed WatchEvents whose objects are protobuf', async () => {
    const { core, kubeConfig, namespace } = fixture();
    const cm = await createConfigMap(core, namespace, { data: { a: 'b' } });
    const watch = async (query: string) => {
      const r = await rawRequest(kubeConfig, {
        path: `${configMapsPath(namespace)}?watch=true&timeoutSeconds=1&fieldSelector=metadata.name%3D${cm.metadata!.name}${query}`,
        headers: { Accept: PROTOBUF },
      });
      expect(r.status).to.equal(200);
      expect(r.headers['content-type']).to.equal(`${PROTOBUF};stream=watch`);
      const events = [];
      for (let at = 0; at < r.bytes.length;) {
        const length = r.bytes.readUInt32BE(at);
        const event = fromBinary(WatchEventSchema, r.bytes.subarray(at + 4, at + 4 + length));
        events.push({ type: event.type, object: fromBinary(ConfigMapSchema, unwrap(event.object?.raw ?? new Uint8Array()).raw) });
        at += 4 + length;
      }
      return events;
    };
    const plain = await watch('');
    expect(plain.map((e) => e.type)).to.deep.equal(['ADDED']);
    expect(plain[0]!.object.data).to.deep.equal({ a: 'b' });
    // A watch-list (what informers on protobuf open) ends its initial events with a bookmark.
    const list = await watch('&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true');
    expect(list.map((e) => e.type)).to.deep.equal(['ADDED', 'BOOKMARK']);
    expect(list[1]!.object.metadata?.annotations).to.deep.equal({ 'k8s.io/initial-events-end': 'true' });
    expect(list[1]!.object.metadata?.resourceVersion).to.match(/^\d+$/);
  });

  it('answers discovery in protobuf, and 406 for HTML', async () => {
    const { kubeConfig } = fixture();
    const r = await getAccepting(kubeConfig, '/api/v1', `${PROTOBUF}, application/json`);
    expect(r.status).to.equal(200);
    expect(r.headers['content-type']).to.equal(PROTOBUF);
    const list = fromBinary(APIResourceListSchema, unwrap(r.bytes).raw);
    expect(list.groupVersion).to.equal('v1');
    const configmaps = list.resources.find((x) => x.name === 'configmaps');
    expect(configmaps).to.deep.include({ kind: 'ConfigMap', namespaced: true });
    expect(configmaps?.verbs?.items).to.include.members(['create', 'get', 'list', 'watch']);
    const html = await getAccepting(kubeConfig, '/api/v1', 'text/html');
    expect(html.status).to.equal(406);
    expect(status(html)).to.deep.include({
      reason: 'NotAcceptable',
      message: `406: Not Acceptable\n\nAvailable representations: ${SERVED}`,
    });
  });

  it('answers YAML for get and list, and decodes YAML bodies; a watch cannot be YAML (406)', async () => {
    const { core, kubeConfig, namespace } = fixture();
    const cm = await createConfigMap(core, namespace, { data: { a: 'b' } });
    const one = await getAccepting(kubeConfig, `${configMapsPath(namespace)}/${cm.metadata!.name}`, 'application/yaml');
    expect(one.status).to.equal(200);
    expect(one.headers['content-type']).to.equal('application/yaml');
    expect(parseYaml(one.text)).to.deep.include({ apiVersion: 'v1', kind: 'ConfigMap', data: { a: 'b' } });
    const list = await getAccepting(kubeConfig, configMapsPath(namespace), 'application/json;q=0.5, application/yaml');
    expect(list.headers['content-type']).to.equal('application/yaml');
    expect((parseYaml(list.text) as { kind: string }).kind).to.equal('ConfigMapList');

    const name = uniqueName('yaml');
    const created = await rawRequest(kubeConfig, {
      method: 'POST',
      path: configMapsPath(namespace),
      headers: { 'Content-Type': 'application/yaml' },
      body: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  k: v\n`,
    });
    expect(created.status).to.equal(201);
    expect(JSON.parse(created.text)).to.deep.include({ data: { k: 'v' } });

    const watch = await rawRequest(kubeConfig, {
      path: `${configMapsPath(namespace)}?watch=true&timeoutSeconds=1`,
      headers: { Accept: 'application/yaml' },
    });
    expect(watch.status).to.equal(406);
    expect(watch.headers['content-type']).to.equal('application/yaml');
    expect(status(watch)).to.deep.include({
      reason: 'NotAcceptable',
      message: `only the following media types are accepted: application/json;stream=watch, ${PROTOBUF};stream=watch`,
    });
  });

  it('answers 406 for media types it cannot produce (HTML, CBOR while disabled)', async () => {
    const { kubeConfig, namespace } = fixture();
    for (const accept of ['text/html', 'application/cbor']) {
      // Negotiation comes first: the object does not exist, and the answer is still 406.
      const r = await getAccepting(kubeConfig, `${configMapsPath(namespace)}/missing`, accept);
      expect(r.status, accept).to.equal(406);
      expect(r.headers['content-type']).to.equal('application/json');
      expect(status(r)).to.deep.include({
        code: 406,
        reason: 'NotAcceptable',
        message: `406: Not Acceptable\n\nAvailable representations: ${SERVED}`,
      });
    }
    const any = await getAccepting(kubeConfig, configMapsPath(namespace), 'text/html, */*');
    expect(any.status).to.equal(200);
    expect(any.headers['content-type']).to.equal('application/json');
  });

  it('answers 406 for a custom resource asked in protobuf (in protobuf) or CBOR, and JSON when that comes second', async () => {
    const { kubeConfig, namespace } = fixture();
    const crd = await createTestCrd(kubeConfig.makeApiClient(ApiextensionsV1Api), kubeConfig.makeApiClient(CustomObjectsApi));
    const path = `/apis/${crd.group}/${crd.version}/namespaces/${namespace}/${crd.plural}`;
    const message = `only the following media types are accepted: ${SERVED}`;
    for (const suffix of ['', '?watch=true&timeoutSeconds=1']) {
      const r = await getAccepting(kubeConfig, `${path}${suffix}`, PROTOBUF);
      expect(r.status).to.equal(406);
      expect(r.headers['content-type']).to.equal(PROTOBUF);
      expect(status(r)).to.deep.equal({ code: 406, reason: 'NotAcceptable', message });
    }
    const cbor = await rawRequest(kubeConfig, { path, headers: { Accept: 'application/cbor' } });
    expect(cbor.status).to.equal(406);
    expect(cbor.headers['content-type']).to.equal('application/json');
    expect(status(cbor)).to.deep.include({ message });
    const second = await rawRequest(kubeConfig, { path, headers: { Accept: `${PROTOBUF}, application/json` } });
    expect(second.status).to.equal(200);
    expect(second.headers['content-type']).to.equal('application/json');
    const yaml = await rawRequest(kubeConfig, { path, headers: { Accept: 'application/yaml' } });
    expect(yaml.headers['content-type']).to.equal('application/yaml');
  });

  it('refuses CBOR and HTML bodies (415) and protobuf bodies it cannot decode (400)', async () => {
    const { kubeConfig, namespace } = fixture();
    for (const [contentType, body] of [
      ['application/cbor', Uint8Array.from([0xa0])],
      ['text/html', '<p>'],
    ] as const) {
      const r = await rawRequest(kubeConfig, {
        method: 'POST',
        path: configMapsPath(namespace),
        headers: { 'Content-Type': contentType },
        body,
      });
      expect(r.status, contentType).to.equal(415);
      expect(status(r)).to.deep.include({
        reason: 'UnsupportedMediaType',
        message: `the body of the request was in an unknown format - accepted media types include: ${SERVED}`,
      });
    }
    const noMagic = await rawRequest(kubeConfig, {
      method: 'POST',
      path: configMapsPath(namespace),
      headers: { 'Content-Type': PROTOBUF },
      body: 'abc',
    });
    expect(noMagic.status, noMagic.text).to.equal(400);
    expect(status(noMagic).message).to.equal(
      'the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] (616263)',
    );
    const garbage = await rawRequest(kubeConfig, {
      method: 'POST',
      path: configMapsPath(namespace),
      headers: { 'Content-Type': PROTOBUF },
      body: Buffer.from('k8s\0garbage', 'latin1'),
    });
    expect(garbage.status, garbage.text).to.equal(400);
    expect(status(garbage).message).to.match(
      /^the object provided is unrecognized \(must be of type ConfigMap\): .* \(6b38730067617262616765\)$/,
    );
  });
});
