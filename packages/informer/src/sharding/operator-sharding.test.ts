import { expect } from 'chai';
import { CoreV1Api } from '@kubernetes/client-node';
import { ResourceID, ShardMap, UpdateControl, type KubernetesObject, type Reconciler } from '@kindex/core';
import { createNamespace, eventually, startTestApiServer, uniqueName, type TestApiServer } from '@kindex/testing';
import {
  Kinds,
  KubeClient,
  Operator,
  Reflector,
  ShardLostError,
  ShardingConfigError,
  type Controller,
  type Lease,
  type ReflectorHealth,
} from '../index.js';

interface Run {
  readonly replica: string;
  readonly key: string;
  readonly start: number;
  end: number;
}

/** A reconciler that records each run of `replica` in `runs`. */
function recordingReconciler(replica: string, runs: Run[]): Reconciler<KubernetesObject, KubeClient> {
  return {
    reconcile: async (primary) => {
      const run: Run = { replica, key: ResourceID.keyOfResource(primary), start: performance.now(), end: Infinity };
      runs.push(run);
      // Long enough for a rebalance to land in the middle of some reconciles.
      await new Promise((resolve) => setTimeout(resolve, 30));
      run.end = performance.now();
      return UpdateControl.noUpdate();
    },
  };
}

// The replicas and the API server share one process: an event-loop stall past the renew deadline
// (a GC, a starved CI machine) costs every replica its shards at once, and the ownership the
// assertions compare against moves under them. A 3 s deadline leaves room for that; leavers
// release their Leases, so no step waits the lease out.
const TIMING = { leaseDurationMs: 4000, renewDeadlineMs: 3000, retryPeriodMs: 500 } as const;
const SHARDS = 4;

describe('Operator sharding', function () {
  this.timeout(120_000);
  let server: TestApiServer;
  let core: CoreV1Api;
  const operators: Operator[] = [];

  before(async function () {
    this.timeout(180_000);
    server = await startTestApiServer();
    core = server.kubeConfig.makeApiClient(CoreV1Api);
  });
  afterEach(async () => {
    await Promise.all(operators.splice(0).map((o) => o.stop({ drainTimeoutMs: 2_000 })));
  });
  after(async () => {
    await server.stop();
  });

  it('replicas split the shards, reconcile only their own primaries, never one primary at once on two replicas, and take over a leaver’s shards', async () => {
    const group = uniqueName('shards');
    const leaseNamespace = await createNamespace(server.kubeConfig);
    const runs: Run[] = [];
    const label = uniqueName('primary');
    const start = async (replica: string): Promise<Operator> => {
      const reconciler = recordingReconciler(replica, runs);
      const operator = new Operator({
        kubeConfig: server.kubeConfig,
        sharding: { group, namespace: leaseNamespace, shards: SHARDS, identity: replica, ...TIMING },
      });
      operator.register(reconciler, {
        kind: Kinds.ConfigMap,
        labelSelector: `role=${label}`,
        generationAware: false,
        maxReconciliationIntervalMs: 500,
      });
      operators.push(operator);
      await operator.start();
      return operator;
    };
    const namespaces: string[] = [];
    for (let i = 0; i < 8; i++) namespaces.push(await createNamespace(server.kubeConfig));
    for (const namespace of namespaces) {
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'p', labels: { role: label } } } });
    }
    const keys = namespaces.map((n) => `${n}/p`).sort();
    const [a, b, c] = [await start('a'), await start('b'), await start('c')];
    const owned = () => [a, b, c].filter((o) => !stopped.has(o)).map((o) => o.shardCoordinator!.owned());
    const stopped = new Set<Operator>();
    // Settled: every shard owned exactly once, at most ceil(4/3) = 2 each.
    await eventually(
      () => {
        const all = owned().flat().sort();
        expect(all).to.deep.equal([0, 1, 2, 3]);
        for (const o of owned()) expect(o.length).to.be.at.most(2);
      },
      { timeoutMs: 30_000 },
    );
    // Every primary reconciled, each by the owner of its shard.
    await eventually(() => expect([...new Set(runs.map((r) => r.key))].sort()).to.deep.equal(keys), { timeoutMs: 30_000 });
    // The shard of a namespace under the map the replicas follow (cut at the quantiles of the namespaces present).
    const shardOf = (key: string): number => a.shardCoordinator!.map.shardOfValue(key.split('/')[0]!);
    expect(a.shardCoordinator!.map.epoch, 'a balanced map was published').to.be.at.least(1);
    const ownerOf = (key: string): string => {
      const shard = shardOf(key);
      return ['a', 'b', 'c'][[a, b, c].findIndex((o) => o.shardCoordinator!.owns(shard))]!;
    };
    const mark = runs.length;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    for (const run of runs.slice(mark)) expect(run.replica, run.key).to.equal(ownerOf(run.key));
    // A leaves: its shards go to b and c, and its primaries keep being reconciled there.
    const leaving = a.shardCoordinator!.owned();
    stopped.add(a);
    await a.stop({ drainTimeoutMs: 2_000 });
    await eventually(() => expect(owned().flat().sort()).to.deep.equal([0, 1, 2, 3]), { timeoutMs: 30_000 });
    const afterLeave = performance.now();
    await eventually(
      () => {
        for (const key of keys) {
          if (!leaving.includes(shardOf(key))) continue;
          expect(
            runs.some((r) => r.key === key && r.start > afterLeave && r.replica !== 'a'),
            key,
          ).to.equal(true);
        }
      },
      { timeoutMs: 30_000 },
    );
    // Never two replicas on one primary at once.
    for (const key of keys) {
      const mine = runs.filter((r) => r.key === key).sort((x, y) => x.start - y.start);
      for (let i = 1; i < mine.length; i++) {
        if (mine[i]!.replica !== mine[i - 1]!.replica) expect(mine[i]!.start, key).to.be.at.least(mine[i - 1]!.end);
      }
    }
  });

  it('balances 30 sequential namespaces over 6 shards on 3 replicas: 5 namespaces a shard, each replica caching its share through a server-side filter, and rebalances when namespaces pile into one shard', async () => {
    const group = uniqueName('balance');
    const leaseNamespace = await createNamespace(server.kubeConfig);
    const label = uniqueName('bal');
    const prefix = uniqueName('team');
    const names: string[] = [];
    const addNamespace = async (name: string): Promise<void> => {
      await core.createNamespace({ body: { metadata: { name, labels: { 'shard-balance': label } } } });
      await core.createNamespacedConfigMap({ namespace: name, body: { metadata: { name: 'p', labels: { role: label } } } });
      names.push(name);
    };
    for (let i = 1; i <= 30; i++) await addNamespace(`${prefix}-${i}`);
    // Equal slices would leave this population unbalanced; the test is about the map fixing that.
    const equalLoads = ShardMap.equal('object.metadata.namespace', 6).loads(names);
    const runs: Run[] = [];
    const replicas: { name: string; operator: Operator; controller: Controller<KubernetesObject> }[] = [];
    for (const replica of ['a', 'b', 'c']) {
      const operator = new Operator({
        kubeConfig: server.kubeConfig,
        sharding: {
          group,
          namespace: leaseNamespace,
          shards: 6,
          identity: replica,
          namespaceLabelSelector: `shard-balance=${label}`,
          ...TIMING,
        },
      });
      const controller = operator.register<KubernetesObject>(recordingReconciler(replica, runs), {
        kind: Kinds.ConfigMap,
        labelSelector: `role=${label}`,
        generationAware: false,
        maxReconciliationIntervalMs: 500,
      });
      operators.push(operator);
      replicas.push({ name: replica, operator, controller });
    }
    await Promise.all(replicas.map((r) => r.operator.start()));
    /** Settled on a map of at least `epoch`: one map, every shard owned once, 2 each, caches holding exactly the namespaces of their shards. */
    const settled = async (epoch: number): Promise<ShardMap> => {
      let map: ShardMap | undefined;
      await eventually(
        () => {
          const ownerships = replicas.map((r) => r.operator.shardCoordinator!.ownership);
          map = ownerships[0]!.map;
          expect(map.epoch).to.be.at.least(epoch);
          for (const o of ownerships) {
            expect(o.map.epoch).to.equal(map.epoch);
            expect(o.settled).to.equal(true);
            expect(o.ready).to.deep.equal(o.owned);
            expect(o.owned).to.have.length(2);
          }
          expect(ownerships.flatMap((o) => o.owned).sort()).to.deep.equal([0, 1, 2, 3, 4, 5]);
          for (const [i, r] of replicas.entries()) {
            const mine = names.filter((n) => ownerships[i]!.owned.includes(map!.shardOfValue(n))).sort();
            const cached = r.controller.primaryCache
              .list()
              .map((p) => p.metadata!.namespace!)
              .sort();
            expect(cached, `replica ${r.name}'s cache`).to.deep.equal(mine);
          }
        },
        { timeoutMs: 60_000 },
      );
      return map!;
    };
    const map = await settled(1);
    const loads = map.loads(names);
    expect(loads, `equal slices: ${equalLoads.join(',')}`).to.deep.equal([5, 5, 5, 5, 5, 5]);
    // Every replica's share is 10 namespaces, fetched through its selector (ranges joined by ||) and filtered by the server.
    for (const r of replicas) {
      const selector = r.controller.shardSelector!;
      expect(selector.toString()).to.equal(map.selectorFor(r.operator.shardCoordinator!.owned()).toString());
      const reflector = new Reflector<KubernetesObject>({
        kubeConfig: server.kubeConfig,
        type: Kinds.ConfigMap,
        labelSelector: `role=${label}`,
        shardSelector: selector.toString(),
      });
      let health: ReflectorHealth | undefined;
      reflector.health$.subscribe((h) => (health = h));
      try {
        await reflector.start();
        expect(await reflector.waitForSync({ timeoutMs: 30_000 })).to.equal(true);
        expect(health?.shardFilter, `replica ${r.name}`).to.equal('server');
        expect(reflector.objectsReceived, `replica ${r.name}`).to.equal(10);
      } finally {
        await reflector.stop();
      }
    }
    // Namespaces that all fall into shard 0 pass the bound at 34 (shard 0 holds 9 > max(6, 8)): the map is recut.
    const before = names.length;
    for (let k = 0; names.length < before + 4; k++) {
      const name = `${prefix}-x${k}`;
      if (map.shardOfValue(name) === 0) await addNamespace(name);
    }
    const mark = performance.now();
    const recut = await settled(map.epoch + 1);
    const after = recut.loads(names);
    for (const load of after) expect(load, `loads ${after.join(',')}`).to.be.within(5, 6);
    // Every namespace reconciled after the change, by its owner under the new map; never by two replicas at once.
    const ownerOf = (key: string): string =>
      replicas.find((r) => r.operator.shardCoordinator!.owned().includes(recut.shardOfValue(key.split('/')[0]!)))!.name;
    await eventually(
      () => {
        for (const name of names)
          expect(
            runs.some((run) => run.key === `${name}/p` && run.start > mark && run.replica === ownerOf(run.key)),
            name,
          ).to.equal(true);
      },
      { timeoutMs: 30_000 },
    );
    for (const name of names) {
      const mine = runs.filter((r) => r.key === `${name}/p`).sort((x, y) => x.start - y.start);
      for (let i = 1; i < mine.length; i++) {
        if (mine[i]!.replica !== mine[i - 1]!.replica) expect(mine[i]!.start, name).to.be.at.least(mine[i - 1]!.end);
      }
    }
  });

  it('aborts a running reconcile the moment its shard is lost, and does not write what it returns', async () => {
    const group = uniqueName('lost');
    const leaseNamespace = await createNamespace(server.kubeConfig);
    const namespace = await createNamespace(server.kubeConfig);
    const label = uniqueName('primary');
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'busy', labels: { role: label } } } });
    let signal: AbortSignal | undefined;
    const operator = new Operator({
      kubeConfig: server.kubeConfig,
      sharding: { group, namespace: leaseNamespace, shards: 2, identity: 'solo', ...TIMING },
    });
    operator.register<KubernetesObject>(
      {
        reconcile: async (primary, context) => {
          signal ??= context.getSignal();
          await new Promise((resolve) => context.getSignal().addEventListener('abort', resolve));
          return UpdateControl.patchResource({ ...primary, metadata: { ...primary.metadata, annotations: { written: 'after-loss' } } });
        },
      },
      { kind: Kinds.ConfigMap, labelSelector: `role=${label}`, generationAware: false },
    );
    operators.push(operator);
    await operator.start();
    await eventually(() => expect(signal).to.not.equal(undefined), { timeoutMs: 30_000 });
    const shard = operator.shardCoordinator!.map.shardOfValue(namespace);
    const client = new KubeClient(server.kubeConfig);
    const lease = (await client.get<Lease>(Kinds.Lease, ResourceID.of(`${group}-shard-${shard}`, leaseNamespace)))!;
    expect(lease.spec?.holderIdentity).to.equal('solo');
    await client.update<Lease>(Kinds.Lease, { ...lease, spec: { ...lease.spec, holderIdentity: 'intruder' } });
    await eventually(() => expect(signal!.aborted).to.equal(true), { timeoutMs: 15_000 });
    expect(signal!.reason).to.be.instanceOf(ShardLostError);
    expect(signal!.reason).to.include({ shard, reason: 'moved', identity: 'solo' });
    expect(operator.shardCoordinator!.owns(shard)).to.equal(false);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const stored = await core.readNamespacedConfigMap({ name: 'busy', namespace });
    expect(stored.metadata?.annotations?.['written'], 'fenced').to.equal(undefined);
  });
  it('rejects a namespaceLabelSelector that does not parse, or one given with uid sharding, naming the option and the fix', () => {
    const make = (extra: { namespaceLabelSelector: string; field?: 'object.metadata.uid' }) =>
      new Operator({ kubeConfig: server.kubeConfig, sharding: { group: 'g', namespace: 'ops', shards: 2, ...extra } });
    expect(() => make({ namespaceLabelSelector: 'tier in (prod' })).to.throw(
      ShardingConfigError,
      /^sharding\.namespaceLabelSelector = "tier in \(prod": .*for example/,
    );
    expect(() => make({ namespaceLabelSelector: 'team', field: 'object.metadata.uid' })).to.throw(
      ShardingConfigError,
      /only with field 'object\.metadata\.namespace'/,
    );
  });

  it('refuses every write of a reconcile whose shard’s renew deadline passed while the process was paused, before any timer ran', async () => {
    const group = uniqueName('paused');
    const leaseNamespace = await createNamespace(server.kubeConfig);
    const namespace = await createNamespace(server.kubeConfig);
    const label = uniqueName('primary');
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'p', labels: { role: label } } } });
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'victim' } } });
    const refused: Record<string, unknown> = {};
    let attempts = 0;
    const operator = new Operator({
      kubeConfig: server.kubeConfig,
      sharding: { group, namespace: leaseNamespace, shards: 1, identity: 'solo', ...TIMING },
    });
    const out = (name: string): KubernetesObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace } });
    operator.register<KubernetesObject>(
      {
        reconcile: async (primary, context) => {
          const attempt = ++attempts;
          const client = context.getClient();
          if (attempt === 1) {
            // The whole process stands still past the renew deadline, timers included (as under
            // SIGSTOP); the writes below come first once it runs again.
            Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, TIMING.renewDeadlineMs + 300);
            const writes: Record<string, () => Promise<unknown>> = {
              apply: () => client.apply(Kinds.ConfigMap, out('applied-1'), { force: true }),
              create: () => client.create(Kinds.ConfigMap, out('created-1')),
              patch: () => client.patch(Kinds.ConfigMap, ResourceID.of('p', namespace), { metadata: { annotations: { patched: '1' } } }),
              delete: () => client.delete(Kinds.ConfigMap, ResourceID.of('victim', namespace)),
            };
            for (const [name, write] of Object.entries(writes)) {
              refused[name] = await write().then(
                () => 'written',
                (error: unknown) => (error instanceof ShardLostError ? error.reason : error),
              );
            }
          } else {
            await client.apply(Kinds.ConfigMap, out(`applied-${attempt}`), { force: true });
          }
          // The primary's own write, by the controller, is fenced the same way.
          const annotations = { ...primary.metadata?.annotations, [`attempt-${attempt}`]: 'done' };
          return UpdateControl.patchResource({ ...primary, metadata: { ...primary.metadata, annotations } });
        },
      },
      { kind: Kinds.ConfigMap, labelSelector: `role=${label}`, generationAware: false },
    );
    operators.push(operator);
    await operator.start();
    await eventually(() => expect(attempts).to.be.at.least(1), { timeoutMs: 30_000 });
    await eventually(() => expect(Object.keys(refused)).to.have.length(4), { timeoutMs: 10_000 });
    expect(refused).to.deep.equal({ apply: 'renew-deadline', create: 'renew-deadline', patch: 'renew-deadline', delete: 'renew-deadline' });
    // Nobody took the shard: a renewal finds it still ours, and the retry writes.
    await eventually(
      async () => {
        const primary = await core.readNamespacedConfigMap({ name: 'p', namespace });
        expect(Object.keys(primary.metadata?.annotations ?? {}).filter((a) => a.startsWith('attempt-'))).to.have.length.at.least(1);
      },
      { timeoutMs: 30_000 },
    );
    const primary = await core.readNamespacedConfigMap({ name: 'p', namespace });
    expect(primary.metadata?.annotations?.['attempt-1'], 'the paused attempt’s primary write').to.equal(undefined);
    expect(primary.metadata?.annotations?.['patched'], 'the paused attempt’s patch').to.equal(undefined);
    const names = (await core.listNamespacedConfigMap({ namespace })).items.map((c) => c.metadata?.name);
    expect(names).to.include('victim').and.to.include('applied-2');
    expect(names).to.not.include('applied-1').and.to.not.include('created-1');
  });
});
