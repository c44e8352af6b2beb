import { KubeConfig } from '@kubernetes/client-node';
import { WorkQueue, type KubernetesObject } from '@kindex/core';
import { InformerEventSource, KubeClient, Kinds, resourceKind, type InitialState, type ResourceKind } from '@kindex/informer';
import { PRIMARY_API_VERSION, PRIMARY_KIND } from '../fixture/config-map-fixture.js';
import type { Contender, ContenderOptions } from './contender.js';

const ClusterKind = resourceKind<KubernetesObject>({
  group: PRIMARY_API_VERSION.split('/')[0]!,
  version: 'v1',
  kind: PRIMARY_KIND,
  plural: 'clusters',
  namespaced: true,
});

/**
 * kindex: an InformerEventSource with the owner-reference secondary-to-primary mapper (its default)
 * and the reverse index, an update filter, and every trigger enqueued on a WorkQueue. The `kindex`
 * row reads the initial state by paged lists (`initialState: 'list'`, the figures the CI gate
 * keeps); `kindex-watch-list` streams it by watch-list; lists and watches read in `wire` (JSON, or
 * CBOR for the "kindex (CBOR)" row).
 */
export function kindexContender(
  options: ContenderOptions,
  initialState: InitialState = 'list',
  kind: ResourceKind = Kinds.ConfigMap,
  wire: 'json' | 'cbor' = 'json',
): Contender {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(options.kubeconfigPath);
  const client = new KubeClient(kubeConfig);
  const builder = InformerEventSource.from<KubernetesObject, KubernetesObject>(kind, ClusterKind)
    .withNamespaces([options.namespace])
    .withReflectorOptions({ initialState, wire })
    .withOnUpdateFilter((object, oldObject) => object.metadata?.resourceVersion !== oldObject.metadata?.resourceVersion);
  const source = new InformerEventSource(builder.configuration(), client, [options.namespace]);
  const queue = new WorkQueue();
  // Connected as the event processor connects: a sink the source calls directly (`onTrigger`
  // listeners and `triggers$` run after it).
  source.connect({
    accept(trigger) {
      const ids = trigger.primaryIds;
      for (let i = 0; i < ids.length; i++) queue.add(ids[i]!.key);
    },
  });
  source.problems$.subscribe((problem) => console.error('kindex problem:', problem.error));
  let synced = false;
  let callback: ((name: string) => void) | undefined;
  // The harness counts deliveries through the cache's own listener hook (what the event source uses), not an rxjs stream.
  source.cache.onDelta((delta) => {
    if (synced) callback?.(delta.object.metadata?.name ?? '');
  });

  return {
    async start() {
      await source.start();
      synced = true;
    },
    size: () => source.list().length,
    onEvent(cb) {
      callback = cb;
    },
    lookup(primary) {
      return source.getSecondaryResources(primary).length;
    },
    async stop() {
      queue.shutDown();
      await source.stop();
      await client.registry?.stopAll();
    },
  };
}
