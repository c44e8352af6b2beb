/**
 * One operator replica for the multi-process leader election tests and the failover benchmark,
 * run as a child process (`node --import tsx election-replica.ts`), as users run operators.
 *
 * It reconciles `Counter`s (spec.value into status.observed, stamped with its identity) under
 * leader election, appends one JSON line per reconcile start and end to the records file (sync
 * writes: a SIGKILL loses nothing already recorded) and one per write the server accepted, prints JSON lines on stdout when started and
 * when its leadership changes, and shuts down through `Operator.run()` on SIGTERM.
 *
 * Environment: KINDEX_KUBECONFIG (file), KINDEX_NAMESPACE, KINDEX_GROUP (of the Counter CRD),
 * KINDEX_IDENTITY, KINDEX_RECORDS (file), KINDEX_TIMING (JSON: leaseDurationMs, renewDeadlineMs,
 * retryPeriodMs), KINDEX_ON_LOST (`exit` | `standby`), KINDEX_RECONCILE_MS.
 */
import { UpdateControl, type KubernetesObject } from '@kindex/core';
import { Operator, resourceKind } from '@kindex/informer';
import { replicaFixture } from './replica-fixture.js';

interface Counter extends KubernetesObject {
  spec?: { value?: number };
  status?: { observed?: number; by?: string };
}

const { env, identity, kubeConfig, timing, record, say } = replicaFixture('election-replica');
const namespace = env('KINDEX_NAMESPACE');
const reconcileMs = Number(process.env['KINDEX_RECONCILE_MS'] ?? '30');
const onLost = process.env['KINDEX_ON_LOST'] === 'standby' ? 'standby' : 'exit';
const CounterKind = resourceKind<Counter>({
  group: env('KINDEX_GROUP'),
  version: 'v1',
  kind: 'Counter',
  plural: 'counters',
  namespaced: true,
});

const operator = new Operator({
  kubeConfig,
  leaderElection: { leaseName: 'counters', leaseNamespace: namespace, identity, onLost, ...timing },
});
const controller = operator.register<Counter>(
  {
    reconcile: async (counter) => {
      const key = `${counter.metadata?.namespace}/${counter.metadata?.name}`;
      const value = counter.spec?.value ?? 0;
      record({ type: 'start', key, value, at: Date.now() });
      // Stands for the API calls of a real reconcile: time in which another replica could overlap.
      await new Promise((resolve) => setTimeout(resolve, reconcileMs));
      record({ type: 'end', key, value, at: Date.now() });
      return UpdateControl.patchStatus({ ...counter, status: { observed: value, by: identity } });
    },
  },
  { kind: CounterKind, namespaces: [namespace] },
);
// Successful writes only: the controller reports them after the server accepted them.
controller.events$.subscribe((e) => {
  // The resourceVersion the server gave the write orders it against other replicas' writes.
  if (e.type === 'reconciled' && e.wrote.length > 0)
    record({ type: 'wrote', key: e.key, rv: controller.getPrimary(e.key)?.metadata?.resourceVersion, at: Date.now() });
});
operator.leaderElector?.isLeader$.subscribe((leading) => say({ event: leading ? 'leading' : 'following' }));
await operator.run({ gracefulShutdownTimeoutMs: 10_000, onStarted: () => say({ event: 'started' }) });
