/**
 * One replica of an operator that mixes a leader-elected (singleton) controller with a sharded
 * one, for the multi-process distribution test, run as a child process
 * (`node --import tsx mixed-replica.ts`), as users run operators.
 *
 * Both controllers reconcile ConfigMaps (`role=$KINDEX_LABEL-single` and `role=$KINDEX_LABEL-sharded`,
 * every 300 ms at least, so reconciles keep coming while the lease and shards move), append one
 * JSON line per reconcile start and end to the records file (key `<controller> <namespace>/<name>`;
 * sync writes: a SIGKILL loses nothing already recorded), print a JSON line on stdout each time the
 * owned shards, the shard map (with whether its change settled) or the leadership change, and shut down through `Operator.run()` on SIGTERM.
 *
 * Environment: KINDEX_KUBECONFIG (file), KINDEX_NAMESPACE (of the Leases), KINDEX_GROUP,
 * KINDEX_SHARDS, KINDEX_LABEL, KINDEX_IDENTITY, KINDEX_RECORDS (file), KINDEX_TIMING (JSON).
 */
import { UpdateControl, type KubernetesObject, type Reconciler } from '@kindex/core';
import { Kinds, Operator, type KubeClient } from '@kindex/informer';
import { replicaFixture } from './replica-fixture.js';

const { env, identity, kubeConfig, timing, record, say } = replicaFixture('mixed-replica');
const label = env('KINDEX_LABEL');
const group = env('KINDEX_GROUP');
const namespace = env('KINDEX_NAMESPACE');

const operator = new Operator({
  kubeConfig,
  leaderElection: { leaseName: group, leaseNamespace: namespace, identity, ...timing },
  sharding: { group, namespace, shards: Number(env('KINDEX_SHARDS')), identity, ...timing },
});
const recording = (controller: string): Reconciler<KubernetesObject, KubeClient> => ({
  reconcile: async (primary) => {
    const key = `${controller} ${primary.metadata?.namespace}/${primary.metadata?.name}`;
    record({ type: 'start', key, at: Date.now() });
    // Stands for the API calls of a real reconcile: time in which another replica could overlap.
    await new Promise((resolve) => setTimeout(resolve, 30));
    record({ type: 'end', key, at: Date.now() });
    return UpdateControl.noUpdate();
  },
});
const common = { kind: Kinds.ConfigMap, generationAware: false, maxReconciliationIntervalMs: 300 } as const;
// With both options a controller is leader-elected unless it asks otherwise.
operator.register(recording('single'), { ...common, name: 'single', labelSelector: `role=${label}-single` });
operator.register(recording('sharded'), { ...common, name: 'sharded', labelSelector: `role=${label}-sharded`, distribution: 'sharded' });
operator.leaderElector?.status$.subscribe((status) => say({ event: status.role === 'leader' ? 'leading' : 'following' }));
await operator.run({
  gracefulShutdownTimeoutMs: 5_000,
  onStarted: () => {
    // With the shard map followed (as shard-replica.ts): which namespaces a shard holds depends on it.
    operator.shardCoordinator?.ownership$.subscribe(({ owned, map, settled }) =>
      say({ event: 'owned', owned, map: map.serialize(), settled }),
    );
  },
});
