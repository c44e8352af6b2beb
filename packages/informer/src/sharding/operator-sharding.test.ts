import { expect } from 'chai';
import { CoreV1Api } from '@kubernetes/client-node';
import { ResourceID, shardIndexOf, UpdateControl, type KubernetesObject, type Reconciler } from '@kindex/core';
import { createNamespace, eventually, startTestApiServer, uniqueName, type TestApiServer } from '@kindex/testing';
import { Kinds, KubeClient, Operator, ShardLostError, type Lease } from '../index.js';

interface Run {
  readonly replica: string;
  readonly key: string;
  readonly start: number;
  end: number;
}

const TIMING = { leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 250 } as const;
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
      const reconciler: Reconciler<KubernetesObject, KubeClient> = {
        reconcile: async (primary) => {
          const run: Run = { replica, key: ResourceID.keyOfResource(primary), start: performance.now(), end: Infinity };
          runs.push(run);
          // Long enough for a rebalance to land in the middle of some reconciles.
          await new Promise((resolve) => setTimeout(resolve, 30));
          run.end = performance.now();
          return UpdateControl.noUpdate();
        },
      };
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
    const ownerOf = (key: string): string => {
      const shard = shardIndexOf('object.metadata.namespace', { metadata: { namespace: key.split('/')[0]! } }, SHARDS);
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
          const shard = shardIndexOf('object.metadata.namespace', { metadata: { namespace: key.split('/')[0]! } }, SHARDS);
          if (!leaving.includes(shard)) continue;
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
    const shard = shardIndexOf('object.metadata.namespace', { metadata: { namespace } }, 2);
    const client = new KubeClient(server.kubeConfig);
    const lease = (await client.get<Lease>(Kinds.Lease, ResourceID.of(`${group}-shard-${shard}`, leaseNamespace)))!;
    expect(lease.spec?.holderIdentity).to.equal('solo');
    await client.update<Lease>(Kinds.Lease, { ...lease, spec: { ...lease.spec, holderIdentity: 'intruder' } });
    await eventually(() => expect(signal!.aborted).to.equal(true), { timeoutMs: 5_000 });
    expect(signal!.reason).to.be.instanceOf(ShardLostError);
    expect(signal!.reason).to.include({ shard, reason: 'moved', identity: 'solo' });
    expect(operator.shardCoordinator!.owns(shard)).to.equal(false);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const stored = await core.readNamespacedConfigMap({ name: 'busy', namespace });
    expect(stored.metadata?.annotations?.['written'], 'fenced').to.equal(undefined);
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
