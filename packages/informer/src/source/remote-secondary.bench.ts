// Remote secondaries: event-to-reconcile latency of a secondary watched in another cluster
// (`withRemoteCluster`) against the same secondary watched in the operator's own cluster, in one
// run. Not a test: numbers only (timing claims stay out of unit tests).
// Run: cd packages/informer && node --import tsx src/source/remote-secondary.bench.ts [events] [embedded|real]
// (`pnpm bench -- --scenarios remote` runs it on both servers).
//
// One Operator on cluster A reconciles ConfigMap primaries; two event sources map Secrets to them
// by annotations (the same mapper, so only the cluster differs): `local` on A and `remote` on B.
// Embedded: A and B are two embedded API servers with TLS in this process. Real: A is the real
// kube-apiserver (scripts/real-apiserver/build.sh) and B the same server reached through a KubeConfig
// of its own, so the remote source has its own connections and informers, as for another
// cluster, and the two rows share one server. The driver changes one Secret at a time,
// alternately local and remote, and times from just before the patch is sent to the start of the
// reconcile that sees it (so the write's round trip is in both rows alike).
import { performance } from 'node:perf_hooks';
import { KubeConfig } from '@kubernetes/client-node';
import { UpdateControl, ResourceID, type KubernetesObject } from '@kindex/core';
import { createNamespace, startEmbeddedApiServer } from '@kindex/testing';
import { startRealApiServer } from '@kindex/testing/internal';
import {
  DEFAULT_PRIMARY_NAME_KEY,
  DEFAULT_PRIMARY_NAMESPACE_KEY,
  fromAnnotations,
  InformerEventSource,
  KubeClient,
  Kinds,
  Operator,
  type RemoteCluster,
} from '../index.js';

const events = Number(process.argv[2] ?? 2000);
const flavor = process.argv[3] ?? 'embedded';
if (flavor !== 'embedded' && flavor !== 'real') throw new Error(`the server is 'embedded' or 'real', not '${flavor}'`);
const PRIMARIES = 20;
const WARM_UP = 200;
const SEQ = 'bench.kindex.dev/seq';

const a = flavor === 'real' ? await startRealApiServer() : await startEmbeddedApiServer({ tls: true });
const b = flavor === 'real' ? undefined : await startEmbeddedApiServer({ tls: true });
let operator: Operator | undefined;
try {
  // The real flavor's B: the same server, through a KubeConfig object (so informers) of its own.
  const kubeConfigB = new KubeConfig();
  kubeConfigB.loadFromString((b ?? a).kubeConfig.exportConfig());
  const cluster: RemoteCluster = { name: 'cluster-b', kubeConfig: kubeConfigB };
  const clientA = new KubeClient(a.kubeConfig);
  const clientB = new KubeClient(kubeConfigB);
  const nsA = await createNamespace(a.kubeConfig);
  const nsB = await createNamespace(kubeConfigB);
  const secret = (ns: string, i: number) => ({
    metadata: {
      name: `s-${i}`,
      namespace: ns,
      annotations: { [DEFAULT_PRIMARY_NAME_KEY]: `p-${i}`, [DEFAULT_PRIMARY_NAMESPACE_KEY]: nsA, [SEQ]: '-1' },
    },
    stringData: { token: 't' },
  });
  for (let i = 0; i < PRIMARIES; i++) {
    await clientA.create(Kinds.ConfigMap, { metadata: { name: `p-${i}`, namespace: nsA }, data: { i: String(i) } });
    await clientA.create(Kinds.Secret, secret(nsA, i));
    await clientB.create(Kinds.Secret, secret(nsB, i));
  }

  // The change waited for: its sequence number, when it was sent, and who to tell.
  let waiting: { seq: string; sentAt: number; seen: (latencyMs: number) => void } | undefined;
  const seenIn = (secrets: readonly KubernetesObject[]): void => {
    const w = waiting;
    if (w !== undefined && secrets.some((s) => s.metadata?.annotations?.[SEQ] === w.seq)) {
      waiting = undefined;
      w.seen(performance.now() - w.sentAt);
    }
  };
  operator = new Operator({ kubeConfig: a.kubeConfig });
  operator.register(
    {
      reconcile: (_primary, context) => {
        seenIn(context.getSecondaryResources(Kinds.Secret, { eventSourceName: 'local' }));
        seenIn(context.getSecondaryResources(Kinds.Secret, { eventSourceName: 'remote' }));
        return UpdateControl.noUpdate();
      },
      prepareEventSources: (context) => [
        InformerEventSource.from(Kinds.Secret, Kinds.ConfigMap)
          .withName('local')
          .withSecondaryToPrimaryMapper(fromAnnotations())
          .build(context),
        InformerEventSource.from(Kinds.Secret, Kinds.ConfigMap)
          .withName('remote')
          .withRemoteCluster(cluster)
          .withNamespaces([nsB])
          .withSecondaryToPrimaryMapper(fromAnnotations())
          .build(context),
      ],
    },
    { kind: Kinds.ConfigMap, namespaces: [nsA], generationAware: false },
  );
  await operator.start();

  const latencies: Record<'local' | 'remote', number[]> = { local: [], remote: [] };
  for (let seq = 0; seq < WARM_UP + events; seq++) {
    const where = seq % 2 === 0 ? 'local' : 'remote';
    const i = Math.floor(seq / 2) % PRIMARIES;
    const seen = new Promise<number>((resolve) => {
      waiting = { seq: String(seq), sentAt: performance.now(), seen: resolve };
    });
    const client = where === 'local' ? clientA : clientB;
    await client.patch(Kinds.Secret, ResourceID.of(`s-${i}`, where === 'local' ? nsA : nsB), {
      metadata: { annotations: { [SEQ]: String(seq) } },
    });
    const latency = await seen;
    if (seq >= WARM_UP) latencies[where].push(latency);
  }
  const at = (list: number[], q: number): number => list[Math.min(list.length - 1, Math.floor(q * list.length))]!;
  for (const list of Object.values(latencies)) list.sort((x, y) => x - y);
  const localP99 = at(latencies.local, 0.99);
  console.log(
    `event to reconcile start, a secondary in the operator's cluster against one in a remote cluster, through the ${flavor} API server (${flavor === 'real' ? 'B: the same server through a KubeConfig of its own' : 'B: a second embedded server'}), ${events} changes one at a time after ${WARM_UP} of warm-up, node ${process.version}`,
  );
  console.log('| secondary | p50 ms | p99 ms | p99 vs local |\n| --- | --- | --- | --- |');
  for (const [name, list] of Object.entries(latencies)) {
    const p99 = at(list, 0.99);
    console.log(`| ${name} | ${at(list, 0.5).toFixed(2)} | ${p99.toFixed(2)} | ${(p99 / localP99).toFixed(2)}x |`);
  }
} finally {
  await operator?.stop({ drainTimeoutMs: 2_000 });
  await b?.stop();
  await a.stop();
}
