/**
 * `pnpm sample`: the Job/Cluster sample operator.
 *
 * Without arguments: starts the embedded API server, installs the CRDs, runs the operator,
 * plays a short scenario while printing a timeline, prints the final table of jobs, exits 0.
 * With `--kubeconfig FILE` (or KUBECONFIG set): installs the CRDs on that cluster and runs the
 * operator until SIGTERM or SIGINT. With `--in-cluster` (the Deployment in `deploy/`): the same
 * with the pod's service account, under leader election on Lease `job-cluster-operator` in
 * `$POD_NAMESPACE`.
 * With `--replicas N`: N replica processes under leader election on the embedded server, with a
 * failover halfway (see replicas.ts); with `--shards M` as well, the replicas split the primaries
 * into M shards instead, and one is killed halfway to show the takeover.
 * With `--webpage`: the WebPage sample (dependent resources) instead, see webpage/run-webpage.ts.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { startEmbeddedApiServer } from '@kindex/testing';
import { KubeClient, Kinds, formatErrorForUser } from '@kindex/informer';
import { installCrds } from './install-crds.js';
import { createSampleOperator } from './sample-operator.js';
import { runReplica, runReplicas } from './replicas.js';
import { jobTable, playScenario } from './scenario.js';
import { Timeline } from './timeline.js';
import { runWebPage } from './webpage/run-webpage.js';

/** A mistake in how the sample was called: printed as one line, without a stack trace. */
class UsageError extends Error {
  override readonly name = 'UsageError';
}

/**
 * The kubeconfig file to use, as an absolute path: `--kubeconfig FILE`, else `KUBECONFIG`.
 * `pnpm sample` runs in samples/job-cluster/; pnpm puts the directory the user ran it from in
 * INIT_CWD, and a relative path means a path from there.
 */
function kubeconfigArgument(argv: readonly string[]): string | undefined {
  const i = argv.indexOf('--kubeconfig');
  const inline = argv.find((a) => a.startsWith('--kubeconfig='));
  const given = i >= 0 ? argv[i + 1] : (inline?.slice('--kubeconfig='.length) ?? (process.env['KUBECONFIG'] || undefined));
  const source = i >= 0 || inline !== undefined ? '--kubeconfig' : 'KUBECONFIG';
  if (i >= 0 && (given === undefined || given.startsWith('--'))) throw new UsageError('--kubeconfig needs a file');
  if (given === undefined) return undefined;
  const file = resolve(process.env['INIT_CWD'] ?? process.cwd(), given);
  if (!existsSync(file)) throw new UsageError(`${source} ${given}: no such file (${file})`);
  return file;
}

async function runAgainstCluster(kubeConfig: KubeConfig, inCluster: boolean): Promise<void> {
  await installCrds(new KubeClient(kubeConfig));
  const timeline = new Timeline();
  const leaseNamespace = process.env['POD_NAMESPACE'];
  if (inCluster && !leaseNamespace) throw new Error('--in-cluster needs POD_NAMESPACE (the Deployment sets it from the Downward API)');
  const sample = createSampleOperator({
    kubeConfig,
    timeline,
    // In the Deployment: probes and Prometheus on 8080 (deploy/40-deployment.yaml).
    ...(inCluster
      ? { leaderElection: { leaseName: 'job-cluster-operator', leaseNamespace: leaseNamespace! }, server: { port: 8080 } }
      : {}),
  });
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

function replicasArgument(argv: readonly string[]): number | undefined {
  const i = argv.indexOf('--replicas');
  if (i >= 0) return Number(argv[i + 1]);
  const inline = argv.find((a) => a.startsWith('--replicas='));
  return inline === undefined ? undefined : Number(inline.slice('--replicas='.length));
}

function shardsArgument(argv: readonly string[]): number | undefined {
  const i = argv.indexOf('--shards');
  if (i >= 0) return Number(argv[i + 1]);
  const inline = argv.find((a) => a.startsWith('--shards='));
  return inline === undefined ? undefined : Number(inline.slice('--shards='.length));
}

const argv = process.argv.slice(2);
const replicas = replicasArgument(argv);
try {
  if (argv.includes('--webpage')) await runWebPage(kubeconfigArgument(argv));
  else if (argv.includes('--replica')) await runReplica(argv);
  else if (replicas !== undefined) await runReplicas(replicas, shardsArgument(argv));
  else if (argv.includes('--in-cluster')) {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromCluster();
    await runAgainstCluster(kubeConfig, true);
  } else {
    const file = kubeconfigArgument(argv);
    if (file !== undefined) {
      const kubeConfig = new KubeConfig();
      kubeConfig.loadFromFile(file);
      await runAgainstCluster(kubeConfig, false);
    } else await runEmbedded();
  }
} catch (error) {
  if (error instanceof UsageError) console.error(`sample: ${error.message}`);
  // The message and its causes, each once: Node's own printing buries them in stacks and fields.
  else console.error(`sample: ${formatErrorForUser(error)}`);
  process.exitCode = 1;
}
