// A small operator built the way a user outside this repository builds one: the packed
// @kindex/* tarballs installed with npm, compiled by plain tsc (strict, module nodenext) and run
// by plain node. It stamps every ConfigMap in `default` with an annotation, against the embedded
// API server from the packed @kindex/testing, and exits 0 once the stamp is on the server.
import { UpdateControl, type Context, type KubernetesObject, type Reconciler } from '@kindex/core';
import { Kinds, Operator, type KubeClient } from '@kindex/informer';
import { startEmbeddedApiServer } from '@kindex/testing';
import { CoreV1Api } from '@kubernetes/client-node';

const STAMP = 'consumer.kindex.dev/seen';

class StampReconciler implements Reconciler<KubernetesObject, KubeClient> {
  reconcile(configMap: KubernetesObject, _context: Context<KubernetesObject, KubeClient>): UpdateControl<KubernetesObject> {
    const metadata = configMap.metadata ?? {};
    if (metadata.annotations?.[STAMP] === 'yes') return UpdateControl.noUpdate();
    return UpdateControl.patchResource({
      ...configMap,
      metadata: { ...metadata, annotations: { ...metadata.annotations, [STAMP]: 'yes' } },
    });
  }
}

const server = await startEmbeddedApiServer();
const operator = new Operator({ kubeConfig: server.kubeConfig });
try {
  operator.register(new StampReconciler(), { kind: Kinds.ConfigMap, namespaces: ['default'] });
  await operator.start();
  const core = server.kubeConfig.makeApiClient(CoreV1Api);
  await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'hello' }, data: { greeting: 'hi' } } });
  const deadline = Date.now() + 20_000;
  for (;;) {
    const read = await core.readNamespacedConfigMap({ namespace: 'default', name: 'hello' });
    if (read.metadata?.annotations?.[STAMP] === 'yes') break;
    if (Date.now() > deadline) throw new Error(`ConfigMap default/hello was not stamped with ${STAMP} within 20 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  console.log(`consumer operator: reconciled default/hello on Node ${process.versions.node}`);
} finally {
  await operator.stop();
  await server.stop();
}
