// The scale case: 1,000 clusters and 10,000 jobs converge, and one cluster change
// reconciles only its jobs. Objects are created 50 requests at a time.
import { expect } from 'chai';
import {
  createJobGrid,
  expectCachedJobValues,
  expectNoOverlaps,
  expectServerJobValues,
  keyOf,
  setClusterValue,
  settle,
  startSample,
  useSampleServer,
} from './support/sample-fixture.js';

const CLUSTERS = 1_000;
const JOBS_PER_CLUSTER = 10;

const clusterName = (c: number): string => `cluster-${c}`;
const jobName = (c: number, j: number): string => `job-${c}-${j}`;
const GRID = { clusters: CLUSTERS, jobsPerCluster: JOBS_PER_CLUSTER, clusterName, jobName, clusterValue: (c: number) => `v-${c}` };

describe('JobReconciler at scale (1,000 clusters, 10,000 jobs)', function () {
  // About 1 minute on the embedded server, about 7 on a real one (etcd) on 2 busy cores.
  this.timeout(900_000);
  const fixture = useSampleServer();

  it('converges every job, then reconciles only the jobs of a changed cluster', async () => {
    const run = await startSample(fixture());
    const { client } = fixture();
    const ns = run.namespace;
    const expected = await createJobGrid(client, ns, GRID);
    await expectCachedJobValues(run, expected, 240_000);
    await expectServerJobValues(client, ns, expected, 120_000);
    await settle(run, 1_000, 240_000);
    expect(run.jobLog.keys()).to.have.length(CLUSTERS * JOBS_PER_CLUSTER);
    expectNoOverlaps(run);

    run.jobLog.reset();
    const changed = 417;
    await setClusterValue(client, ns, clusterName(changed), 'changed');
    for (let j = 0; j < JOBS_PER_CLUSTER; j++) expected.set(jobName(changed, j), 'changed');
    await expectCachedJobValues(run, expected, 240_000);
    await settle(run, 1_000, 120_000);
    const reconciled = run.jobLog.keys().sort();
    const want = Array.from({ length: JOBS_PER_CLUSTER }, (_, j) => keyOf(ns, jobName(changed, j))).sort();
    expect(reconciled).to.deep.equal(want);
    for (const key of want) expect(run.jobLog.count(key), key).to.equal(1);
    await expectServerJobValues(client, ns, expected, 120_000);
  });
});
