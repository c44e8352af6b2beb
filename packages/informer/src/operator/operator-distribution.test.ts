// Operator with leaderElection and sharding at once: each controller runs leader-elected, sharded
// or on every replica. Replicas in one process against the test server of the run (embedded, or
// real with KINDEX_APISERVER=real); the SIGKILL scenario with child processes lives in
// integration-tests/src/mixed-distribution-processes.test.ts.
import { expect } from 'chai';
import { CoreV1Api } from '@kubernetes/client-node';
import { ResourceID, UpdateControl, type KubernetesObject, type LogFn, type Logger, type Reconciler } from '@kindex/core';
import { createNamespace, eventually, useTestApiServer, uniqueName, type TestApiServer } from '@kindex/testing';
import { createNamespacesPerShard, metricValue } from '@kindex/testing/internal';
import {
  ControllerDistributionError,
  Kinds,
  KubeClient,
  NotLeaderError,
  Operator,
  StaticClusterProvider,
  type ControllerDistribution,
  type Lease,
  type OperatorOptions,
} from '../index.js';

const TIMING = { leaseDurationMs: 2_000, renewDeadlineMs: 1_500, retryPeriodMs: 250 } as const;
const SHARDS = 4;

interface Run {
  readonly replica: string;
  readonly controller: string;
  readonly key: string;
  readonly start: number;
  end: number;
}

describe('Operator controller distribution', function () {
  this.timeout(120_000);
  const testServer = useTestApiServer();
  const operators: Operator[] = [];
  const noop: Reconciler<KubernetesObject, KubeClient> = { reconcile: () => UpdateControl.noUpdate() };
  afterEach(async () => {
    await Promise.all(operators.splice(0).map((o) => o.stop({ drainTimeoutMs: 2_000 })));
  });
  // Read in the tests (the server exists from the suite's before hook on).
  let server: TestApiServer;
  let core: CoreV1Api;
  beforeEach(() => {
    server = testServer();
    core = server.kubeConfig.makeApiClient(CoreV1Api);
  });

  const election = { leaseName: 'mixed', leaseNamespace: 'ops', ...TIMING };
  const sharding = { group: 'mixed', namespace: 'ops', shards: SHARDS, ...TIMING };

  describe('defaults and validation (no server calls)', () => {
    const cases: [string, Partial<OperatorOptions>, ControllerDistribution][] = [
      ['neither option', {}, 'every-replica'],
      ['leaderElection only', { leaderElection: election }, 'leader-elected'],
      ['sharding only', { sharding }, 'sharded'],
      [
        'both (as controller-runtime: leader-elected unless the controller says otherwise)',
        { leaderElection: election, sharding },
        'leader-elected',
      ],
    ];
    for (const [what, options, expected] of cases) {
      it(`defaults to '${expected}' with ${what}`, () => {
        const operator = new Operator({ kubeConfig: server.kubeConfig, ...options });
        const controller = operator.register(noop, { kind: Kinds.ConfigMap });
        expect(operator.distributionOf(controller)).to.equal(expected);
        // What the distribution does to the controller before start: the leader's controllers wait, sharded ones cache nothing yet.
        expect(controller.dispatchPaused, 'paused until leading').to.equal(expected === 'leader-elected');
        expect(controller.shardSelector !== undefined, 'sharded').to.equal(expected === 'sharded');
      });
    }

    it('runs a singleton, a sharded and an every-replica controller in one operator', () => {
      const operator = new Operator({ kubeConfig: server.kubeConfig, leaderElection: election, sharding });
      const single = operator.register(noop, { kind: Kinds.ConfigMap, name: 'single' });
      const sharded = operator.register(noop, { kind: Kinds.ConfigMap, name: 'sharded', distribution: 'sharded' });
      const everywhere = operator.register(noop, { kind: Kinds.ConfigMap, name: 'everywhere', distribution: 'every-replica' });
      expect([single, sharded, everywhere].map((c) => operator.distributionOf(c))).to.deep.equal([
        'leader-elected',
        'sharded',
        'every-replica',
      ]);
      expect([single, sharded, everywhere].map((c) => c.dispatchPaused)).to.deep.equal([true, false, false]);
      expect([single, sharded, everywhere].map((c) => c.shardSelector !== undefined)).to.deep.equal([false, true, false]);
    });

    it('refuses a sharded controller on an operator without sharding, naming the controller, the option and the fix', () => {
      const operator = new Operator({ kubeConfig: server.kubeConfig, leaderElection: election });
      const attempt = () => operator.register(noop, { kind: Kinds.ConfigMap, name: 'configs', distribution: 'sharded' });
      expect(attempt).to.throw(ControllerDistributionError);
      try {
        attempt();
      } catch (e) {
        const error = e as ControllerDistributionError;
        expect(error).to.include({ controller: 'configs', field: 'distribution', value: 'sharded' });
        expect(error.message).to.equal(
          'controller "configs": distribution "sharded": the Operator has no sharding option: give it `sharding: { group, namespace, shards }`, ' +
            "or register the controller with distribution 'leader-elected' or 'every-replica'",
        );
      }
      expect(operator.controllers).to.have.length(0);
    });

    it('refuses a leader-elected controller on an operator without leaderElection', () => {
      const operator = new Operator({ kubeConfig: server.kubeConfig, sharding });
      expect(() => operator.register(noop, { kind: Kinds.ConfigMap, distribution: 'leader-elected' })).to.throw(
        ControllerDistributionError,
        'controller "configmaps.core": distribution "leader-elected": the Operator has no leaderElection option: ' +
          "give it `leaderElection: { leaseName, leaseNamespace }`, or register the controller with distribution 'sharded' or 'every-replica'",
      );
    });

    it('refuses an unknown distribution with the accepted values', () => {
      const operator = new Operator({ kubeConfig: server.kubeConfig, leaderElection: election, sharding });
      const distribution = 'shard' as ControllerDistribution;
      expect(() => operator.register(noop, { kind: Kinds.ConfigMap, name: 'typo', distribution })).to.throw(
        ControllerDistributionError,
        `controller "typo": distribution "shard": use one of 'leader-elected', 'sharded', 'every-replica'`,
      );
    });
  });

  /** An operator with both leader election and sharding whose warnings are kept. */
  async function warnedOperator(): Promise<{ operator: Operator; warnings: string[]; leaseNamespace: string }> {
    const leaseNamespace = await createNamespace(server.kubeConfig);
    const warnings: string[] = [];
    const ignore: LogFn = () => {};
    const warn: LogFn = (first: object | string, message?: string) =>
      void warnings.push(typeof first === 'string' ? first : (message ?? ''));
    const logger: Logger = { trace: ignore, debug: ignore, info: ignore, warn, error: ignore, fatal: ignore, child: () => logger };
    const operator = new Operator({
      kubeConfig: server.kubeConfig,
      logger,
      leaderElection: { ...election, leaseName: uniqueName('warn'), leaseNamespace },
      sharding: { ...sharding, group: uniqueName('warn'), namespace: leaseNamespace },
    });
    operators.push(operator);
    return { operator, warnings, leaseNamespace };
  }

  it('warns at start when a configured mechanism has no controller (with both options, sharded controllers must opt in)', async () => {
    const { operator, warnings, leaseNamespace } = await warnedOperator();
    operator.register(noop, { kind: Kinds.ConfigMap, namespaces: [leaseNamespace] });
    await operator.start();
    expect(warnings).to.include("sharding is configured but no controller is sharded: register them with distribution: 'sharded'");
    expect(warnings.filter((w) => w.startsWith('leaderElection is configured'))).to.deep.equal([]);
  });

  it('counts a fleet as a user of the mechanism its distribution names: no warning for a sharded fleet', async () => {
    const { operator, warnings, leaseNamespace } = await warnedOperator();
    operator.register(noop, { kind: Kinds.ConfigMap, namespaces: [leaseNamespace] });
    operator.registerFleet(noop, {
      kind: Kinds.Secret,
      namespaces: [leaseNamespace],
      distribution: 'sharded',
      clusters: new StaticClusterProvider([{ name: 'home', kubeConfig: server.kubeConfig }]),
    });
    await operator.start();
    expect(warnings.filter((w) => w.startsWith('sharding is configured') || w.startsWith('leaderElection is configured'))).to.deep.equal(
      [],
    );
  });

  /** One replica with both options: a singleton, a sharded and an every-replica controller, each on its own ConfigMaps. */
  function replica(replica: string, setup: { leaseNamespace: string; group: string; label: string; runs: Run[] }): Operator {
    const operator = new Operator({
      kubeConfig: server.kubeConfig,
      leaderElection: { leaseName: setup.group, leaseNamespace: setup.leaseNamespace, identity: replica, onLost: 'standby', ...TIMING },
      sharding: { group: setup.group, namespace: setup.leaseNamespace, shards: SHARDS, identity: replica, ...TIMING },
    });
    const reconciler = (controller: string): Reconciler<KubernetesObject, KubeClient> => ({
      reconcile: async (primary, context) => {
        const run: Run = { replica, controller, key: ResourceID.keyOfResource(primary), start: performance.now(), end: Infinity };
        setup.runs.push(run);
        // Long enough for a handover to land in the middle of some reconciles.
        await new Promise((resolve) => setTimeout(resolve, 30));
        // Through the controller's own client: fenced by the leader Lease only for the singleton.
        // One annotation per replica: two every-replica writers of one key would trigger each other without end.
        const annotation = controller === 'every' ? `by-every-${replica}` : `by-${controller}`;
        await context
          .getClient()
          .patch(Kinds.ConfigMap, ResourceID.fromResource(primary), { metadata: { annotations: { [annotation]: replica } } });
        run.end = performance.now();
        return UpdateControl.noUpdate();
      },
    });
    const common = { kind: Kinds.ConfigMap, generationAware: false, maxReconciliationIntervalMs: 500 } as const;
    operator.register(reconciler('single'), { ...common, name: 'single', labelSelector: `role=${setup.label}-single` });
    operator.register(reconciler('sharded'), {
      ...common,
      name: 'sharded',
      labelSelector: `role=${setup.label}-sharded`,
      distribution: 'sharded',
    });
    operator.register(reconciler('every'), {
      ...common,
      name: 'every',
      labelSelector: `role=${setup.label}-every`,
      distribution: 'every-replica',
    });
    operators.push(operator);
    return operator;
  }

  it('one leader runs the singleton, both replicas run their shards and the every-replica controller; the leaver’s work moves', async () => {
    const group = uniqueName('mixed');
    const label = uniqueName('p');
    const leaseNamespace = await createNamespace(server.kubeConfig);
    const runs: Run[] = [];
    const setup = { leaseNamespace, group, label, runs };
    const a = replica('a', setup);
    await a.start();
    await eventually(() => expect(a.isLeader).to.equal(true), { timeoutMs: 20_000 });
    const b = replica('b', setup);
    await b.start();
    // Settled: a leads, the shards are split between a and b (2 each), both follow the map the group
    // published (cut at the quantiles of the namespaces present) and the change to it has settled.
    await eventually(
      () => {
        expect([...a.shardCoordinator!.owned(), ...b.shardCoordinator!.owned()].sort()).to.deep.equal([0, 1, 2, 3]);
        expect(b.shardCoordinator!.owned()).to.have.length(2);
        expect(a.shardCoordinator!.map.epoch).to.be.at.least(1);
        expect(b.shardCoordinator!.map.epoch).to.equal(a.shardCoordinator!.map.epoch);
        expect([a.shardCoordinator!.ownership.settled, b.shardCoordinator!.ownership.settled]).to.deep.equal([true, true]);
      },
      { timeoutMs: 30_000 },
    );
    const map = a.shardCoordinator!.map;
    // Two namespaces in each shard of that map (the same number in each: no recut), one sharded primary in each.
    const namespaces = await createNamespacesPerShard(server.kubeConfig, { shards: SHARDS, perShard: 2, map });
    for (const namespace of namespaces) {
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 's', labels: { role: `${label}-sharded` } } } });
    }
    const home = namespaces[0]!;
    await core.createNamespacedConfigMap({ namespace: home, body: { metadata: { name: 'one', labels: { role: `${label}-single` } } } });
    await core.createNamespacedConfigMap({ namespace: home, body: { metadata: { name: 'all', labels: { role: `${label}-every` } } } });
    // Every sharded primary reconciled once, so the window below sees them all.
    await eventually(() => {
      for (const n of namespaces) expect(runs.some((r) => r.controller === 'sharded' && r.key === `${n}/s`)).to.equal(true);
    });
    expect(b.isLeader).to.equal(false);
    const mark = runs.length;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const window = runs.slice(mark);
    expect(a.shardCoordinator!.map, 'the map did not change in the window').to.equal(map);
    const ownerOf = (key: string): string => (a.shardCoordinator!.owns(map.shardOfValue(key.split('/')[0]!)) ? 'a' : 'b');
    // The singleton runs on the leader only; each sharded primary on its shard's owner, both replicas working.
    expect(new Set(window.filter((r) => r.controller === 'single').map((r) => r.replica))).to.deep.equal(new Set(['a']));
    const shardedRuns = window.filter((r) => r.controller === 'sharded');
    for (const run of shardedRuns) expect(run.replica, run.key).to.equal(ownerOf(run.key));
    expect(new Set(shardedRuns.map((r) => r.replica))).to.deep.equal(new Set(['a', 'b']));
    expect(new Set(window.filter((r) => r.controller === 'every').map((r) => r.replica))).to.deep.equal(new Set(['a', 'b']));
    // The follower's sharded and every-replica writes went through (not fenced by the leader Lease)...
    const stored = (name: string, namespace: string) => core.readNamespacedConfigMap({ name, namespace });
    const bNamespace = namespaces.find((n) => ownerOf(`${n}/s`) === 'b')!;
    expect((await stored('s', bNamespace)).metadata?.annotations?.['by-sharded']).to.equal('b');
    expect((await stored('all', home)).metadata?.annotations?.['by-every-b']).to.equal('b');
    // ... while the client the follower's leader-elected controllers write with refuses.
    const refused = await b.client
      .patch(Kinds.ConfigMap, ResourceID.of('one', home), { metadata: { annotations: { intruder: 'b' } } })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(refused).to.be.instanceOf(NotLeaderError);
    // Metrics and readiness as with leader election alone: b is a ready, warm follower.
    expect(metricValue(await a.metrics.scrape(), 'leader_election_master_status', { name: group })).to.equal(1);
    expect(metricValue(await b.metrics.scrape(), 'leader_election_master_status', { name: group })).to.equal(0);
    expect((await b.health.run('readyz')).ok).to.equal(true);

    // A leaves (graceful: releases the leader Lease and its shards): b leads and owns every shard.
    await a.stop({ drainTimeoutMs: 2_000 });
    const leftAt = performance.now();
    await eventually(
      () => {
        expect(b.isLeader).to.equal(true);
        expect(b.shardCoordinator!.owned()).to.deep.equal([0, 1, 2, 3]);
      },
      { timeoutMs: 30_000 },
    );
    await eventually(
      () => {
        const after = runs.filter((r) => r.start > leftAt);
        expect(after.some((r) => r.controller === 'single' && r.replica === 'b')).to.equal(true);
        for (const n of namespaces)
          expect(
            after.some((r) => r.controller === 'sharded' && r.key === `${n}/s` && r.replica === 'b'),
            n,
          ).to.equal(true);
      },
      { timeoutMs: 30_000 },
    );
    expect(metricValue(await b.metrics.scrape(), 'leader_election_master_status', { name: group })).to.equal(1);
    const client = new KubeClient(server.kubeConfig);
    const leaderLease = await client.get<Lease>(Kinds.Lease, ResourceID.of(group, leaseNamespace));
    expect(leaderLease?.spec?.holderIdentity).to.equal('b');
    // Never one primary of one controller on two replicas at once.
    for (const controller of ['single', 'sharded']) {
      for (const key of new Set(runs.map((r) => r.key))) {
        const mine = runs.filter((r) => r.controller === controller && r.key === key).sort((x, y) => x.start - y.start);
        for (let i = 1; i < mine.length; i++) {
          if (mine[i]!.replica !== mine[i - 1]!.replica) expect(mine[i]!.start, `${controller} ${key}`).to.be.at.least(mine[i - 1]!.end);
        }
      }
    }
  });

  it('losing the leader Lease pauses and fences only the leader-elected controller; the sharded one goes on', async () => {
    const group = uniqueName('lose');
    const label = uniqueName('p');
    const leaseNamespace = await createNamespace(server.kubeConfig);
    const namespace = await createNamespace(server.kubeConfig);
    const runs: Run[] = [];
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 's', labels: { role: `${label}-sharded` } } } });
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'one', labels: { role: `${label}-single` } } } });
    const solo = replica('solo', { leaseNamespace, group, label, runs });
    await solo.start();
    await eventually(() => expect(runs.some((r) => r.controller === 'single' && r.end < Infinity)).to.equal(true), { timeoutMs: 20_000 });
    const [single, sharded] = solo.controllers;
    // An intruder takes the leader Lease (as a replica would after our renewals failed).
    const client = new KubeClient(server.kubeConfig);
    const lease = (await client.get<Lease>(Kinds.Lease, ResourceID.of(group, leaseNamespace)))!;
    await client.update<Lease>(Kinds.Lease, {
      ...lease,
      spec: {
        ...lease.spec,
        holderIdentity: 'intruder',
        leaseDurationSeconds: 3600,
        renewTime: new Date().toISOString().replace('Z', '000Z'),
      },
    });
    await eventually(() => expect(solo.isLeader).to.equal(false), { timeoutMs: 10_000 });
    expect(single!.dispatchPaused).to.equal(true);
    expect(sharded!.dispatchPaused).to.equal(false);
    expect(metricValue(await solo.metrics.scrape(), 'leader_election_master_status', { name: group })).to.equal(0);
    // Give a singleton reconcile that had just started time to end; from then on none start.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const lostAt = performance.now();
    await eventually(
      () => {
        const after = runs.filter((r) => r.start > lostAt && r.end < Infinity);
        expect(after.filter((r) => r.controller === 'sharded').length, 'sharded reconciles go on').to.be.at.least(2);
        expect(
          after.filter((r) => r.controller === 'single'),
          'no singleton reconcile without the lease',
        ).to.deep.equal([]);
      },
      { timeoutMs: 15_000 },
    );
    // Those sharded reconciles ended, so their writes went through; the leader-elected controllers' client refuses.
    let refused: unknown;
    try {
      solo.client.checkFence();
    } catch (e) {
      refused = e;
    }
    expect(refused).to.be.instanceOf(NotLeaderError);
  });
});
