// Metadata-only reads (`as=PartialObjectMetadata[List];g=meta.k8s.io;v=v1`), what client-go's
// metadata client and controller-runtime's OnlyMetadata informers ask for: answers checked against
// kube-apiserver 1.36.3's (endpoints/handlers/response.go), on both servers.
import { fromBinary } from '@bufbuild/protobuf';
import { expect } from 'chai';
import {
  PartialObjectMetadataListSchema,
  PartialObjectMetadataSchema,
  WatchEventSchema,
} from '../apiserver/negotiation/protobuf/generated/k8s.io/apimachinery/pkg/apis/meta/v1/generated_pb.js';
import { UnknownSchema } from '../apiserver/negotiation/protobuf/generated/k8s.io/apimachinery/pkg/runtime/generated_pb.js';
import { ApiextensionsV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { createTestCrd } from '../helpers/test-crd.js';
import { rawRequest, type RawResponse } from '../helpers/raw-request.js';
import { configMapsPath, createConfigMap, getAccepting, useConformanceFixture } from './conformance-fixture.js';

const meta = (as: string): string => `application/json;as=${as};g=meta.k8s.io;v=v1`;
// client-go's metadata client: protobuf first, then JSON metadata, then whole JSON objects.
const OBJECT_ACCEPT = `${meta('PartialObjectMetadata')},application/json`;
const LIST_ACCEPT = `${meta('PartialObjectMetadataList')},application/json`;
const SERVED = 'application/json, application/yaml, application/vnd.kubernetes.protobuf';
const PROTOBUF = 'application/vnd.kubernetes.protobuf';
// What client-go's metadata client sends: protobuf first.
const protobufAccept = (as: string): string => `${PROTOBUF};as=${as};g=meta.k8s.io;v=v1,${meta(as)},application/json`;

/** The runtime.Unknown of a protobuf body (after the 4-byte magic `k8s\0`). */
function unknownOf(bytes: Uint8Array): { kind: string; apiVersion: string; raw: Uint8Array } {
  expect(Buffer.from(bytes.subarray(0, 4)).toString('latin1')).to.equal('k8s\0');
  const u = fromBinary(UnknownSchema, bytes.subarray(4));
  return { kind: u.typeMeta?.kind ?? '', apiVersion: u.typeMeta?.apiVersion ?? '', raw: u.raw ?? new Uint8Array() };
}

interface Partial {
  kind: string;
  apiVersion: string;
  metadata: { name: string; namespace?: string; uid: string; resourceVersion: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

function json<T>(r: RawResponse): T {
  return JSON.parse(r.text) as T;
}

describe('conformance: metadata-only answers (as=PartialObjectMetadata)', () => {
  const fixture = useConformanceFixture();

  it('answers a get with the object as PartialObjectMetadata: metadata only, no data', async () => {
    const { core, kubeConfig, namespace } = fixture();
    const cm = await createConfigMap(core, namespace, { data: { a: '1' }, labels: { l: 'v' } });
    for (const accept of [meta('PartialObjectMetadata'), OBJECT_ACCEPT]) {
      const r = await getAccepting(kubeConfig, `${configMapsPath(namespace)}/${cm.metadata!.name}`, accept);
      expect(r.status).to.equal(200);
      expect(r.headers['content-type']).to.equal('application/json');
      const partial = json<Partial>(r);
      expect(Object.keys(partial)).to.deep.equal(['kind', 'apiVersion', 'metadata']);
      expect(partial).to.include({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' });
      expect(partial.metadata).to.deep.include({
        name: cm.metadata!.name,
        namespace,
        uid: cm.metadata!.uid,
        resourceVersion: cm.metadata!.resourceVersion,
        labels: { l: 'v' },
      });
    }
  });

  it('answers a list as PartialObjectMetadataList with the list metadata, and items null when empty', async () => {
    const { core, kubeConfig, namespace } = fixture();
    const empty = await getAccepting(kubeConfig, configMapsPath(namespace), LIST_ACCEPT);
    expect(empty.status).to.equal(200);
    const none = json<{ kind: string; items: unknown }>(empty);
    expect(none).to.include({ kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1' });
    // Go writes the nil slice of an empty PartialObjectMetadataList as null.
    expect(none.items).to.equal(null);
    const a = await createConfigMap(core, namespace, { data: { a: '1' } });
    const b = await createConfigMap(core, namespace, { data: { b: '2' } });
    const page = await getAccepting(kubeConfig, `${configMapsPath(namespace)}?limit=1`, LIST_ACCEPT);
    const first = json<{ metadata: { resourceVersion: string; continue?: string }; items: Partial[] }>(page);
    expect(first.metadata.resourceVersion).to.be.a('string');
    expect(first.metadata.continue).to.be.a('string');
    const rest = await rawRequest(kubeConfig, {
      path: `${configMapsPath(namespace)}?limit=1&continue=${encodeURIComponent(first.metadata.continue!)}`,
      headers: { Accept: LIST_ACCEPT },
    });
    const items = [...first.items, ...json<{ items: Partial[] }>(rest).items];
    expect(items.map((i) => i.metadata.name).sort()).to.deep.equal([a.metadata!.name, b.metadata!.name].sort());
    for (const item of items) {
      expect(item).to.include({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' });
      expect(item).not.to.have.property('data');
    }
  });

  it('answers a custom resource list and object metadata-only too', async () => {
    const { kubeConfig, namespace, custom } = fixture();
    const crd = await createTestCrd(kubeConfig.makeApiClient(ApiextensionsV1Api), kubeConfig.makeApiClient(CustomObjectsApi));
    await custom.createNamespacedCustomObject({
      group: crd.group,
      version: crd.version,
      plural: crd.plural,
      namespace,
      body: { apiVersion: crd.apiVersion, kind: crd.kind, metadata: { name: 'one' }, spec: { size: 3 } },
    });
    const path = `/apis/${crd.group}/${crd.version}/namespaces/${namespace}/${crd.plural}`;
    const list = json<{ kind: string; items: Partial[] }>(await rawRequest(kubeConfig, { path, headers: { Accept: LIST_ACCEPT } }));
    expect(list.kind).to.equal('PartialObjectMetadataList');
    expect(list.items.map((i) => [i.kind, i.metadata.name, 'spec' in i])).to.deep.equal([['PartialObjectMetadata', 'one', false]]);
    const one = json<Partial>(await getAccepting(kubeConfig, `${path}/one`, OBJECT_ACCEPT));
    expect([one.kind, one.metadata.name, 'spec' in one]).to.deep.equal(['PartialObjectMetadata', 'one', false]);
    const wrong = await rawRequest(kubeConfig, { path, headers: { Accept: OBJECT_ACCEPT } });
    expect(wrong.status).to.equal(406);
    expect(json<{ message: string }>(wrong).message).to.equal(
      'you requested PartialObjectMetadata, but the requested object is a list (*unstructured.UnstructuredList)',
    );
  });

  it('answers 406 for PartialObjectMetadata of a list and PartialObjectMetadataList of one object, even with a JSON fallback', async () => {
    const { core, kubeConfig, namespace } = fixture();
    const cm = await createConfigMap(core, namespace, { data: { a: '1' } });
    const list = await getAccepting(kubeConfig, configMapsPath(namespace), OBJECT_ACCEPT);
    expect(list.status).to.equal(406);
    expect(json<{ reason: string; message: string }>(list)).to.deep.include({
      reason: 'NotAcceptable',
      message: 'you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)',
    });
    const one = await getAccepting(kubeConfig, `${configMapsPath(namespace)}/${cm.metadata!.name}`, LIST_ACCEPT);
    expect(one.status).to.equal(406);
    expect(json<{ message: string }>(one).message).to.equal(
      'you requested PartialObjectMetadataList, but the requested object is not a list (*core.ConfigMap)',
    );
  });

  it('answers 406 naming the served media types for an as= it does not convert to (unknown kind, group or version)', async () => {
    const { kubeConfig, namespace } = fixture();
    for (const accept of [
      'application/json;as=Foo;g=meta.k8s.io;v=v1',
      'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v2',
      'application/json;as=PartialObjectMetadataList;g=apps;v=v1',
    ]) {
      for (const query of ['', '?watch=true&timeoutSeconds=1']) {
        const r = await getAccepting(kubeConfig, `${configMapsPath(namespace)}${query}`, accept);
        expect(r.status, `${accept} ${query}`).to.equal(406);
        expect(json<{ reason: string; message: string }>(r)).to.deep.include({
          reason: 'NotAcceptable',
          message: `only the following media types are accepted: ${SERVED}`,
        });
      }
    }
    // A clause the server skips leaves the next one to answer.
    const next = await rawRequest(kubeConfig, {
      path: configMapsPath(namespace),
      headers: { Accept: 'application/json;as=Foo;g=meta.k8s.io;v=v1,application/json' },
    });
    expect(next.status).to.equal(200);
    expect(json<{ kind: string }>(next).kind).to.equal('ConfigMapList');
  });

  it('streams a watch asked as PartialObjectMetadata with each event object converted', async () => {
    const { core, kubeConfig, namespace } = fixture();
    const a = await createConfigMap(core, namespace, { data: { a: '1' } });
    const watched = rawRequest(kubeConfig, {
      path: `${configMapsPath(namespace)}?watch=true&timeoutSeconds=3&resourceVersion=${a.metadata!.resourceVersion}`,
      headers: { Accept: OBJECT_ACCEPT },
      timeoutMs: 20_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const b = await createConfigMap(core, namespace, { data: { b: '1' }, labels: { l: 'v' } });
    await core.deleteNamespacedConfigMap({ name: a.metadata!.name!, namespace });
    const r = await watched;
    expect(r.status).to.equal(200);
    expect(r.headers['content-type']).to.equal('application/json');
    const events = r.text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { type: string; object: Partial });
    expect(events.map((e) => [e.type, e.object.kind, e.object.apiVersion, e.object.metadata.name])).to.deep.equal([
      ['ADDED', 'PartialObjectMetadata', 'meta.k8s.io/v1', b.metadata!.name],
      ['DELETED', 'PartialObjectMetadata', 'meta.k8s.io/v1', a.metadata!.name],
    ]);
    expect(events[0]!.object.metadata.labels).to.deep.equal({ l: 'v' });
    for (const { object } of events) expect(Object.keys(object)).to.deep.equal(['kind', 'apiVersion', 'metadata']);
  });
  it('answers in protobuf when asked first (as client-go does): object, list and watch frames of PartialObjectMetadata', async () => {
    const { core, kubeConfig, namespace } = fixture();
    const cm = await createConfigMap(core, namespace, { data: { a: '1' }, labels: { l: 'v' } });
    const one = await rawRequest(kubeConfig, {
      path: `${configMapsPath(namespace)}/${cm.metadata!.name}`,
      headers: { Accept: protobufAccept('PartialObjectMetadata') },
    });
    expect([one.status, one.headers['content-type']]).to.deep.equal([200, PROTOBUF]);
    const object = unknownOf(one.bytes);
    expect([object.kind, object.apiVersion]).to.deep.equal(['PartialObjectMetadata', 'meta.k8s.io/v1']);
    const partial = fromBinary(PartialObjectMetadataSchema, object.raw);
    expect([partial.metadata?.name, partial.metadata?.labels]).to.deep.equal([cm.metadata!.name, { l: 'v' }]);

    const list = await getAccepting(kubeConfig, configMapsPath(namespace), protobufAccept('PartialObjectMetadataList'));
    expect([list.status, list.headers['content-type']]).to.deep.equal([200, PROTOBUF]);
    const listed = unknownOf(list.bytes);
    expect(listed.kind).to.equal('PartialObjectMetadataList');
    expect(fromBinary(PartialObjectMetadataListSchema, listed.raw).items.map((i) => i.metadata?.name)).to.deep.equal([cm.metadata!.name]);

    const watch = await rawRequest(kubeConfig, {
      path: `${configMapsPath(namespace)}?watch=true&timeoutSeconds=1`,
      headers: { Accept: protobufAccept('PartialObjectMetadata') },
      timeoutMs: 20_000,
    });
    expect([watch.status, watch.headers['content-type']]).to.deep.equal([200, `${PROTOBUF};stream=watch`]);
    // One length-prefixed WatchEvent: the ADDED of the existing ConfigMap.
    const length = Buffer.from(watch.bytes).readUInt32BE(0);
    const event = fromBinary(WatchEventSchema, watch.bytes.subarray(4, 4 + length));
    const inner = unknownOf(event.object?.raw ?? new Uint8Array());
    expect([event.type, inner.kind, fromBinary(PartialObjectMetadataSchema, inner.raw).metadata?.name]).to.deep.equal([
      'ADDED',
      'PartialObjectMetadata',
      cm.metadata!.name,
    ]);
  });
});
