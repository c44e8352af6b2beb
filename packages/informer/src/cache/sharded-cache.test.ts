import { expect } from 'chai';
import { CoreV1Api } from '@kubernetes/client-node';
import { ResourceID, ShardSelector, UpdateControl, type KubernetesObject, type Reconciler } from '@kindex/core';
import { createNamespace, eventually, startTestApiServer, uniqueName, type TestApiServer } from '@kindex/testing';
import {
  InformerCache,
  InformerEventSource,
  InformerRegistry,
  Kinds,
  KubeClient,
  Operator,
  Reflector,
  type CacheDelta,
  type ReflectorHealth,
} from '../index.js';

type ConfigMap = KubernetesObject & { data?: Record<string, string> };
const configMaps = { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true } as const;

// One scenario, two servers: with the ShardedListAndWatch gate the server filters (and says so in
// shardInfo), without it the reflector filters what it receives. The view must be the same.
for (const gate of [true, false]) {
  describe(`sharded caches (server ${gate ? 'with' : 'without'} ShardedListAndWatch)`, function () {
    this.timeout(120_000);
    let server: TestApiServer;
    let core: CoreV1Api;
    const stops: (() => Promise<void>)[] = [];

    before(async function () {
      this.timeout(180_000);
      server = await startTestApiServer({ shardedListAndWatch: gate });
      core = server.kubeConfig.makeApiClient(CoreV1Api);
    });
    afterEach(async () => {
      await Promise.all(stops.splice(0).map((s) => s()));
    });
    after(async () => {
      await server.stop();
    });

    async function fill(namespace: string, count: number): Promise<ConfigMap[]> {
      const out: ConfigMap[] = [];
      for (let i = 0; i < count; i++) {
        out.push((await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: uniqueName('cm') } } })) as ConfigMap);
      }
      return out;
    }

    it(`a reflector holds only its uid range, listed and watched; ${gate ? 'the server' : 'the client'} filters`, async () => {
      const namespace = await createNamespace(server.kubeConfig);
      const before = await fill(namespace, 12);
      const shard = ShardSelector.forShards('object.metadata.uid', [1, 2], 4);
      const reflector = new Reflector<ConfigMap>({
        kubeConfig: server.kubeConfig,
        type: configMaps,
        namespace,
        shardSelector: shard.toString(),
      });
      stops.push(() => reflector.stop());
      let health: ReflectorHealth | undefined;
      reflector.health$.subscribe((h) => (health = h));
      await reflector.start();
      expect(await reflector.waitForSync({ timeoutMs: 30_000 })).to.equal(true);
      const inShard = (list: ConfigMap[]) =>
        list
          .filter((c) => shard.matches(c))
          .map((c) => c.metadata!.name!)
          .sort();
      expect(
        reflector
          .list()
          .map((c) => c.metadata!.name!)
          .sort(),
      ).to.deep.equal(inShard(before));
      expect(health?.shardFilter).to.equal(gate ? 'server' : 'client');
      // What crossed the wire: only the range with the gate, everything without it.
      expect(reflector.objectsReceived).to.equal(gate ? inShard(before).length : before.length);
      const after = await fill(namespace, 8);
      const all = [...before, ...after];
      await eventually(
        () =>
          expect(
            reflector
              .list()
              .map((c) => c.metadata!.name!)
              .sort(),
          ).to.deep.equal(inShard(all)),
        { timeoutMs: 30_000 },
      );
      await eventually(() => expect(reflector.objectsReceived).to.equal(gate ? inShard(all).length : all.length), { timeoutMs: 30_000 });
    });

    it('the registry shares an informer per shard selector, not across them', async () => {
      const namespace = await createNamespace(server.kubeConfig);
      const registry = new InformerRegistry();
      stops.push(() => registry.stopAll());
      const [low, high] = ShardSelector.split('object.metadata.uid', 2) as [ShardSelector, ShardSelector];
      const spec = { kubeConfig: server.kubeConfig, type: configMaps, namespace };
      const a = registry.acquire({ ...spec, shardSelector: low });
      const b = registry.acquire({ ...spec, shardSelector: low.toString() });
      const c = registry.acquire({ ...spec, shardSelector: high });
      expect(a.informer).to.equal(b.informer);
      expect(a.informer).to.not.equal(c.informer);
      expect(registry.size).to.equal(2);
    });

    it('setShardSelector swaps the ranges without a gap: leavers as shard-removed, joiners as attach, the rest untouched', async () => {
      const namespace = await createNamespace(server.kubeConfig);
      const all = await fill(namespace, 16);
      const client = new KubeClient(server.kubeConfig);
      stops.push(async () => client.registry?.stopAll());
      const [s0, s1] = ShardSelector.split('object.metadata.uid', 2) as [ShardSelector, ShardSelector];
      const cache = new InformerCache<ConfigMap>({
        name: 'test',
        kubeConfig: server.kubeConfig,
        registry: InformerRegistry.of(client),
        kind: Kinds.ConfigMap,
        namespaces: [namespace],
        shardSelector: s0,
      });
      stops.push(() => cache.stop());
      const deltas: CacheDelta<ConfigMap>[] = [];
      cache.deltas$.subscribe((d) => deltas.push(d));
      await cache.start();
      const names = (f: (c: ConfigMap) => boolean) =>
        all
          .filter(f)
          .map((c) => c.metadata!.name!)
          .sort();
      expect(
        cache
          .list()
          .map((c) => c.metadata!.name!)
          .sort(),
      ).to.deep.equal(names((c) => s0.matches(c)));
      deltas.length = 0;
      await cache.setShardSelector(ShardSelector.forShards('object.metadata.uid', [0, 1], 2));
      expect(cache.list()).to.have.length(all.length);
      expect(deltas.every((d) => d.origin === 'attach' && d.delta.type === 'create')).to.equal(true);
      expect(deltas.map((d) => d.delta.object.metadata!.name!).sort()).to.deep.equal(names((c) => s1.matches(c)));
      deltas.length = 0;
      await cache.setShardSelector(s1);
      expect(
        cache
          .list()
          .map((c) => c.metadata!.name!)
          .sort(),
      ).to.deep.equal(names((c) => s1.matches(c)));
      expect(deltas.every((d) => d.origin === 'shard-removed' && d.delta.type === 'delete')).to.equal(true);
      expect(deltas.map((d) => d.delta.object.metadata!.name!).sort()).to.deep.equal(names((c) => s0.matches(c)));
      expect(InformerRegistry.of(client).size).to.equal(1);
    });

    it('a controller sharded by namespace reconciles only its namespaces, and its event sources inherit the shard', async () => {
      // Namespaces whose names hash into different halves.
      const [low, high] = ShardSelector.split('object.metadata.namespace', 2) as [ShardSelector, ShardSelector];
      const namespaces: string[] = [];
      while (!(
        namespaces.some((n) => low.matches({ metadata: { namespace: n } })) &&
        namespaces.some((n) => high.matches({ metadata: { namespace: n } }))
      )) {
        namespaces.push(await createNamespace(server.kubeConfig));
      }
      const reconciled: string[] = [];
      const secondaries = new Map<string, number>();
      // Primaries are ConfigMaps labelled primary; each owns Secrets in its namespace.
      const reconciler: Reconciler<ConfigMap, KubeClient> = {
        prepareEventSources: (context) => [InformerEventSource.from(Kinds.Secret, Kinds.ConfigMap).build(context)],
        reconcile: (primary, context) => {
          reconciled.push(ResourceID.keyOfResource(primary));
          secondaries.set(ResourceID.keyOfResource(primary), context.getSecondaryResources(Kinds.Secret).length);
          return UpdateControl.noUpdate();
        },
      };
      const operator = new Operator({ kubeConfig: server.kubeConfig });
      stops.push(() => operator.stop({ drainTimeoutMs: 5_000 }));
      const controller = operator.register(reconciler, {
        kind: Kinds.ConfigMap,
        labelSelector: 'role=primary',
        shardSelector: low.toString(),
        generationAware: false,
      });
      for (const namespace of namespaces) {
        const primary = await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'p', labels: { role: 'primary' } } } });
        const owner = { apiVersion: 'v1', kind: 'ConfigMap', name: 'p', uid: primary.metadata!.uid! };
        await core.createNamespacedSecret({ namespace, body: { metadata: { name: 's', ownerReferences: [owner] } } });
      }
      await operator.start();
      const mine = namespaces.filter((n) => low.matches({ metadata: { namespace: n } })).map((n) => `${n}/p`);
      await eventually(() => expect([...new Set(reconciled)].sort()).to.deep.equal(mine.sort()), { timeoutMs: 30_000 });
      await eventually(() => expect(mine.map((k) => secondaries.get(k))).to.deep.equal(mine.map(() => 1)), { timeoutMs: 30_000 });
      expect(controller.shardSelector?.equals(low)).to.equal(true);
      // Taking over the other half reconciles the primaries that joined.
      await controller.changeShardSelector(ShardSelector.forShards('object.metadata.namespace', [0, 1], 2));
      await eventually(() => expect([...new Set(reconciled)].sort()).to.deep.equal(namespaces.map((n) => `${n}/p`).sort()), {
        timeoutMs: 30_000,
      });
    });
  });
}
