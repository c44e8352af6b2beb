/**
 * One replica of a sharded operator for the multi-process sharding test, run as a child process
 * (`node --import tsx shard-replica.ts`), as users run operators.
 *
 * It reconciles ConfigMaps labelled `role=$KINDEX_LABEL` (every 300 ms at least, so reconciles
 * keep coming while shards move), appends one JSON line per reconcile start and end to the
 * records file (sync writes: a SIGKILL loses nothing already recorded), prints a JSON line on
 * stdout each time the shards it owns or the shard map change, and shuts down through `Operator.run()` on SIGTERM.
 *
 * Environment: KINDEX_KUBECONFIG (file), KINDEX_NAMESPACE (of the Leases), KINDEX_GROUP,
 * KINDEX_SHARDS, KINDEX_LABEL, KINDEX_IDENTITY, KINDEX_RECORDS (file), KINDEX_TIMING (JSON).
 */
import { UpdateControl, type KubernetesObject } from '@kindex/core';
import { Kinds, Operator } from '@kindex/informer';
import { replicaFixture } from './replica-fixture.js';

const { env, identity, kubeConfig, timing, record, say } = replicaFixture('shard-replica');

const operator = new Operator({
  kubeConfig,
  sharding: { group: env('KINDEX_GROUP'), namespace: env('KINDEX_NAMESPACE'), shards: Number(env('KINDEX_SHARDS')), identity, ...timing },
});
operator.register<KubernetesObject>(
  {
    reconcile: async (primary) => {
      const key = `${primary.metadata?.namespace}/${primary.metadata?.name}`;
      record({ type: 'start', key, at: Date.now() });
      // Stands for the API calls of a real reconcile: time in which another replica could overlap.
      await new Promise((resolve) => setTimeout(resolve, 30));
      record({ type: 'end', key, at: Date.now() });
      return UpdateControl.noUpdate();
    },
  },
  { kind: Kinds.ConfigMap, labelSelector: `role=${env('KINDEX_LABEL')}`, generationAware: false, maxReconciliationIntervalMs: 300 },
);
await operator.run({
  gracefulShutdownTimeoutMs: 5_000,
  onStarted: () => {
    // With the shard map followed: which namespaces a shard holds depends on it.
    operator.shardCoordinator?.ownership$.subscribe(({ owned, map }) => say({ event: 'owned', owned, map: map.serialize() }));
  },
});
