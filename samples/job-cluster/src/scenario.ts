import { ResourceID } from '@kindex/core';
import type { KubeClient } from '@kindex/informer';
import { BUNDLE_LABEL } from './config-bundle-reconciler.js';
import { ClusterKind, ConfigBundleKind, JobKind, type Cluster, type ConfigBundle, type Job } from './model.js';
import type { SampleOperator } from './sample-operator.js';
import type { Timeline } from './timeline.js';

/** Waits until `check` passes (polling the caches), or fails naming what was awaited. */
async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const cluster = (name: string, namespace: string, clusterValue: string): Cluster => ({
  apiVersion: 'sample.kindex.dev/v1',
  kind: 'Cluster',
  metadata: { name, namespace },
  spec: { clusterValue },
});
const job = (name: string, namespace: string, clusterName: string): Job => ({
  apiVersion: 'sample.kindex.dev/v1',
  kind: 'Job',
  metadata: { name, namespace },
  spec: { clusterName },
});

/** Where the scenario reads what the operator did: an in-process operator's caches, or the server. */
export interface ScenarioView {
  jobValue(namespace: string, name: string): string | undefined | Promise<string | undefined>;
  bundleStatus(namespace: string, name: string): ConfigBundle['status'] | Promise<ConfigBundle['status']>;
}

/** Reads an in-process operator: a job's status as it last wrote it (its own write counts before the watch shows it). */
export function operatorView(op: SampleOperator): ScenarioView {
  return {
    jobValue: (namespace, name) => op.jobs.getPrimary(ResourceID.of(name, namespace))?.status?.valueFromCluster,
    bundleStatus: (namespace, name) => op.bundles.getPrimary(ResourceID.of(name, namespace))?.status,
  };
}

/** Reads the server: for operators running in other processes. */
export function serverView(client: KubeClient): ScenarioView {
  return {
    jobValue: async (namespace, name) => (await client.get<Job>(JobKind, ResourceID.of(name, namespace)))?.status?.valueFromCluster,
    bundleStatus: async (namespace, name) => (await client.get<ConfigBundle>(ConfigBundleKind, ResourceID.of(name, namespace)))?.status,
  };
}

/**
 * The sample's scenario: clusters and jobs created, a cluster's value changed, a job moved to
 * another cluster, a cluster deleted; then a ConfigBundle with owned ConfigMaps. Returns the
 * final jobs for the table.
 */
export async function playScenario(
  client: KubeClient,
  op: SampleOperator | ScenarioView,
  namespace: string,
  timeline: Timeline,
  /** Runs between steps, e.g. to kill the leader mid-scenario. */
  between: (step: string) => void | Promise<void> = () => {},
): Promise<Job[]> {
  const view = 'jobValue' in op ? op : operatorView(op);
  const expectValue = (name: string, value: string | undefined) =>
    until(`job ${name} has valueFromCluster=${value}`, async () => (await view.jobValue(namespace, name)) === value);

  timeline.note('create clusters alpha (value a-1) and beta (value b-1)');
  await client.create(ClusterKind, cluster('alpha', namespace, 'a-1'));
  await client.create(ClusterKind, cluster('beta', namespace, 'b-1'));

  timeline.note('create jobs build, test (on alpha) and deploy (on beta)');
  await client.create(JobKind, job('build', namespace, 'alpha'));
  await client.create(JobKind, job('test', namespace, 'alpha'));
  await client.create(JobKind, job('deploy', namespace, 'beta'));
  await expectValue('build', 'a-1');
  await expectValue('test', 'a-1');
  await expectValue('deploy', 'b-1');

  timeline.note('change alpha value to a-2: fans out to build and test only');
  await client.patch(ClusterKind, ResourceID.of('alpha', namespace), { spec: { clusterValue: 'a-2' } });
  await expectValue('build', 'a-2');
  await expectValue('test', 'a-2');
  await between('alpha changed');

  timeline.note('move job test from alpha to beta');
  await client.patch(JobKind, ResourceID.of('test', namespace), { spec: { clusterName: 'beta' } });
  await expectValue('test', 'b-1');

  timeline.note('delete cluster beta: its jobs lose their value');
  await client.delete(ClusterKind, ResourceID.of('beta', namespace));
  await expectValue('test', undefined);
  await expectValue('deploy', undefined);

  timeline.note('create ConfigBundle settings with 2 entries: owned ConfigMaps appear');
  await client.create<ConfigBundle>(ConfigBundleKind, {
    apiVersion: 'sample.kindex.dev/v1',
    kind: 'ConfigBundle',
    metadata: { name: 'settings', namespace },
    spec: { entries: { color: 'blue', size: 'large' } },
  });
  await until('bundle settings is ready with 2 ConfigMaps', async () => {
    const s = await view.bundleStatus(namespace, 'settings');
    return s?.ready === true && s.configMaps === 2;
  });

  timeline.note('delete ConfigBundle settings: garbage collection deletes its ConfigMaps');
  await client.delete(ConfigBundleKind, ResourceID.of('settings', namespace), { propagationPolicy: 'Background' });
  await until('the bundle ConfigMaps are gone', async () => {
    const cms = await client.objectApi().list('v1', 'ConfigMap', namespace, undefined, undefined, undefined, undefined, BUNDLE_LABEL);
    return cms.items.length === 0;
  });

  const jobs =
    'jobValue' in op
      ? (await Promise.all(['build', 'test', 'deploy'].map((name) => client.get<Job>(JobKind, ResourceID.of(name, namespace))))).filter(
          (j) => j !== undefined,
        )
      : op.jobs.primaryCache.list(namespace);
  return [...jobs].sort((a, b) => a.metadata!.name!.localeCompare(b.metadata!.name!));
}

/** The final table of jobs and their status. */
export function jobTable(jobs: readonly Job[], op?: SampleOperator): string {
  const rows = jobs.map((j) => {
    const latest = op?.jobs.getPrimary(ResourceID.fromResource(j)) ?? j;
    return [latest.metadata!.name!, latest.spec.clusterName, latest.status?.valueFromCluster ?? '(none)'];
  });
  const header = ['JOB', 'CLUSTER', 'VALUE FROM CLUSTER'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fmt = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  return [fmt(header), ...rows.map(fmt)].join('\n');
}
