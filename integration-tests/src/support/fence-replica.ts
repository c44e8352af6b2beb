/**
 * One replica of a sharded operator for the stale-write test (shard-fencing.test.ts), run as a child
 * process (`node --import tsx fence-replica.ts`), as users run operators.
 *
 * It reconciles ConfigMaps labelled `role=$KINDEX_LABEL`: each copies its `data.value` into a
 * secondary ConfigMap `<name>-out` by server-side apply through the reconcile's client. A primary
 * whose `data.slow` is `yes` makes the reconcile wait `$KINDEX_SLOW_MS` first (the test freezes
 * the process in that wait) and then check its signal, as a careful reconciler does. It prints
 * JSON lines on stdout: `owned` when its shards change, `reconciling` when a reconcile starts,
 * `attempt` when one ends (with the error's name, if any), and appends a `wrote` line to the
 * records file for every apply the server accepted (with the resourceVersion it gave it). It
 * shuts down through `Operator.run()` on SIGTERM.
 *
 * Environment: KINDEX_KUBECONFIG (file), KINDEX_NAMESPACE (of the Leases), KINDEX_GROUP,
 * KINDEX_LABEL, KINDEX_IDENTITY, KINDEX_RECORDS (file), KINDEX_TIMING (JSON), KINDEX_SLOW_MS.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { UpdateControl, type KubernetesObject } from '@kindex/core';
import { Kinds, Operator } from '@kindex/informer';
import { replicaFixture } from './replica-fixture.js';

interface ConfigMap extends KubernetesObject {
  data?: Record<string, string>;
}

const { env, identity, kubeConfig, timing, record, say } = replicaFixture('fence-replica');
const slowMs = Number(env('KINDEX_SLOW_MS'));

// One shard: exactly one replica owns every primary, the other waits to take over.
const operator = new Operator({
  kubeConfig,
  sharding: { group: env('KINDEX_GROUP'), namespace: env('KINDEX_NAMESPACE'), shards: 1, identity, ...timing },
});
operator.register<ConfigMap>(
  {
    reconcile: async (primary, context) => {
      const { name, namespace } = primary.metadata ?? {};
      const value = primary.data?.['value'] ?? '';
      say({ event: 'reconciling', key: `${namespace}/${name}`, value });
      try {
        if (primary.data?.['slow'] === 'yes') {
          await sleep(slowMs);
          context.getSignal().throwIfAborted();
        }
        const out: ConfigMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-out`, namespace }, data: { value } };
        const written = await context.getClient().apply(Kinds.ConfigMap, out, { force: true });
        record({ type: 'wrote', key: `${namespace}/${name}`, value: Number(value), rv: written.metadata?.resourceVersion, at: Date.now() });
        say({ event: 'attempt', value });
      } catch (error) {
        say({ event: 'attempt', value, error: error instanceof Error ? error.name : String(error) });
        throw error;
      }
      return UpdateControl.noUpdate();
    },
  },
  { kind: Kinds.ConfigMap, labelSelector: `role=${env('KINDEX_LABEL')}`, generationAware: false },
);
await operator.run({
  gracefulShutdownTimeoutMs: 5_000,
  onStarted: () => {
    operator.shardCoordinator?.ownership$.subscribe(({ owned }) => say({ event: 'owned', owned }));
  },
});
