import { expect } from 'chai';
import { DeleteControl, ResourceID, UpdateControl, type KubernetesObject, type Reconciler } from '@kindex/core';
import { createNamespace, eventually, rawRequest, requireFault } from '@kindex/testing';
import type { KubeConfig } from '@kubernetes/client-node';
import { Controller, InformerCache, InformerEventSource, Kinds, type KubeClient, InformerRegistry } from '../../index.js';
import { useOperatorSuite } from '../../testing-fixtures/operator-suite.js';

// A controller whose primary cache keeps 100 of 3,000 churning ConfigMaps, end to end over HTTP.
// The 100,000-primary case (bound 1,000) is bench/bounded-cache: it takes minutes on this machine.
const PRIMARIES = 3_000;
const BOUND = 100;

type ConfigMap = KubernetesObject & { data?: Record<string, string> };

/** GETs of single ConfigMaps the server answered, from its apiserver_request_total counter. */
async function configMapGets(kubeConfig: KubeConfig): Promise<number> {
  const { text } = await rawRequest(kubeConfig, { path: '/metrics' });
  let n = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('apiserver_request_total{') && line.includes('verb="GET"') && line.includes('resource="configmaps"')) {
      if (line.includes('subresource=""') || !line.includes('subresource=')) n += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return n;
}

/** Runs `work` over `items`, `width` at a time. */
async function inWaves<T>(items: readonly T[], width: number, work: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += width) await Promise.all(items.slice(i, i + width).map(work));
}

describe('Controller cacheBound', function () {
  this.timeout(300_000);
  const suite = useOperatorSuite();
  let controller: Controller<ConfigMap> | undefined;
  afterEach(async () => {
    await controller?.stop({ drainTimeoutMs: 5_000 });
    controller = undefined;
  });

  it('reconciles every primary of a churning set with at most maxObjects in memory, and reads a cold one from the API once', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const names = Array.from({ length: PRIMARIES }, (_, i) => `cm-${i}`);
    await inWaves(names, 50, (name) =>
      suite.client.create(Kinds.ConfigMap, { metadata: { name, namespace: ns }, data: { v: '1', payload: 'x'.repeat(1_000) } }),
    );
    const seen = new Map<string, string | undefined>();
    let mostInMemory = 0;
    const reconciler: Reconciler<ConfigMap, KubeClient> = {
      reconcile: (cm) => {
        seen.set(cm.metadata!.name!, cm.data?.['v']);
        mostInMemory = Math.max(mostInMemory, controller!.primaryCache.size);
        return UpdateControl.noUpdate();
      },
      // A Secret named as a ConfigMap triggers that ConfigMap: a trigger that is not the primary's own event.
      prepareEventSources: (context) => [
        InformerEventSource.from(Kinds.Secret, Kinds.ConfigMap)
          .withName('pokes')
          .withSecondaryToPrimaryMapper((secret) => [ResourceID.of(secret.metadata!.name!, secret.metadata!.namespace)])
          .build(context),
      ],
    };
    controller = new Controller<ConfigMap>(
      reconciler,
      { kind: Kinds.ConfigMap, namespaces: [ns], cacheBound: { maxObjects: BOUND } },
      suite.client,
    );
    await controller.start();
    await eventually(() => expect(seen.size).to.equal(PRIMARIES), { timeoutMs: 120_000 });
    expect(controller.primaryCache.size).to.be.at.most(BOUND);
    expect(controller.primaryCache.knows(`${ns}/cm-0`)).to.equal(true);

    // Churn: every primary changes; each reconcile sees its new state.
    await inWaves(names, 50, (name) => suite.client.patch(Kinds.ConfigMap, ResourceID.of(name, ns), { data: { v: '2' } }));
    await eventually(() => expect([...seen.values()].filter((v) => v !== '2')).to.have.length(0), { timeoutMs: 120_000 });
    expect(mostInMemory).to.be.at.most(BOUND);
    expect(controller.primaryCache.size).to.be.at.most(BOUND);

    // A cold primary: changed first, so out of memory now; a Secret triggers it.
    const cold = `${ns}/cm-0`;
    expect(controller.primaryCache.peekKey(cold)).to.equal(undefined);
    const before = await configMapGets(suite.server.kubeConfig);
    seen.delete('cm-0');
    await suite.client.create(Kinds.Secret, { metadata: { name: 'cm-0', namespace: ns }, stringData: { poke: '1' } });
    await eventually(() => expect(seen.get('cm-0')).to.equal('2'));
    expect((await configMapGets(suite.server.kubeConfig)) - before).to.equal(1);
    expect(controller.primaryCache.peekKey(cold)?.data?.['payload']).to.have.length(1_000); // whole, and kept again

    // Triggered again: in memory now, no second read.
    seen.delete('cm-0');
    await suite.client.patch(Kinds.Secret, ResourceID.of('cm-0', ns), { stringData: { poke: '2' } });
    await eventually(() => expect(seen.get('cm-0')).to.equal('2'));
    expect((await configMapGets(suite.server.kubeConfig)) - before).to.equal(1);
  });

  it('cleans up an evicted primary deleted under its finalizer once, with its last state', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const cleanups: Array<string | undefined> = [];
    const reconciled = new Set<string>();
    controller = new Controller<ConfigMap>(
      {
        reconcile: (cm) => {
          reconciled.add(cm.metadata!.name!);
          return UpdateControl.noUpdate();
        },
        cleanup: (cm) => {
          cleanups.push(cm.data?.['v']);
          return DeleteControl.defaultDelete();
        },
      },
      { kind: Kinds.ConfigMap, namespaces: [ns], finalizerName: 'test.kindex.dev/cleanup', cacheBound: { maxObjects: 1 } },
      suite.client,
    );
    await controller.start();
    for (const name of ['a', 'b', 'c']) {
      await suite.client.create(Kinds.ConfigMap, { metadata: { name, namespace: ns }, data: { v: `last-${name}` } });
    }
    await eventually(async () => {
      expect(reconciled.size).to.equal(3);
      for (const name of ['a', 'b', 'c']) {
        expect((await suite.client.get(Kinds.ConfigMap, ResourceID.of(name, ns)))?.metadata?.finalizers).to.deep.equal([
          'test.kindex.dev/cleanup',
        ]);
      }
    });
    await eventually(() => expect(controller!.primaryCache.peekKey(`${ns}/a`)).to.equal(undefined));
    await suite.client.delete(Kinds.ConfigMap, ResourceID.of('a', ns));
    await eventually(async () => expect(await suite.client.get(Kinds.ConfigMap, ResourceID.of('a', ns))).to.equal(undefined));
    await new Promise((r) => setTimeout(r, 300)); // room for a second cleanup to show up
    expect(cleanups).to.deep.equal(['last-a']);
    expect(controller.primaryCache.knows(`${ns}/a`)).to.equal(false);
  });

  it('after 410 Gone, relists to exactly the changes: nothing for unchanged evicted objects', async function () {
    const { kubeConfig } = suite.server;
    const pauseEvents = requireFault(this, suite.server, 'pauseEvents');
    const resumeEvents = requireFault(this, suite.server, 'resumeEvents');
    const expireHistory = requireFault(this, suite.server, 'expireHistory');
    const closeWatches = requireFault(this, suite.server, 'closeWatches');
    const ns = await createNamespace(kubeConfig);
    for (let i = 0; i < 10; i++)
      await suite.client.create(Kinds.ConfigMap, { metadata: { name: `cm-${i}`, namespace: ns }, data: { v: '1' } });
    const cache = new InformerCache<ConfigMap>({
      name: 'bounded',
      kubeConfig,
      kind: Kinds.ConfigMap,
      registry: InformerRegistry.of(suite.client),
      namespaces: [ns],
      bound: { maxObjects: 2 },
      reflector: { initialState: 'list' },
    });
    const seen: string[] = [];
    cache.onDelta((delta, origin) => {
      const old = delta.type === 'update' ? ` from ${delta.oldObject.metadata?.resourceVersion}` : '';
      seen.push(`${origin} ${delta.type} ${delta.object.metadata?.name}${old}`);
    });
    await cache.start();
    try {
      expect(seen.filter((s) => s.startsWith('list create'))).to.have.length(10);
      expect(cache.size).to.equal(2);
      const before = (await suite.client.get<ConfigMap>(Kinds.ConfigMap, ResourceID.of('cm-3', ns)))!.metadata!.resourceVersion;
      seen.length = 0;
      // Changes the watch does not see, then a 410: the relist finds them.
      pauseEvents();
      await suite.client.patch(Kinds.ConfigMap, ResourceID.of('cm-3', ns), { data: { v: '2' } });
      await suite.client.delete(Kinds.ConfigMap, ResourceID.of('cm-5', ns));
      await expireHistory();
      await closeWatches();
      resumeEvents();
      await eventually(() => expect(seen).to.have.length(2));
      await new Promise((r) => setTimeout(r, 300)); // nothing else may follow
      expect(seen).to.deep.equal([`list update cm-3 from ${before}`, 'list delete cm-5']);
      expect(cache.size).to.be.at.most(2);
      expect(cache.knows(`${ns}/cm-5`)).to.equal(false);
      expect(cache.knows(`${ns}/cm-9`)).to.equal(true);
    } finally {
      await cache.stop();
    }
  });

  it('replays every object it knows to a cache that joins its shared informer, in memory or not', async () => {
    const { kubeConfig } = suite.server;
    const ns = await createNamespace(kubeConfig);
    for (let i = 0; i < 5; i++) await suite.client.create(Kinds.ConfigMap, { metadata: { name: `cm-${i}`, namespace: ns } });
    const options = {
      kubeConfig,
      kind: Kinds.ConfigMap,
      registry: InformerRegistry.of(suite.client),
      namespaces: [ns],
      bound: { maxObjects: 2 },
    };
    const first = new InformerCache<ConfigMap>({ ...options, name: 'first' });
    const second = new InformerCache<ConfigMap>({ ...options, name: 'second' });
    const attached: string[] = [];
    second.onDelta((delta, origin) => attached.push(`${origin} ${delta.type} ${delta.object.metadata?.name}`));
    await first.start();
    try {
      await second.start();
      expect(InformerRegistry.of(suite.client).size).to.equal(1);
      expect(attached.sort()).to.deep.equal([0, 1, 2, 3, 4].map((i) => `attach create cm-${i}`));
    } finally {
      await second.stop();
      await first.stop();
    }
  });

  it('rejects a bad bound when the controller is made, naming the option and the fix', () => {
    const make = (cacheBound: unknown) => () =>
      new Controller<ConfigMap>(
        { reconcile: () => UpdateControl.noUpdate() },
        { kind: Kinds.ConfigMap, name: 'maps', cacheBound: cacheBound as never },
        suite.client,
      );
    expect(make({ maxObjects: 0 })).to.throw(
      TypeError,
      'controller maps: cacheBound.maxObjects must be a positive integer (the most objects kept in memory), got 0; set 1 or more, or leave it out',
    );
    expect(make({ expireAfterAccessMs: -5 })).to.throw(
      TypeError,
      'controller maps: cacheBound.expireAfterAccessMs must be a positive integer',
    );
    expect(make({ maxObjects: 10, shardSelector: 'x' })).to.throw('Unknown option controller maps options.cacheBound.shardSelector');
    expect(
      () =>
        new Controller<ConfigMap>(
          { reconcile: () => UpdateControl.noUpdate() },
          {
            kind: Kinds.ConfigMap,
            name: 'maps',
            cacheBound: { maxObjects: 10 },
            shardSelector: "shardRange(object.metadata.namespace, '0x0000000000000000', '0x8000000000000000')",
          },
          suite.client,
        ),
    ).to.throw(TypeError, 'controller maps: cacheBound and a shard selector exclude each other');
  });
});
