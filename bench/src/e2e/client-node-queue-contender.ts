import type { V1ConfigMap } from '@kubernetes/client-node';
import type { E2eContender, E2eContenderOptions } from './e2e-contender.js';
import { configMapListWatch } from '../contenders/config-map-list-watch.js';

/**
 * What a client-node user writes: a `ListWatch` informer whose callbacks put the object's key in
 * a Set (deduplicating while queued), and one async worker loop that takes keys in order, reads
 * the object from the informer's cache and reconciles it.
 */
export function clientNodeQueueContender(options: E2eContenderOptions): E2eContender {
  const informer = configMapListWatch(options.kubeconfigPath, options.namespace);

  const queue = new Set<string>();
  let wake: (() => void) | undefined;
  let stopped = false;
  const enqueue = (cm: V1ConfigMap): void => {
    queue.add(`${cm.metadata?.namespace}/${cm.metadata?.name}`);
    wake?.();
  };
  informer.on('add', enqueue);
  informer.on('update', enqueue);
  informer.on('delete', enqueue);
  informer.on('error', (error) => {
    if (!stopped) console.error('client-node informer error:', error);
  });

  const worker = async (): Promise<void> => {
    while (!stopped) {
      const next = queue.values().next();
      if (next.done === true) {
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
        continue;
      }
      const key = next.value;
      queue.delete(key);
      const slash = key.indexOf('/');
      const cm = informer.get(key.slice(slash + 1), key.slice(0, slash));
      try {
        if (cm !== undefined) await Promise.resolve(options.reconcile(cm));
      } catch (error) {
        console.error(`reconcile of ${key} failed:`, error);
      }
    }
  };
  let running: Promise<void> | undefined;

  return {
    async start() {
      running = worker();
      await informer.start();
    },
    size: () => informer.list(options.namespace).length,
    async stop() {
      stopped = true;
      wake?.();
      await informer.stop();
      await running;
    },
  };
}
