/**
 * `pnpm sample`: the Job/Cluster sample operator.
 *
 * Without arguments: starts the embedded API server, installs the CRDs, runs the operator,
 * plays a short scenario while printing a timeline, prints the final table of jobs, exits 0.
 * With `--kubeconfig FILE` (or KUBECONFIG set): installs the CRDs on that cluster and runs the
 * operator until SIGTERM or SIGINT. With `--in-cluster` (the Deployment in `deploy/`): runs the
 * definition of src/operator.ts with `runOperator`, as the pod's service account, under leader
 * election on Lease `job-cluster-operator` in the pod's namespace (the CRDs come with deploy/).
 * With `--replicas N`: N replica processes under leader election on the embedded server, with a
 * failover halfway (see replicas.ts); with `--shards M` as well, the replicas split the primaries
 * into M shards instead, and one is killed halfway to show the takeover.
 * With `--webpage`: the WebPage sample (dependent resources) instead, see webpage/run-webpage.ts.
 * `--help` lists the options (sample-command-line.ts parses them); the kubeconfig is loaded by
 * kindex's loadKubeConfig, so a missing or broken one is one line naming the fix.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import type { KubeConfig } from '@kubernetes/client-node';
import { startEmbeddedApiServer } from '@kindex/testing';
import { KubeClient, Kinds, formatErrorForUser, loadKubeConfig, runOperator } from '@kindex/informer';
import { installCrds } from './install-crds.js';
import definition from './operator.js';
import { createSampleOperator } from './sample-operator.js';
import { runReplica, runReplicas } from './replicas.js';
import { parseSampleArguments, type SampleOptions } from './sample-command-line.js';
import { jobTable, playScenario } from './scenario.js';
import { Timeline } from './timeline.js';
import { runWebPage } from './webpage/run-webpage.js';

/** A mistake in how the sample was called: printed as one line, without a stack trace. */
class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** `pnpm sample` runs in samples/job-cluster/; pnpm puts the directory the user ran it from in INIT_CWD, and a relative path means a path from there. */
const USER_CWD = process.env['INIT_CWD'] ?? process.cwd();

/**
 * The cluster to run against: `--kubeconfig FILE`, else the files of `KUBECONFIG`; undefined when
 * neither is given (the embedded server then). ~/.kube/config is not used: without a flag the
 * sample shows itself on its own server.
 */
function clusterKubeConfig(options: SampleOptions): KubeConfig | undefined {
  const context = options.context === undefined ? {} : { context: options.context };
  if (options.kubeconfig !== undefined) {
    const file = resolve(USER_CWD, options.kubeconfig);
    if (!existsSync(file)) throw new UsageError(`--kubeconfig ${options.kubeconfig}: no such file (${file})`);
    return loadKubeConfig({ kubeconfig: file, ...context });
  }
  if (process.env['KUBECONFIG']) return loadKubeConfig({ cwd: USER_CWD, ...context });
  if (options.context !== undefined) throw new UsageError(`--context ${options.context} needs --kubeconfig FILE or KUBECONFIG`);
  return undefined;
}

/** The kubeconfig file of the cluster, for the WebPage sample, which loads a file. */
function clusterKubeconfigFile(options: SampleOptions): string | undefined {
  const kubeConfig = clusterKubeConfig(options);
  if (kubeConfig === undefined) return undefined;
  const files = options.kubeconfig !== undefined ? [options.kubeconfig] : process.env['KUBECONFIG']!.split(delimiter).filter(Boolean);
  if (files.length === 1 && options.context === undefined) return resolve(USER_CWD, files[0]!);
  // Several files, or another context: the configuration as loadKubeConfig made it.
  const merged = join(mkdtempSync(join(tmpdir(), 'kindex-sample-')), 'kubeconfig');
  writeFileSync(merged, kubeConfig.exportConfig(), { mode: 0o600 });
  return merged;
}

/** The pod's service account: `--in-cluster` means nothing outside a pod, so it says so. */
function inClusterKubeConfig(): KubeConfig {
  const host = process.env['KUBERNETES_SERVICE_HOST'];
  if (!host) {
    throw new UsageError(
      '--in-cluster runs in a pod (the Deployment in deploy/), and KUBERNETES_SERVICE_HOST is not set; outside a cluster use --kubeconfig FILE',
    );
  }
  // Only the pod's variables: a KUBECONFIG or ~/.kube/config in the image must not win.
  return loadKubeConfig({ env: { KUBERNETES_SERVICE_HOST: host, KUBERNETES_SERVICE_PORT: process.env['KUBERNETES_SERVICE_PORT'] } });
}

async function runAgainstCluster(kubeConfig: KubeConfig): Promise<void> {
  await installCrds(new KubeClient(kubeConfig));
  const timeline = new Timeline();
  const sample = createSampleOperator({ kubeConfig, timeline });
  sample.operator.leaderElector?.status$.subscribe((s) =>
    timeline.note(`leader election: ${s.role}, lease held by ${s.holderIdentity ?? '(nobody)'}`),
  );
  await sample.operator.run({
    gracefulShutdownTimeoutMs: 30_000,
    onStarted: () => timeline.note(`operator running against ${kubeConfig.getCurrentCluster()?.server}; SIGTERM or Ctrl-C to stop`),
  });
}

async function runEmbedded(): Promise<void> {
  const server = await startEmbeddedApiServer();
  try {
    const client = new KubeClient(server.kubeConfig);
    await installCrds(client);
    const namespace = 'sample';
    await client.create(Kinds.Namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    console.log(`kindex Job/Cluster sample on the embedded API server at ${server.url}\n`);
    const timeline = new Timeline();
    const sample = createSampleOperator({ kubeConfig: server.kubeConfig, namespaces: [namespace], timeline });
    await sample.operator.start();
    const jobs = await playScenario(client, sample, namespace, timeline);
    await sample.operator.stop({ drainTimeoutMs: 5_000 });
    console.log(`\n${jobTable(jobs, sample)}`);
  } finally {
    await server.stop();
  }
}

async function run(options: SampleOptions): Promise<void> {
  if (options.replica) {
    await runReplica({
      identity: options.identity!,
      namespace: options.namespace!,
      kubeconfig: options.kubeconfig!,
      shards: options.shards,
    });
  } else if (options.replicas !== undefined) await runReplicas(options.replicas, options.shards);
  else if (options.webpage) await runWebPage(clusterKubeconfigFile(options));
  else if (options.inCluster) await runOperator(definition, { kubeConfig: inClusterKubeConfig() });
  else {
    const kubeConfig = clusterKubeConfig(options);
    if (kubeConfig !== undefined) await runAgainstCluster(kubeConfig);
    else await runEmbedded();
  }
}

// Undefined after --help, --version or a usage error (printed, exit code 2).
const options = parseSampleArguments(process.argv.slice(2));
try {
  if (options !== undefined) await run(options);
} catch (error) {
  if (error instanceof UsageError) console.error(`sample: ${error.message}`);
  // The message and its causes, each once: Node's own printing buries them in stacks and fields.
  else console.error(`sample: ${formatErrorForUser(error)}`);
  process.exitCode = 1;
}
