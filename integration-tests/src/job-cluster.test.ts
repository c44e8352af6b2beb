// JOSDK's primary-to-secondary cases (PrimaryToSecondaryIT, PrimaryToSecondaryMissingIT) on the
// sample operator, against the test server of the run (embedded, or real with
// KINDEX_APISERVER=real).
import { expect } from 'chai';
import { GenericRetry, ResourceID, UpdateControl, type Context } from '@kindex/core';
import { Operator, type KubeClient } from '@kindex/informer';
import { createNamespace, eventually } from '@kindex/testing';
import { JobReconciler } from '@kindex/sample-job-cluster/src/job-reconciler.js';
import { ReconcileLog } from './support/reconcile-log.js';
import {
  ClusterKind,
  JobKind,
  cluster,
  expectNoOverlaps,
  expectServerJobValues,
  job,
  keyOf,
  moveJob,
  setClusterValue,
  settle,
  startSample,
  useSampleServer,
  type Job,
  type RunningSample,
} from './support/sample-fixture.js';

/** Waits until the sample's Cluster cache (and so its reverse index) has seen the cluster. */
async function clusterIndexed(run: RunningSample, name: string): Promise<void> {
  await eventually(() => expect(run.sample.jobReconciler.clusters?.get(ResourceID.of(name, run.namespace))).to.not.equal(undefined), {
    description: `cluster ${name} reaches the cache`,
  });
}

describe('JobReconciler (the Job/Cluster sample)', function () {
  this.timeout(90_000);
  const fixture = useSampleServer();

  it('gives a job created after its cluster the cluster value with exactly one reconcile', async () => {
    const run = await startSample(fixture());
    const { client } = fixture();
    const ns = run.namespace;
    await client.create(ClusterKind, cluster('c1', ns, 'v1'));
    await clusterIndexed(run, 'c1');
    await client.create(JobKind, job('j1', ns, 'c1'));
    await expectServerJobValues(client, ns, new Map([['j1', 'v1']]));
    await settle(run);
    // The status patch comes back as a watch event; generation awareness must drop it.
    expect(run.jobLog.count(keyOf(ns, 'j1'))).to.equal(1);
    expectNoOverlaps(run);
  });

  it('fans a cluster change out to every job of that cluster and to no other job', async () => {
    const run = await startSample(fixture());
    const { client } = fixture();
    const ns = run.namespace;
    await client.create(ClusterKind, cluster('a', ns, 'a-1'));
    await client.create(ClusterKind, cluster('b', ns, 'b-1'));
    const onA = ['a1', 'a2', 'a3', 'a4'];
    for (const name of onA) await client.create(JobKind, job(name, ns, 'a'));
    await client.create(JobKind, job('b1', ns, 'b'));
    await expectServerJobValues(client, ns, new Map([...onA.map((n) => [n, 'a-1'] as const), ['b1', 'b-1']]));
    await settle(run);
    run.jobLog.reset();

    await setClusterValue(client, ns, 'a', 'a-2');
    await expectServerJobValues(client, ns, new Map([...onA.map((n) => [n, 'a-2'] as const), ['b1', 'b-1']]));
    await settle(run);
    for (const name of onA) expect(run.jobLog.count(keyOf(ns, name)), `reconciles of ${name}`).to.equal(1);
    expect(run.jobLog.count(keyOf(ns, 'b1')), 'reconciles of b1').to.equal(0);
    expectNoOverlaps(run);
  });

  it('reconciles a job moved from cluster A to B with B value, and A changes no longer reach it', async () => {
    const run = await startSample(fixture());
    const { client } = fixture();
    const ns = run.namespace;
    await client.create(ClusterKind, cluster('a', ns, 'a-1'));
    await client.create(ClusterKind, cluster('b', ns, 'b-1'));
    await client.create(JobKind, job('mover', ns, 'a'));
    await client.create(JobKind, job('stayer', ns, 'a'));
    await expectServerJobValues(client, ns, { mover: 'a-1', stayer: 'a-1' });

    await moveJob(client, ns, 'mover', 'b');
    await expectServerJobValues(client, ns, { mover: 'b-1', stayer: 'a-1' });
    await settle(run);
    run.jobLog.reset();

    await setClusterValue(client, ns, 'a', 'a-2');
    await expectServerJobValues(client, ns, { mover: 'b-1', stayer: 'a-2' });
    await settle(run);
    expect(run.jobLog.count(keyOf(ns, 'mover')), 'reconciles of the moved job after A changed').to.equal(0);
    expect(run.jobLog.count(keyOf(ns, 'stayer'))).to.equal(1);

    run.jobLog.reset();
    await setClusterValue(client, ns, 'b', 'b-2');
    await expectServerJobValues(client, ns, { mover: 'b-2', stayer: 'a-2' });
    await settle(run);
    expect(run.jobLog.count(keyOf(ns, 'mover'))).to.equal(1);
    expect(run.jobLog.count(keyOf(ns, 'stayer'))).to.equal(0);
    expectNoOverlaps(run);
  });

  it('clears the value of the jobs of a deleted cluster', async () => {
    const run = await startSample(fixture());
    const { client } = fixture();
    const ns = run.namespace;
    await client.create(ClusterKind, cluster('gone', ns, 'g-1'));
    await client.create(JobKind, job('orphan', ns, 'gone'));
    await expectServerJobValues(client, ns, new Map([['orphan', 'g-1']]));
    await client.delete(ClusterKind, ResourceID.of('gone', ns));
    await expectServerJobValues(client, ns, new Map([['orphan', undefined]]));
  });

  describe('without the primary-to-secondary mapper (the trap JOSDK documents)', () => {
    it('finds no cluster through getSecondaryResource for a job created after its cluster was indexed, while the cache holds it', async () => {
      const run = await startSample(fixture(), { withPrimaryToSecondaryMapper: false });
      const { client } = fixture();
      const ns = run.namespace;
      await client.create(ClusterKind, cluster('c', ns, 'v'));
      await clusterIndexed(run, 'c');
      await client.create(JobKind, job('late', ns, 'c'));
      await eventually(() => expect(run.jobLog.count(keyOf(ns, 'late'))).to.be.at.least(1));
      await settle(run);

      const clusters = run.sample.jobReconciler.clusters!;
      const late = run.sample.jobs.getPrimary(ResourceID.of('late', ns))!;
      expect(clusters.getSecondaryResources(late), 'secondaries through the reverse index').to.deep.equal([]);
      expect(clusters.get(ResourceID.of('c', ns))?.spec.clusterValue, 'the cluster read from the cache directly').to.equal('v');
      // What the sample's user sees: no error at all, the value silently stays unset.
      expect((await fixture().client.get<Job>(JobKind, ResourceID.of('late', ns)))?.status?.valueFromCluster).to.equal(undefined);
    });

    it('lets a reconciler that demands the cluster fail with its own error, while reading the cache directly works', async () => {
      const { server, client } = fixture();
      const ns = await createNamespace(server.kubeConfig);
      await client.create(ClusterKind, cluster('c', ns, 'v'));
      const operator = new Operator({ kubeConfig: server.kubeConfig });
      const strict = new ClusterDemandingReconciler();
      const controller = operator.register(strict, {
        kind: JobKind,
        name: 'strict-jobs',
        namespaces: [ns],
        retry: new GenericRetry({ maxAttempts: 1, initialIntervalMs: 20, intervalMultiplier: 1 }),
      });
      const log = new ReconcileLog(controller);
      try {
        await operator.start();
        await clusterIndexedIn(strict, ResourceID.of('c', ns));
        await client.create(JobKind, job('late', ns, 'c'));
        // JOSDK's PrimaryToSecondaryMissingIT: the reconcile fails, it never completes.
        await eventually(() =>
          expect(log.failures.map((f) => String(f.error))).to.include(
            `Error: cluster ${ns}/c of job ${ns}/late is not a secondary resource`,
          ),
        );
        // Switch only once the failed job is given up, so that no retry of it reads the cache.
        await eventually(() => expect(log.exhausted).to.include(keyOf(ns, 'late')));
        expect(log.count(keyOf(ns, 'late'))).to.equal(0);

        strict.readCacheDirectly = true;
        // JOSDK's accessingDirectlyTheCacheWorksWithoutPToSMapper: another late job, read through the cache.
        await client.create(JobKind, job('later', ns, 'c'));
        await expectServerJobValues(client, ns, { late: undefined, later: 'v' });
        await eventually(() => expect(log.count(keyOf(ns, 'later'))).to.equal(1));
      } finally {
        await operator.stop({ drainTimeoutMs: 5_000 });
        log.stop();
      }
    });

    it('finds the cluster again once the cluster changes, because its event runs the index mapper', async () => {
      const run = await startSample(fixture(), { withPrimaryToSecondaryMapper: false });
      const { client } = fixture();
      const ns = run.namespace;
      await client.create(ClusterKind, cluster('c', ns, 'v1'));
      await clusterIndexed(run, 'c');
      await client.create(JobKind, job('late', ns, 'c'));
      await eventually(() => expect(run.jobLog.count(keyOf(ns, 'late'))).to.be.at.least(1));
      await setClusterValue(client, ns, 'c', 'v2');
      await expectServerJobValues(client, ns, new Map([['late', 'v2']]));
    });
  });
});

/** Waits until the strict reconciler's cluster source has the cluster. */
async function clusterIndexedIn(reconciler: JobReconciler, id: ResourceID): Promise<void> {
  await eventually(() => expect(reconciler.clusters?.get(id)).to.not.equal(undefined));
}

/**
 * JOSDK's PrimaryToSecondaryMissingIT reconciler: demands the cluster from the context (an error
 * when absent), or reads it from the event source's cache directly.
 */
class ClusterDemandingReconciler extends JobReconciler {
  readCacheDirectly = false;

  constructor() {
    super({ withPrimaryToSecondaryMapper: false });
  }

  override reconcile(job: Job, context: Context<Job, KubeClient>): UpdateControl<Job> {
    const id = ResourceID.of(job.spec.clusterName, job.metadata!.namespace);
    const found = this.readCacheDirectly ? this.clusters!.get(id) : context.getSecondaryResource(ClusterKind);
    if (found === undefined) throw new Error(`cluster ${id.key} of job ${ResourceID.keyOfResource(job)} is not a secondary resource`);
    const value = found.spec.clusterValue;
    if (job.status?.valueFromCluster === value) return UpdateControl.noUpdate();
    return UpdateControl.patchStatus<Job>({ ...job, status: { ...job.status, valueFromCluster: value } });
  }
}
