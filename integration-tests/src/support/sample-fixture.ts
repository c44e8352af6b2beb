// Shared set-up of the suites that run the Job/Cluster sample operator against a test server:
// the server with the sample's CRDs, objects, convergence checks and reconcile counting.
import { expect } from 'chai';
import { CustomObjectsApi } from '@kubernetes/client-node';
import { ResourceID } from '@kindex/core';
import { KubeClient } from '@kindex/informer';
import { createNamespace, eventually, useTestApiServer, type TestApiServer, type UseTestApiServerOptions } from '@kindex/testing';
import { installCrds } from '@kindex/sample-job-cluster/src/install-crds.js';
import { ClusterKind, JobKind, type Cluster, type Job } from '@kindex/sample-job-cluster/src/model.js';
import { createSampleOperator, type SampleOperator, type SampleOperatorOptions } from '@kindex/sample-job-cluster/src/sample-operator.js';
import { ReconcileLog } from './reconcile-log.js';

/** What a suite gets from {@link useSampleServer}; valid inside tests and hooks only. */
export interface SampleServer {
  readonly server: TestApiServer;
  readonly client: KubeClient;
}

/**
 * One test server for the enclosing `describe`, with the sample's CRDs installed; stops every
 * operator started through {@link SampleServer} helpers after each test.
 */
export function useSampleServer(options: UseTestApiServerOptions = {}): () => SampleServer {
  const server = useTestApiServer(options);
  let fixture: SampleServer | undefined;
  before(async function () {
    this.timeout(120_000);
    const client = new KubeClient(server().kubeConfig);
    await installCrds(client);
    fixture = { server: server(), client };
  });
  after(async () => {
    await fixture?.client.registry?.stopAll();
  });
  afterEach(async function () {
    this.timeout(60_000);
    // A test that failed while events were held must not leave the next one without events.
    fixture?.server.faults.resumeEvents?.();
    fixture?.server.faults.setLatency?.(0);
    await stopRunning();
  });
  return () => {
    if (fixture === undefined) throw new Error('useSampleServer: only available inside tests and hooks');
    return fixture;
  };
}

/** A running sample operator with its reconcile logs. */
export interface RunningSample {
  readonly sample: SampleOperator;
  readonly jobLog: ReconcileLog;
  readonly bundleLog: ReconcileLog;
  readonly namespace: string;
  stop(): Promise<void>;
}

const running = new Set<RunningSample>();

async function stopRunning(): Promise<void> {
  const all = [...running];
  running.clear();
  await Promise.all(all.map((r) => r.stop()));
}

/**
 * Creates a namespace (unless `namespaces` is given, the operator then watches those), starts the
 * sample operator on it, and returns it; it is stopped after the test.
 */
export async function startSample(fixture: SampleServer, options: Omit<SampleOperatorOptions, 'kubeConfig'> = {}): Promise<RunningSample> {
  const namespace = options.namespaces?.[0] ?? (await createNamespace(fixture.server.kubeConfig));
  const sample = createSampleOperator({ kubeConfig: fixture.server.kubeConfig, namespaces: [namespace], ...options });
  const jobLog = new ReconcileLog(sample.jobs);
  const bundleLog = new ReconcileLog(sample.bundles);
  let stopped: Promise<void> | undefined;
  const run: RunningSample = {
    sample,
    jobLog,
    bundleLog,
    namespace,
    stop: () => {
      stopped ??= sample.operator.stop({ drainTimeoutMs: 10_000 }).finally(() => {
        jobLog.stop();
        bundleLog.stop();
      });
      return stopped;
    },
  };
  running.add(run);
  await sample.operator.start();
  return run;
}

/** A Cluster manifest. */
export const cluster = (name: string, namespace: string, clusterValue: string): Cluster => ({
  apiVersion: 'sample.kindex.dev/v1',
  kind: 'Cluster',
  metadata: { name, namespace },
  spec: { clusterValue },
});

/** A Job manifest. */
export const job = (name: string, namespace: string, clusterName: string): Job => ({
  apiVersion: 'sample.kindex.dev/v1',
  kind: 'Job',
  metadata: { name, namespace },
  spec: { clusterName },
});

/** Runs `task` over `items` with at most `parallel` at a time (the server gets real concurrency). */
export async function inBatches<T>(items: readonly T[], task: (item: T) => Promise<unknown>, parallel = 50): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      await task(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, items.length) }, worker));
}

/** A grid of clusters and their jobs for {@link createJobGrid}: how many, their names, the clusters' first values. */
export interface JobGrid {
  readonly clusters: number;
  readonly jobsPerCluster: number;
  readonly clusterName: (c: number) => string;
  readonly jobName: (c: number, j: number) => string;
  /** The value cluster `c` is created with. */
  readonly clusterValue: (c: number) => string;
}

/**
 * Creates the grid's clusters, then its jobs (job `j` of cluster `c` on cluster `c`), 50 requests
 * at a time; returns the value each job is to carry (job name to its cluster's value).
 */
export async function createJobGrid(client: KubeClient, namespace: string, grid: JobGrid): Promise<Map<string, string>> {
  const clusters = Array.from({ length: grid.clusters }, (_, c) => c);
  await inBatches(clusters, (c) => client.create(ClusterKind, cluster(grid.clusterName(c), namespace, grid.clusterValue(c))));
  const jobs = clusters.flatMap((c) => Array.from({ length: grid.jobsPerCluster }, (_, j) => [c, j] as const));
  await inBatches(jobs, ([c, j]) => client.create(JobKind, job(grid.jobName(c, j), namespace, grid.clusterName(c))));
  return new Map(jobs.map(([c, j]) => [grid.jobName(c, j), grid.clusterValue(c)]));
}

/** Changes a cluster's value on the server. */
export function setClusterValue(client: KubeClient, namespace: string, name: string, value: string): Promise<Cluster> {
  return client.patch<Cluster>(ClusterKind, ResourceID.of(name, namespace), { spec: { clusterValue: value } });
}

/** Moves a job to another cluster on the server. */
export function moveJob(client: KubeClient, namespace: string, name: string, clusterName: string): Promise<Job> {
  return client.patch<Job>(JobKind, ResourceID.of(name, namespace), { spec: { clusterName } });
}

/** `status.valueFromCluster` of every Job of a namespace, as the server stores it. */
export async function serverJobValues(client: KubeClient, namespace: string): Promise<Map<string, string | undefined>> {
  // CustomObjectsApi returns the JSON as sent; KubernetesObjectApi would deserialize a kind named
  // Job as batch/v1 Job and drop the sample's status fields.
  const list = (await client.kubeConfig.makeApiClient(CustomObjectsApi).listNamespacedCustomObject({
    group: 'sample.kindex.dev',
    version: 'v1',
    namespace,
    plural: 'jobs',
  })) as { items: Job[] };
  return new Map(list.items.map((j) => [j.metadata!.name!, j.status?.valueFromCluster]));
}

/**
 * Waits until the server stores exactly `expected` (job name to `valueFromCluster`, as a map or as
 * an object literal such as `{ j1: 'v-1', j2: undefined }`) for the namespace's jobs.
 */
export async function expectServerJobValues(
  client: KubeClient,
  namespace: string,
  expectedValues: ReadonlyMap<string, string | undefined> | Readonly<Record<string, string | undefined>>,
  timeoutMs = 30_000,
): Promise<void> {
  const expected: ReadonlyMap<string, string | undefined> =
    expectedValues instanceof Map ? expectedValues : new Map(Object.entries(expectedValues));
  await eventually(
    async () => {
      const actual = await serverJobValues(client, namespace);
      const wrong = [...expected].filter(([name, value]) => !actual.has(name) || actual.get(name) !== value).slice(0, 5);
      expect(
        wrong.map(([name, value]) => `${name}: want ${value}, got ${actual.get(name)}`),
        'jobs with a wrong value',
      ).to.deep.equal([]);
      expect(actual.size, 'number of jobs').to.equal(expected.size);
    },
    { timeoutMs, intervalMs: 200, description: `jobs of ${namespace} converge` },
  );
}

/**
 * Waits until the Job controller sees `expected` (job name to `valueFromCluster`) for the jobs of
 * its namespace, reading its cache and its own writes only: no request, so injected request
 * failures are left to the operator.
 */
export async function expectCachedJobValues(
  run: RunningSample,
  expected: ReadonlyMap<string, string | undefined>,
  timeoutMs = 30_000,
): Promise<void> {
  await eventually(
    () => {
      let wrong = 0;
      let example = '';
      for (const [name, value] of expected) {
        const actual = run.sample.jobs.getPrimary(ResourceID.of(name, run.namespace))?.status?.valueFromCluster;
        if (actual !== value) {
          wrong++;
          example ||= `${name}: want ${value}, got ${actual}`;
        }
      }
      expect(wrong, `jobs without their value (for example ${example})`).to.equal(0);
    },
    { timeoutMs, intervalMs: 200, description: `the operator sees the jobs of ${run.namespace} converge` },
  );
}

/**
 * Waits until the controller has nothing queued or running and no event came for `quietMs`, so
 * the reconcile counts are final: what a status write could still trigger has arrived.
 */
export async function settle(run: RunningSample, quietMs = 700, timeoutMs = 60_000): Promise<void> {
  await eventually(
    () => {
      for (const [controller, log] of [
        [run.sample.jobs, run.jobLog],
        [run.sample.bundles, run.bundleLog],
      ] as const) {
        const stats = controller.processor?.stats();
        expect(stats?.queued, `${controller.name} queued`).to.equal(0);
        expect(stats?.processing, `${controller.name} processing`).to.equal(0);
        expect(log.quietForMs, `${controller.name} quiet`).to.be.at.least(quietMs);
      }
    },
    { timeoutMs, intervalMs: 100, description: 'the operator settles' },
  );
}

/** Asserts that no primary was reconciled concurrently with itself. */
export function expectNoOverlaps(run: RunningSample): void {
  expect(run.jobLog.overlaps, 'jobs reconciled concurrently').to.deep.equal([]);
  expect(run.bundleLog.overlaps, 'bundles reconciled concurrently').to.deep.equal([]);
}

/** `namespace/name` of an object. */
export const keyOf = (namespace: string, name: string): string => ResourceID.keyOf(name, namespace);

export { ClusterKind, JobKind };
export type { Cluster, Job };
