/**
 * The `--webpage` entry of `pnpm sample`: the WebPage scenario on the embedded API server (a
 * real kube-apiserver with KINDEX_APISERVER=real, or the cluster of `--kubeconfig`), printing
 * each reconcile and the figures it measured; then, on a server that calls webhooks, the
 * WebPage's v2 and its conversion and validating webhooks.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { startTestApiServer } from '@kindex/testing';
import { Kinds, KubeClient } from '@kindex/informer';
import { playWebPage } from './play-webpage.js';
import { playWebPageWebhooks } from './play-webpage-webhooks.js';

export async function runWebPage(kubeconfigFile: string | undefined): Promise<void> {
  const server = kubeconfigFile === undefined ? await startTestApiServer() : undefined;
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
    // The operator's webhooks listen on 127.0.0.1: the embedded server and a kube-apiserver on this machine reach them.
    if (server !== undefined) {
      console.log('\nwebhooks: WebPage v2 through a conversion webhook, and a validating webhook\n');
      await playWebPageWebhooks(kubeConfig, namespace, (line) => console.log(`${String(Date.now() - started).padStart(6)} ms  ${line}`));
    } else {
      console.log('\nwebhooks: not shown (a cluster of --kubeconfig cannot reach webhooks on 127.0.0.1)');
    }
  } finally {
    await server?.stop();
  }
}
