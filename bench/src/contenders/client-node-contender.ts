import type { V1ConfigMap } from '@kubernetes/client-node';
import { PRIMARY_KIND } from '../fixture/config-map-fixture.js';
import type { Contender, ContenderOptions } from './contender.js';
import { configMapListWatch } from './config-map-list-watch.js';

function ownerKeys(cm: V1ConfigMap): string[] {
  const keys: string[] = [];
  for (const ref of cm.metadata?.ownerReferences ?? []) {
    if (ref.kind === PRIMARY_KIND) keys.push(`${cm.metadata?.namespace}/${ref.name}`);
  }
  return keys;
}

/**
 * What a client-node user writes: a `ListWatch` informer, plus a hand-kept index from primary key
 * to the Set of its secondaries' keys maintained in the event callbacks, and a Set as work queue.
 */
export function clientNodeContender(options: ContenderOptions): Contender {
  const informer = configMapListWatch(options.kubeconfigPath, options.namespace);

  const byPrimary = new Map<string, Set<string>>();
  const primariesOf = new Map<string, string[]>();
  const queue = new Set<string>();
  let synced = false;
  let callback: ((name: string) => void) | undefined;

  const index = (cm: V1ConfigMap): void => {
    const key = `${cm.metadata?.namespace}/${cm.metadata?.name}`;
    const next = ownerKeys(cm);
    const previous = primariesOf.get(key);
    if (previous !== undefined) {
      for (const p of previous) {
        if (next.includes(p)) continue;
        const set = byPrimary.get(p);
        set?.delete(key);
        if (set?.size === 0) byPrimary.delete(p);
        queue.add(p);
      }
    }
    for (const p of next) {
      let set = byPrimary.get(p);
      if (set === undefined) byPrimary.set(p, (set = new Set()));
      set.add(key);
      queue.add(p);
    }
    primariesOf.set(key, next);
  };
  const unindex = (cm: V1ConfigMap): void => {
    const key = `${cm.metadata?.namespace}/${cm.metadata?.name}`;
    for (const p of primariesOf.get(key) ?? []) {
      const set = byPrimary.get(p);
      set?.delete(key);
      if (set?.size === 0) byPrimary.delete(p);
      queue.add(p);
    }
    primariesOf.delete(key);
  };
  const seen = (cm: V1ConfigMap): void => {
    if (synced) callback?.(cm.metadata?.name ?? '');
  };
  informer.on('add', (cm) => {
    seen(cm);
    index(cm);
  });
  informer.on('update', (cm) => {
    seen(cm);
    index(cm);
  });
  informer.on('delete', (cm) => {
    seen(cm);
    unindex(cm);
  });
  let stopped = false;
  informer.on('error', (error) => {
    if (!stopped) console.error('client-node informer error:', error);
  });

  return {
    async start() {
      await informer.start();
      synced = true;
    },
    size: () => informer.list(options.namespace).length,
    onEvent(cb) {
      callback = cb;
    },
    lookup(primary) {
      let found = 0;
      for (const key of byPrimary.get(`${primary.metadata.namespace}/${primary.metadata.name}`) ?? []) {
        const slash = key.indexOf('/');
        if (informer.get(key.slice(slash + 1), key.slice(0, slash)) !== undefined) found++;
      }
      return found;
    },
    async stop() {
      stopped = true;
      await informer.stop();
    },
  };
}
