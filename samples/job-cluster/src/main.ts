/**
 * `pnpm sample`: the Job/Cluster sample operator.
 *
 * Without arguments: starts the embedded API server, installs the CRDs, runs the operator,
 * plays a short scenario while printing a timeline, prints the final table of jobs, exits 0.
 * With `--kubeconfig FILE` (or KUBECONFIG set): installs the CRDs on that cluster and runs the
 * operator until interrupted.
 * With `--webpage`: the WebPage sample (dependent resources) instead, see webpage/run-webpage.ts.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { startEmbeddedApiServer } from '@kindex/testing';
import { KubeClient, Kinds } from '@kindex/informer';
import { installCrds } from './install-crds.js';
import { createSampleOperator } from './sample-operator.js';
import { jobTable, playScenario } from './scenario.js';
import { Timeline } from './timeline.js';
import { runWebPage } from './webpage/run-webpage.js';

function kubeconfigArgument(argv: readonly string[]): string | undefined {
  const i = argv.indexOf('--kubeconfig');
  if (i >= 0) {
    const file = argv[i + 1];
    if (file === undefined) throw new Error('--kubeconfig needs a file');
    return file;
  }
  const inline = argv.find((a) => a.startsWith('--kubeconfig='));
  return inline?.slice('--kubeconfig='.length) ?? (process.env['KUBECONFIG'] || undefined);
}

async function runAgainstCluster(file: string): Promise<void> {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(file);
  await installCrds(new KubeClient(kubeConfig));
  const timeline = new Timeline();
  const sample = createSampleOperator({ kubeConfig, timeline });
  await sample.operator.start();
  timeline.note(`operator running against ${kubeConfig.getCurrentCluster()?.server}; Ctrl-C to stop`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await sample.operator.stop({ drainTimeoutMs: 10_000 });
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

const file = kubeconfigArgument(process.argv.slice(2));
try {
  if (process.argv.includes('--webpage')) await runWebPage(file);
  else if (file !== undefined) await runAgainstCluster(file);
  else await runEmbedded();
} catch (error) {
  console.error(error);
  process.exitCode = 1;
}
