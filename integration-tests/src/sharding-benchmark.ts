/**
 * Sharding measured, not asserted: the same primaries split among 1, 2 and 4 replicas
 * of one operator (`Operator` option `sharding`, 8 shards by namespace). Per replica: primaries
 * cached, objects received from the server (list items plus watch events, counted before the
 * client-side filter) for a list of its range and for one update of every primary, and the heap
 * growth of all replicas together;
 * then the time for the survivors to own every shard after one replica dies.
 *
 *   cd integration-tests && node --expose-gc --import tsx src/sharding-benchmark.ts [--objects 2000] [--namespaces 64] [--no-gate]
 *
 * Replicas run in this one process, each with its own client and informers; heap is measured for
 * all of them together (with --expose-gc), not per replica. A "kill" stops
 * renewing the shard leases without releasing them (as SIGKILL would); survivors take over after
 * leaseDuration. `--no-gate` starts the server without ShardedListAndWatch (client-side filtering:
 * every replica receives everything). KINDEX_APISERVER=real runs it on the real kube-apiserver.
 */
import { CoreV1Api } from '@kubernetes/client-node';
import { UpdateControl, type KubernetesObject, type Reconciler } from '@kindex/core';
import { InformerRegistry, Kinds, Operator, type KubeClient } from '@kindex/informer';
import { createNamespace, startTestApiServer, uniqueName } from '@kindex/testing';

function argument(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}
const objects = argument('--objects', 2000);
const namespaceCount = argument('--namespaces', 64);
const gate = !process.argv.includes('--no-gate');
const SHARDS = 8;
const timing = { leaseDurationMs: 4_000, renewDeadlineMs: 3_000, retryPeriodMs: 500 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const heap = (): number => {
  gc();
  return process.memoryUsage().heapUsed;
};
const received = (o: Operator): number =>
  InformerRegistry.of(o.client)
    .informers()
    .reduce((n, i) => n + i.reflector.objectsReceived, 0);
const cached = (o: Operator): number => o.controllers.reduce((n, c) => n + c.primaryCache.size, 0);

const server = await startTestApiServer({ shardedListAndWatch: gate });
const core = server.kubeConfig.makeApiClient(CoreV1Api);
const label = uniqueName('bench');
const namespaces: string[] = [];
for (let i = 0; i < namespaceCount; i++) namespaces.push(await createNamespace(server.kubeConfig));
for (let i = 0; i < objects; i++) {
  const namespace = namespaces[i % namespaceCount]!;
  await core.createNamespacedConfigMap({
    namespace,
    body: { metadata: { name: `p${i}`, labels: { role: label } }, data: { v: '0', pad: 'x'.repeat(512) } },
  });
}
const leaseNamespace = await createNamespace(server.kubeConfig);
console.log(
  `# ${objects} primaries in ${namespaceCount} namespaces, ${SHARDS} shards by namespace, server ${server.flavor} ${gate ? 'with' : 'without'} ShardedListAndWatch`,
);
console.log(
  '| replicas | replica | shards owned | primaries cached | objects received: list of its range | objects received: one update of every primary |',
);
console.log('| --- | --- | --- | --- | --- | --- |');

try {
  for (const replicas of [1, 2, 4]) {
    const group = uniqueName('bench');
    const reconciled = new Map<string, number>();
    const operators: Operator[] = [];
    const baseline = heap();
    for (let r = 0; r < replicas; r++) {
      const reconciler: Reconciler<KubernetesObject, KubeClient> = {
        reconcile: (p) => {
          reconciled.set(p.metadata!.namespace! + '/' + p.metadata!.name!, r);
          return UpdateControl.noUpdate();
        },
      };
      const operator = new Operator({
        kubeConfig: server.kubeConfig,
        sharding: { group, namespace: leaseNamespace, shards: SHARDS, identity: `r${r}`, ...timing },
      });
      operator.register(reconciler, { kind: Kinds.ConfigMap, labelSelector: `role=${label}`, generationAware: false });
      await operator.start();
      operators.push(operator);
    }
    // Settled: every shard owned once and every primary cached once.
    for (let waited = 0; ; waited += 100) {
      const owned = operators.flatMap((o) => o.shardCoordinator!.owned());
      const applied = operators.every((o) => {
        const owned = o.shardCoordinator!.owned();
        return owned.length > 0 && o.controllers[0]!.shardSelector?.equals(o.shardCoordinator!.map.selectorFor(owned));
      });
      if (applied && owned.length === SHARDS && new Set(owned).size === SHARDS && operators.reduce((n, o) => n + cached(o), 0) === objects)
        break;
      if (waited > 120_000) throw new Error('shards did not settle within 120 s');
      await sleep(100);
    }
    // The informers now are those of the settled ranges (earlier ones were swapped out): what
    // they received is one list of the range, plus the events since.
    await sleep(2_000);
    const growth = heap() - baseline;
    const synced = operators.map(received);
    for (let i = 0; i < objects; i++) {
      const namespace = namespaces[i % namespaceCount]!;
      await core.patchNamespacedConfigMap({
        name: `p${i}`,
        namespace,
        body: [{ op: 'replace', path: '/data/v', value: String(replicas) }],
      });
    }
    await sleep(2_000);
    operators.forEach((o, r) => {
      const cells = [replicas, `r${r}`, o.shardCoordinator!.owned().length, cached(o), synced[r], received(o) - synced[r]!];
      console.log(`| ${cells.join(' | ')} |`);
    });
    console.log(`| ${replicas} | all | | | | heap growth of all ${replicas} replicas together: ${(growth / 2 ** 20).toFixed(1)} MiB |`);
    if (replicas > 1) {
      const victim = operators[replicas - 1]!;
      const orphaned = victim.shardCoordinator!.owned();
      const killedAt = performance.now();
      // As SIGKILL: no renewal and no release of the shard leases from now on.
      await victim.shardCoordinator!.stop({ release: false });
      let takenAt = 0;
      for (;;) {
        const owned = operators.slice(0, -1).flatMap((o) => o.shardCoordinator!.owned());
        if (new Set(owned).size === SHARDS) {
          takenAt = performance.now();
          break;
        }
        await sleep(20);
      }
      console.log(
        `\n${replicas} replicas: r${replicas - 1} killed holding shards [${orphaned.join(', ')}]; survivors owned all ${SHARDS} shards ${((takenAt - killedAt) / 1000).toFixed(2)} s later (leaseDuration ${timing.leaseDurationMs / 1000} s, retryPeriod ${timing.retryPeriodMs / 1000} s)\n`,
      );
    }
    await Promise.all(operators.map((o) => o.stop({ drainTimeoutMs: 1_000 })));
  }
} finally {
  await server.stop();
}
