/**
 * The `--webpage` entry of `pnpm sample`: the WebPage scenario on the embedded API server (or on
 * the cluster of `--kubeconfig`), printing each reconcile and the figures it measured.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { startEmbeddedApiServer } from '@kindex/testing';
import { Kinds, KubeClient } from '@kindex/informer';
import { playWebPage } from './play-webpage.js';

export async function runWebPage(kubeconfigFile: string | undefined): Promise<void> {
  const server = kubeconfigFile === undefined ? await startEmbeddedApiServer() : undefined;
  try {
    const kubeConfig = server?.kubeConfig ?? new KubeConfig();
    if (kubeconfigFile !== undefined) kubeConfig.loadFromFile(kubeconfigFile);
    const namespace = `webpage-${Date.now().toString(36)}`;
    await new KubeClient(kubeConfig).create(Kinds.Namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    console.log(`kindex WebPage sample on ${kubeConfig.getCurrentCluster()?.server}\n`);
    const started = Date.now();
    const figures = await playWebPage(kubeConfig, namespace, (line) =>
      console.log(`${String(Date.now() - started).padStart(6)} ms  ${line}`),
    );
    console.log(`\nreconciles from creation to ready: ${figures.reconcilesToReady}`);
    console.log(`writes of the ${figures.noChangeReconciles} no-change reconcile(s): ${figures.noChangeWrites}`);
    console.log(
      `dependents: ${Object.entries(figures.dependents)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ')}`,
    );
  } finally {
    await server?.stop();
  }
}
