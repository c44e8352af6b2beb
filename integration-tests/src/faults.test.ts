// Faults end to end on the running sample operator: after each, the jobs converge to the right
// values, jobs whose cluster did not change are not reconciled (no storm), the others at most
// twice, and no primary is ever reconciled concurrently with itself.
import { expect } from 'chai';
import { KubeApiError, type KubeClient } from '@kindex/informer';
import { requireFault, type TestApiServer } from '@kindex/testing';
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
  type RunningSample,
} from './support/sample-fixture.js';

const CLUSTERS = 5;
const JOBS_PER_CLUSTER = 4;
const jobName = (c: number, j: number): string => `j${c}-${j}`;
const GRID = {
  clusters: CLUSTERS,
  jobsPerCluster: JOBS_PER_CLUSTER,
  clusterName: (c: number) => `c${c}`,
  jobName,
  clusterValue: (c: number) => `c${c}-0`,
};

/**
 * Runs a write of the test itself until the server takes it: injected failures hit every client,
 * the test's own included.
 */
async function persistently<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      const transient = error instanceof KubeApiError ? [429, 500, 503].includes(error.status) : true;
      if (!transient || attempt >= 50) throw error;
      await new Promise((r) => setTimeout(r, error instanceof KubeApiError && error.status === 429 ? 1_100 : 200));
    }
  }
}

/** The sample with 5 clusters of 4 jobs each, converged and settled, with its counts reset. */
async function convergedSample(client: KubeClient, run: RunningSample): Promise<Map<string, string>> {
  const ns = run.namespace;
  const expected = await createJobGrid(client, ns, GRID);
  await expectServerJobValues(client, ns, expected);
  await settle(run);
  run.jobLog.reset();
  return expected;
}

/**
 * Changes clusters 0 and 1, runs `inject` (which injects its fault and makes its own changes
 * through `change`), then checks that the operator converges, that jobs of changed clusters were
 * reconciled once or twice and the others never, and that no job was reconciled concurrently.
 */
async function changeAcross(
  fixture: { server: TestApiServer; client: KubeClient },
  inject: (run: RunningSample, change: (c: number, value: string) => Promise<void>) => Promise<void>,
): Promise<RunningSample> {
  const { client } = fixture;
  const run = await startSample(fixture);
  const ns = run.namespace;
  const expected = await convergedSample(client, run);
  const changed = new Set<number>();
  const change = async (c: number, value: string): Promise<void> => {
    changed.add(c);
    await persistently(() => setClusterValue(client, ns, `c${c}`, value));
    for (let j = 0; j < JOBS_PER_CLUSTER; j++) expected.set(jobName(c, j), value);
  };
  await change(0, 'c0-1');
  await change(1, 'c1-1');
  await inject(run, change);
  // The operator's view first: no request of the test competes with the operator for the
  // injected failures.
  await expectCachedJobValues(run, expected, 60_000);
  await expectServerJobValues(client, ns, expected, 60_000);
  await settle(run, 1_000);
  for (let c = 0; c < CLUSTERS; c++) {
    for (let j = 0; j < JOBS_PER_CLUSTER; j++) {
      const count = run.jobLog.count(keyOf(ns, jobName(c, j)));
      if (changed.has(c)) expect(count, `reconciles of ${jobName(c, j)} (its cluster changed)`).to.be.within(1, 2);
      else expect(count, `reconciles of ${jobName(c, j)} (its cluster did not change)`).to.equal(0);
    }
  }
  expectNoOverlaps(run);
  return run;
}

/**
 * Injects `fail` so that the operator's own requests meet it: with events held (when the server
 * can hold them), the test changes a cluster, arms the failures, and lets the event through, so
 * the next requests are the operator's status patches.
 */
async function failOperatorRequests(
  server: TestApiServer,
  change: (c: number, value: string) => Promise<void>,
  arm: () => void,
): Promise<void> {
  server.faults.pauseEvents?.();
  try {
    await change(2, 'c2-1');
    arm();
  } finally {
    server.faults.resumeEvents?.();
  }
}

describe('the sample operator under API server faults', function () {
  this.timeout(180_000);
  // Faults reach every client of the server: this suite has one of its own.
  const fixture = useSampleServer();

  it('relists after expired history and broken watches, and converges', async function () {
    const expire = requireFault(this, fixture().server, 'expireHistory');
    // A real server cannot close watches, but a restart breaks them just as well.
    const close =
      fixture().server.faults.closeWatches === undefined
        ? requireFault(this, fixture().server, 'restart')
        : requireFault(this, fixture().server, 'closeWatches');
    await changeAcross(fixture(), async (_run, change) => {
      await expire();
      await close();
      await change(2, 'c2-1');
    });
  });

  it('reconnects after the server restarts, and converges', async function () {
    const restart = requireFault(this, fixture().server, 'restart');
    await changeAcross(fixture(), async (_run, change) => {
      await restart();
      await change(2, 'c2-1');
    });
  });

  it('retries through five failed requests (500), and converges', async function () {
    const fail = requireFault(this, fixture().server, 'failNextRequests');
    const run = await changeAcross(fixture(), (_run, change) =>
      failOperatorRequests(fixture().server, change, () => fail(5, { status: 500 })),
    );
    expect(run.jobLog.failures.length, 'reconciles that met the injected 500s').to.be.at.least(1);
  });

  it('honours Retry-After through three throttled requests (429), and converges', async function () {
    const fail = requireFault(this, fixture().server, 'failNextRequests');
    const run = await changeAcross(fixture(), (_run, change) =>
      failOperatorRequests(fixture().server, change, () => fail(3, { status: 429, retryAfterSeconds: 1 })),
    );
    expect(run.jobLog.failures.length, 'reconciles that met the injected 429s').to.be.at.least(1);
  });

  it('catches up with the events held while paused, and converges', async function () {
    const pause = requireFault(this, fixture().server, 'pauseEvents');
    const resume = requireFault(this, fixture().server, 'resumeEvents');
    await changeAcross(fixture(), async (run, change) => {
      pause();
      // A change made while events are held reaches the operator only on resume.
      await change(3, 'c3-1');
      await new Promise((r) => setTimeout(r, 300));
      expect(run.jobLog.count(keyOf(run.namespace, jobName(3, 0))), 'reconciles while events are held').to.equal(0);
      resume();
      await change(2, 'c2-1');
    });
  });
});
