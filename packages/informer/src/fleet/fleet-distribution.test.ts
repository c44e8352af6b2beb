import { expect } from 'chai';
import { ResourceID, UpdateControl, type KubernetesObject } from '@kindex/core';
import { createNamespace, eventually, startTestApiServer, uniqueName, type TestApiServer } from '@kindex/testing';
import {
  Kinds,
  KubeClient,
  NotLeaderError,
  Operator,
  StaticClusterProvider,
  type FleetController,
  type FleetReconciler,
  type Lease,
} from '../index.js';

// How the replicas of an operator share a fleet: one leader runs it all, or the shards spread its
// clusters. The clusters here are names for one test API server: what is checked is who runs which.

const fast = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 400 } as const;
const TIMING = { leaseDurationMs: 4000, renewDeadlineMs: 3000, retryPeriodMs: 500 } as const;

const noop: FleetReconciler<KubernetesObject> = { reconcile: () => UpdateControl.noUpdate() };

describe('Operator.registerFleet distribution', function () {
  this.timeout(120_000);
  let server: TestApiServer;
  const operators: Operator[] = [];
  before(async () => {
    server = await startTestApiServer();
  });
  afterEach(async () => {
    await Promise.all(operators.splice(0).map((o) => o.stop({ drainTimeoutMs: 2_000 })));
  });
  after(async () => {
    await server?.stop();
  });

  const clusterNames = (n: number): string[] => Array.from({ length: n }, (_, i) => `cluster-${i}`);
  const provider = (names: readonly string[]): StaticClusterProvider =>
    new StaticClusterProvider(names.map((name) => ({ name, kubeConfig: server.kubeConfig })));
  const running = (fleet: FleetController): string[] => fleet.clusters.map((c) => c.name).sort();

  it('reconciles the fleet on the leader only; a follower keeps its clusters warm and reconciles at once when it leads', async () => {
    const leaseNamespace = await createNamespace(server.kubeConfig);
    const names = clusterNames(2);
    const leaseName = uniqueName('fleet');
    const reconciled = new Map<string, string[]>();
    const make = (identity: string) => {
      const operator = new Operator({
        kubeConfig: server.kubeConfig,
        leaderElection: { leaseName, leaseNamespace, identity, onLost: 'standby', ...fast },
      });
      operators.push(operator);
      const recording: FleetReconciler<KubernetesObject> = {
        reconcile: (primary, context) => {
          reconciled.set(identity, [...(reconciled.get(identity) ?? []), `${context.getClient().cluster}/${primary.metadata!.name}`]);
          return UpdateControl.noUpdate();
        },
      };
      const fleet = operator.registerFleet(recording, { kind: Kinds.Namespace, clusters: provider(names) });
      return { operator, fleet, identity };
    };
    const a = make('replica-a');
    const b = make('replica-b');
    await Promise.all([a.operator.start(), b.operator.start()]);
    await eventually(() => expect(a.operator.isLeader !== b.operator.isLeader).to.equal(true), { timeoutMs: 10_000 });
    const [leader, follower] = a.operator.isLeader ? [a, b] : [b, a];
    await eventually(() => expect(leader.fleet.clusters.filter((c) => c.state === 'ready').map((c) => c.name)).to.have.members(names));
    await eventually(() => expect(reconciled.get(leader.identity)).to.include(`${names[0]}/${leaseNamespace}`));
    // The follower runs every cluster's caches (synced, holding the namespaces) but reconciles nothing.
    await eventually(() =>
      expect(follower.fleet.clusters).to.have.deep.members(
        names.map((name) => ({ name, source: `static cluster list entry ${names.indexOf(name)}`, state: 'ready', standby: true })),
      ),
    );
    const warm = names.map((name) => follower.fleet.controllerOf(name)!);
    expect(warm.every((c) => c.primaryCache.hasSynced() && c.primaryCache.size > 0)).to.equal(true);
    expect(leader.fleet.clusters.map((c) => c.standby)).to.deep.equal([undefined, undefined]);
    expect(reconciled.get(follower.identity)).to.equal(undefined);

    await leader.operator.stop({ drainTimeoutMs: 2_000 });
    await eventually(() => expect(reconciled.get(follower.identity)).to.include(`${names[1]}/${leaseNamespace}`), { timeoutMs: 20_000 });
    // The same controllers and caches: the new leader did not engage (and list) its clusters again.
    expect(names.map((name, i) => follower.fleet.controllerOf(name) === warm[i])).to.deep.equal([true, true]);
    expect(follower.fleet.clusters.map((c) => [c.state, c.standby])).to.deep.equal([
      ['ready', undefined],
      ['ready', undefined],
    ]);
  });

  it('holds a leader that loses its lease: in-flight reconciles aborted with NotLeaderError, caches kept warm', async () => {
    const leaseNamespace = await createNamespace(server.kubeConfig);
    const leaseName = uniqueName('fleet');
    const names = clusterNames(2);
    const signals: AbortSignal[] = [];
    const operator = new Operator({
      kubeConfig: server.kubeConfig,
      leaderElection: { leaseName, leaseNamespace, identity: 'replica-a', onLost: 'standby', ...fast },
    });
    operators.push(operator);
    const busy: FleetReconciler<KubernetesObject> = {
      reconcile: async (primary, context) => {
        if (primary.metadata!.name !== leaseNamespace) return UpdateControl.noUpdate();
        const signal = context.getSignal();
        signals.push(signal);
        await new Promise((resolve) => signal.addEventListener('abort', resolve));
        return UpdateControl.noUpdate();
      },
    };
    const fleet = operator.registerFleet(busy, { kind: Kinds.Namespace, clusters: provider(names) });
    await operator.start();
    await eventually(() => expect(signals).to.have.length(2), { timeoutMs: 20_000 });
    const engaged = names.map((name) => fleet.controllerOf(name)!);

    const client = new KubeClient(server.kubeConfig);
    const lease = (await client.get<Lease>(Kinds.Lease, ResourceID.of(leaseName, leaseNamespace)))!;
    await client.update<Lease>(Kinds.Lease, { ...lease, spec: { ...lease.spec, holderIdentity: 'intruder' } });
    await eventually(() => expect(signals.every((s) => s.aborted)).to.equal(true), { timeoutMs: 5_000 });
    expect(signals.map((s) => s.reason instanceof NotLeaderError)).to.deep.equal([true, true]);
    // Held, not disengaged: the same controllers, their caches synced, reconciles held back.
    expect(fleet.clusters.map((c) => [c.name, c.state, c.standby])).to.have.deep.members(names.map((n) => [n, 'ready', true]));
    expect(names.map((name, i) => fleet.controllerOf(name) === engaged[i] && engaged[i]!.dispatchPaused)).to.deep.equal([true, true]);
  });

  it("spreads the clusters over the replicas by the operator's shards, each run by one replica", async () => {
    const leaseNamespace = await createNamespace(server.kubeConfig);
    const group = uniqueName('fleet-shards');
    const names = clusterNames(8);
    const make = (identity: string): FleetController => {
      const operator = new Operator({
        kubeConfig: server.kubeConfig,
        sharding: { group, namespace: leaseNamespace, shards: 4, identity, ...TIMING },
      });
      operators.push(operator);
      return operator.registerFleet(noop, { kind: Kinds.Namespace, clusters: provider(names), distribution: 'sharded' });
    };
    const fleets = [make('replica-a'), make('replica-b')];
    await Promise.all(operators.map((o) => o.start()));
    await eventually(
      () => {
        const [a, b] = fleets.map(running);
        expect([...a!, ...b!].sort()).to.deep.equal([...names].sort());
        expect(a!.filter((n) => b!.includes(n))).to.deep.equal([]);
        expect(a!.length).to.be.greaterThan(0);
        expect(b!.length).to.be.greaterThan(0);
      },
      { timeoutMs: 30_000 },
    );
  });
});
