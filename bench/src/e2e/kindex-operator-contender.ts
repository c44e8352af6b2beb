import { KubeConfig } from '@kubernetes/client-node';
import { UpdateControl } from '@kindex/core';
import { Kinds, Operator } from '@kindex/informer';
import type { E2eContender, E2eContenderOptions } from './e2e-contender.js';

/**
 * kindex as an operator author runs it in production: an `Operator` (logs at info, metrics, the
 * HTTP server with `/debug/controllers`, `inspection` off: its default) with one `Controller`
 * whose primary is the ConfigMap, default concurrency (10), no generation awareness (ConfigMaps
 * have no generation) and a read-only reconciler: `noUpdate` and no `cleanup`, so no finalizer
 * and no write. With `inspection`, the same with `inspection: true` (what tests run with): each
 * primary's causes and last reconcile kept for `describePrimary`.
 */
export function kindexOperatorContender(options: E2eContenderOptions, inspection = false): E2eContender {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(options.kubeconfigPath);
  // As users run it: logs at info, metrics (always on) and the debug endpoint served.
  const operator = new Operator({ kubeConfig, logger: 'info', server: { port: 0, host: '127.0.0.1', debug: true }, inspection });
  const controller = operator.register(
    {
      reconcile(primary) {
        options.reconcile(primary);
        return UpdateControl.noUpdate();
      },
    },
    { kind: Kinds.ConfigMap, namespaces: [options.namespace], generationAware: false },
  );
  let stopped = false;
  // Problems only, as a user who follows them subscribes (events$ would hand this subscriber
  // several wrapped events per trigger to filter out). Writes are counted by the stream server
  // (the table's writes column, which must be 0).
  controller.problems$.subscribe((problem) => {
    if (!stopped) console.error(`kindex problem in ${problem.source}:`, problem.error);
  });
  return {
    start: () => operator.start(),
    size: () => controller.primaryCache.size,
    async stop() {
      stopped = true;
      await operator.stop({ drainTimeoutMs: 5_000 });
    },
  };
}
