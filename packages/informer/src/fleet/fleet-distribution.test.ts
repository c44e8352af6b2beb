import { expect } from 'chai';
import { UpdateControl, type KubernetesObject } from '@kindex/core';
import { createNamespace, eventually, startTestApiServer, uniqueName, type TestApiServer } from '@kindex/testing';
import { Kinds, Operator, StaticClusterProvider, type FleetController, type FleetReconciler } from '../index.js';

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

  it('runs the fleet on the leader only, and on the next leader once it goes', async () => {
    const leaseNamespace = await createNamespace(server.kubeConfig);
    const names = clusterNames(2);
    const leaseName = uniqueName('fleet');
    const make = (identity: string) => {
      const operator = new Operator({
        kubeConfig: server.kubeConfig,
        leaderElection: { leaseName, leaseNamespace, identity, onLost: 'standby', ...fast },
      });
      operators.push(operator);
      return { operator, fleet: operator.registerFleet(noop, { kind: Kinds.Namespace, clusters: provider(names) }) };
    };
    const a = make('replica-a');
    const b = make('replica-b');
    await Promise.all([a.operator.start(), b.operator.start()]);
    await eventually(() => expect(a.operator.isLeader !== b.operator.isLeader).to.equal(true), { timeoutMs: 10_000 });
    const [leader, follower] = a.operator.isLeader ? [a, b] : [b, a];
    await eventually(() => expect(leader.fleet.clusters.filter((c) => c.state === 'ready').map((c) => c.name)).to.have.members(names));
    expect(running(follower.fleet)).to.deep.equal([]);

    await leader.operator.stop({ drainTimeoutMs: 2_000 });
    await eventually(() => expect(follower.fleet.clusters.filter((c) => c.state === 'ready').map((c) => c.name)).to.have.members(names), {
      timeoutMs: 20_000,
    });
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
