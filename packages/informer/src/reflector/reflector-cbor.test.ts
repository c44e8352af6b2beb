// The Reflector with `wire: 'cbor'` against a server with CBORServingAndStorage (embedded by
// default, kube-apiserver 1.36.3 with the gate under KINDEX_APISERVER=real), and against one
// without it (JSON fallback). What went over the wire is read from Node's HTTP client
// diagnostics channel: the same requests, seen from outside the codec.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { expect } from 'chai';
import { ApiextensionsV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { KubernetesObject } from '@kindex/core';
import { createNamespace, createTestCrd, eventually, useTestApiServer, type TestApiServer, type TestCrd } from '@kindex/testing';
import { InformerEventSource, KubeClient, Reflector, resourceKind, type InitialState, type ResourceType } from '../index.js';

/** The Accept and Content-Type of every request to `plural`, in order. */
function recordWire(plural: string): { seen: string[]; stop: () => void } {
  const seen: string[] = [];
  const onResponse = (message: unknown): void => {
    const { request, response } = message as { request: ClientRequest; response: IncomingMessage };
    if (!request.path.includes(`/${plural}`)) return;
    const watch = request.path.includes('watch=true') ? 'watch' : 'list';
    seen.push(`${watch} ${String(request.getHeader('accept'))} -> ${String(response.headers['content-type'])}`);
  };
  subscribe('http.client.response.finish', onResponse);
  return { seen, stop: () => unsubscribe('http.client.response.finish', onResponse) };
}

const ACCEPT = 'application/cbor;q=1, application/json;q=0.9';

function suite(title: string, cbor: boolean): void {
  describe(title, function () {
    this.timeout(60_000);
    const server = useTestApiServer({ cborServingAndStorage: cbor });
    const running: Reflector[] = [];
    let crd: TestCrd;
    let namespace: string;
    let type: ResourceType;
    let custom: CustomObjectsApi;

    beforeEach(async () => {
      const kubeConfig: KubeConfig = server().kubeConfig;
      custom = kubeConfig.makeApiClient(CustomObjectsApi);
      crd = await createTestCrd(kubeConfig.makeApiClient(ApiextensionsV1Api), custom);
      namespace = await createNamespace(kubeConfig);
      type = { group: crd.group, version: crd.version, plural: crd.plural, kind: crd.kind, namespaced: true };
    });
    afterEach(async () => {
      for (const r of running.splice(0)) await r.stop();
    });

    const create = (name: string, spec: Record<string, unknown>) =>
      custom.createNamespacedCustomObject({
        group: crd.group,
        version: crd.version,
        plural: crd.plural,
        namespace,
        body: { apiVersion: crd.apiVersion, kind: crd.kind, metadata: { name, labels: { app: 'web' } }, spec },
      });

    // Lists by default: the assertions below read the list request; the watch-list test says 'auto'.
    async function reflect(s: TestApiServer, wire: 'json' | 'cbor', initialState: InitialState = 'list'): Promise<Reflector> {
      const reflector = new Reflector({
        kubeConfig: s.kubeConfig,
        type,
        namespace,
        wire,
        initialState,
        transform: null,
        inactivityTimeoutMs: 10_000,
        backoff: { initialMs: 20, maxMs: 200 },
      });
      running.push(reflector);
      await reflector.start();
      expect(await reflector.waitForSync({ timeoutMs: 20_000 })).to.equal(true);
      return reflector;
    }

    const byName = (r: Reflector): Record<string, KubernetesObject> => Object.fromEntries(r.list().map((o) => [o.metadata!.name!, o]));

    it(`syncs and watches a custom resource${cbor ? ' in CBOR' : ', falling back to JSON'}, caching what the JSON reflector caches`, async () => {
      await create('w1', { replicas: 3, ratio: 1.5, big: 2 ** 40, on: true, tags: ['a', 'é✓'] });
      await create('w2', { replicas: 1 });
      const wire = recordWire(crd.plural);
      try {
        const viaCbor = await reflect(server(), 'cbor');
        const viaJson = await reflect(server(), 'json');
        expect(byName(viaCbor)).to.deep.equal(byName(viaJson));
        expect(byName(viaCbor)['w1']).to.deep.include({ spec: { replicas: 3, ratio: 1.5, big: 2 ** 40, on: true, tags: ['a', 'é✓'] } });

        await create('w3', { replicas: 2 });
        await custom.deleteNamespacedCustomObject({ group: crd.group, version: crd.version, plural: crd.plural, namespace, name: 'w2' });
        await eventually(async () => expect(Object.keys(byName(viaCbor)).sort()).to.deep.equal(['w1', 'w3']), {
          timeoutMs: 20_000,
          description: 'the CBOR watch delivered w3 and the deletion of w2',
        });
        await eventually(async () => expect(byName(viaCbor)).to.deep.equal(byName(viaJson)), {
          timeoutMs: 20_000,
          description: 'both reflectors agree',
        });

        const cborRequests = wire.seen.filter((line) => line.includes(ACCEPT));
        expect(cborRequests.length, wire.seen.join('\n')).to.be.greaterThanOrEqual(2);
        expect(cborRequests).to.include(`list ${ACCEPT} -> ${cbor ? 'application/cbor' : 'application/json'}`);
        expect(cborRequests).to.include(`watch ${ACCEPT} -> ${cbor ? 'application/cbor-seq' : 'application/json'}`);
      } finally {
        wire.stop();
      }
    });

    it(`streams the initial state by watch-list${cbor ? ' in CBOR' : ', falling back to JSON'} ('auto', the default)`, async () => {
      await create('w1', { replicas: 3, tags: ['a', 'é✓'] });
      const wire = recordWire(crd.plural);
      try {
        const viaCbor = await reflect(server(), 'cbor', 'auto');
        const viaJson = await reflect(server(), 'json', 'auto');
        expect(byName(viaCbor)).to.deep.equal(byName(viaJson));
        expect(viaCbor.health.lastSyncBy).to.equal('watch-list');
        const cborRequests = wire.seen.filter((line) => line.includes(ACCEPT));
        expect(cborRequests, wire.seen.join('\n')).to.deep.equal([
          `watch ${ACCEPT} -> ${cbor ? 'application/cbor-seq' : 'application/json'}`,
        ]);
      } finally {
        wire.stop();
      }
    });
  });
}

suite('Reflector (wire: cbor) on a server with CBORServingAndStorage', true);

describe("InformerEventSource with withReflectorOptions({ wire: 'cbor' })", function () {
  this.timeout(60_000);
  const server = useTestApiServer({ cborServingAndStorage: true });

  it('lists and watches its kind in CBOR', async () => {
    const kubeConfig = server().kubeConfig;
    const custom = kubeConfig.makeApiClient(CustomObjectsApi);
    const crd = await createTestCrd(kubeConfig.makeApiClient(ApiextensionsV1Api), custom);
    const namespace = await createNamespace(kubeConfig);
    const kind = resourceKind<KubernetesObject>({
      group: crd.group,
      version: crd.version,
      plural: crd.plural,
      kind: crd.kind,
      namespaced: true,
    });
    const body = { apiVersion: crd.apiVersion, kind: crd.kind, metadata: { name: 'w1' }, spec: { replicas: 1 } };
    await custom.createNamespacedCustomObject({ group: crd.group, version: crd.version, plural: crd.plural, namespace, body });
    const client = new KubeClient(kubeConfig);
    const builder = InformerEventSource.from(kind).withNamespaces([namespace]).withReflectorOptions({ wire: 'cbor', initialState: 'list' });
    const source = new InformerEventSource(builder.configuration(), client, [namespace]);
    const wire = recordWire(crd.plural);
    try {
      await source.start();
      expect(source.list().map((o) => o.metadata!.name)).to.deep.equal(['w1']);
      await eventually(async () => expect(wire.seen).to.include(`watch ${ACCEPT} -> application/cbor-seq`), {
        timeoutMs: 20_000,
        description: 'a CBOR watch',
      });
      expect(wire.seen).to.include(`list ${ACCEPT} -> application/cbor`);
    } finally {
      wire.stop();
      await source.stop();
      await client.registry?.stopAll();
    }
  });
});
suite('Reflector (wire: cbor) on a server without CBOR', false);

describe('Reflector wire option', () => {
  it('rejects an unknown wire format, naming the option and the values it takes', () => {
    const type: ResourceType = { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true };
    const options = { kubeConfig: {} as KubeConfig, type, wire: 'protobuf' as 'json' };
    expect(() => new Reflector(options)).to.throw(
      TypeError,
      `Reflector options: wire is "protobuf"; set it to 'json' (the default) or 'cbor'`,
    );
  });
});
