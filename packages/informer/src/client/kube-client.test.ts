import { expect } from 'chai';
import type { KubeConfig } from '@kubernetes/client-node';
import { ResourceID, type KubernetesObject } from '@kindex/core';
import { InactivityTimeoutError, InformerRegistry, Kinds, KubeClient, metadataOnly } from '../index.js';
import { startHandServer, type HandServer } from './internal/hand-server.js';

const CONFIG_MAP: KubernetesObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'c', namespace: 'ns', resourceVersion: '7' },
};

/**
 * Registers a hand server for the enclosing describe that answers every request with CONFIG_MAP
 * (what matters is whether a request was sent at all) and records each as `METHOD path`.
 */
function useRecordingServer(): { readonly kubeConfig: () => KubeConfig; readonly received: string[] } {
  let server: HandServer;
  const received: string[] = [];
  before(async () => {
    server = await startHandServer((request, response) => {
      received.push(`${request.method} ${request.url?.split('?')[0]}`);
      request.resume();
      request.once('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(CONFIG_MAP)));
    });
  });
  beforeEach(() => received.splice(0));
  after(() => server.close());
  return { kubeConfig: () => server.kubeConfig, received };
}

describe('KubeClient.registry', () => {
  // client/ names the registry's contract and never makes one: the layer above (cache/) makes
  // its InformerRegistry on first use and the client keeps it, shared with its fenced clients.
  it('has none until InformerRegistry.of makes one, keeps that one, and keeps the one passed', () => {
    const kubeConfig = {} as KubeConfig;
    const a = new KubeClient(kubeConfig);
    const b = new KubeClient(kubeConfig);
    expect(a.registry).to.equal(undefined);
    const made = InformerRegistry.of(a);
    expect(made).to.be.instanceOf(InformerRegistry);
    expect(a.registry).to.equal(made);
    expect(InformerRegistry.of(a)).to.equal(made);
    expect(InformerRegistry.of(b)).to.not.equal(made);
    expect(made.size).to.equal(0);
    const shared = new InformerRegistry();
    const given = new KubeClient(kubeConfig, { registry: shared });
    expect(given.registry).to.equal(shared);
    expect(InformerRegistry.of(given)).to.equal(shared);
  });

  it('shares a registry made later with the clients withFence made before', () => {
    const base = new KubeClient({} as KubeConfig);
    const fenced = base.withFence(() => {});
    expect(InformerRegistry.of(fenced)).to.equal(base.registry);
  });

  it('refuses a registry of another class, naming both', () => {
    const other = { size: 0, stopAll: async () => {} };
    const client = new KubeClient({} as KubeConfig, { registry: other });
    expect(() => InformerRegistry.of(client)).to.throw(
      TypeError,
      /options.registry is a Object, not an instance of InformerRegistry; pass new InformerRegistry\(\) or leave it out/,
    );
  });
});

describe('KubeClient.withFence', () => {
  const recording = useRecordingServer();
  /** Requests the server received, as `METHOD path`. */
  const received = recording.received;
  let kubeConfig: KubeConfig;
  before(() => {
    kubeConfig = recording.kubeConfig();
  });

  /** Every kind of write, each through `client`. */
  const writes = (client: KubeClient): Record<string, () => Promise<unknown>> => ({
    create: () => client.create(Kinds.ConfigMap, CONFIG_MAP),
    update: () => client.update(Kinds.ConfigMap, CONFIG_MAP),
    updateStatus: () => client.update(Kinds.ConfigMap, CONFIG_MAP, 'status'),
    patch: () => client.patch(Kinds.ConfigMap, ResourceID.of('c', 'ns'), { data: { a: '1' } }),
    apply: () => client.apply(Kinds.ConfigMap, CONFIG_MAP, { force: true }),
    delete: () => client.delete(Kinds.ConfigMap, ResourceID.of('c', 'ns')),
  });

  it('refuses every write while the added fence throws, sends none of them, and still reads', async () => {
    const base = new KubeClient(kubeConfig, { fieldManager: 'web-operator' });
    let open = true;
    const refusal = new Error('shard 3 lost');
    const fenced = base.withFence(() => {
      if (!open) throw refusal;
    });
    expect(fenced.fieldManager).to.equal('web-operator');
    expect(fenced.registry).to.equal(base.registry);
    for (const write of Object.values(writes(fenced))) await write();
    expect(received).to.have.length(6);

    open = false;
    received.splice(0);
    for (const [name, write] of Object.entries(writes(fenced))) {
      const error = await write().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, name).to.equal(refusal);
    }
    expect(() => fenced.checkFence()).to.throw(refusal);
    expect(received, 'nothing sent').to.deep.equal([]);
    expect(await fenced.get(Kinds.ConfigMap, ResourceID.of('c', 'ns'))).to.deep.equal(CONFIG_MAP);
    // The client it was made from is not fenced by it.
    await base.apply(Kinds.ConfigMap, CONFIG_MAP);
    expect(received).to.deep.equal(['GET /api/v1/namespaces/ns/configmaps/c', 'PATCH /api/v1/namespaces/ns/configmaps/c']);
  });

  it("checks the client's own fence (leader election's) first, then the added one", async () => {
    const notLeader = new Error('not the leader');
    const calls: string[] = [];
    const base = new KubeClient(kubeConfig, {
      fence: () => {
        calls.push('own');
        throw notLeader;
      },
    });
    const fenced = base.withFence(() => calls.push('added'));
    const error = await fenced.create(Kinds.ConfigMap, CONFIG_MAP).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.equal(notLeader);
    expect(calls).to.deep.equal(['own']);
    expect(received).to.deep.equal([]);
  });
});

describe('KubeClient requestInactivityMs', () => {
  // A server that takes a request and never answers stands for a kept connection whose server
  // vanished without a word (a half-open connection).
  let server: HandServer;
  let answer = false;
  before(async () => {
    server = await startHandServer((request, response) => {
      request.resume();
      if (answer)
        request.once('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(CONFIG_MAP)));
      else request.once('end', () => response.socket?.setTimeout(0));
    });
  });
  after(async () => {
    answer = true;
    await server.close();
  });

  it('gives up on a silent request with InactivityTimeoutError, through a fenced client too, and the next request goes through', async () => {
    answer = false;
    const client = new KubeClient(server.kubeConfig, { requestInactivityMs: 150 });
    for (const c of [client, client.withFence(() => {})]) {
      const started = Date.now();
      const error = await c.patch(Kinds.ConfigMap, ResourceID.of('c', 'ns'), { data: { a: '1' } }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(InactivityTimeoutError);
      expect((error as InactivityTimeoutError).timeoutMs).to.equal(150);
      expect(Date.now() - started).to.be.lessThan(10_000);
    }
    answer = true;
    expect(await client.get(Kinds.ConfigMap, ResourceID.of('c', 'ns'))).to.deep.equal(CONFIG_MAP);
  });

  it('refuses a timeout that is not a positive number, naming the option', () => {
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new KubeClient(server.kubeConfig, { requestInactivityMs: bad })).to.throw(RangeError, 'requestInactivityMs');
    }
  });
});

describe('KubeClient writes through a metadata-only kind', () => {
  const { kubeConfig, received } = useRecordingServer();

  it('refuses create and update (the body would replace the object with its metadata), naming the object and the fix; patches go through', async () => {
    const client = new KubeClient(kubeConfig());
    const kind = metadataOnly(Kinds.ConfigMap);
    for (const [verb, write] of [
      [
        'create',
        () => client.create(kind, { ...CONFIG_MAP, apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' } }),
      ],
      ['update', () => client.update(kind, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'ns' } })],
    ] as const) {
      const error = await write().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(TypeError);
      expect((error as Error).message)
        .to.contain(`KubeClient.${verb}: ConfigMap ns/c: the kind is metadata-only`)
        .and.contain('objectKind');
    }
    expect(received).to.deep.equal([]);
    await client.patch(kind, ResourceID.of('c', 'ns'), { metadata: { labels: { a: 'b' } } });
    expect(received).to.deep.equal(['PATCH /api/v1/namespaces/ns/configmaps/c']);
  });
});
