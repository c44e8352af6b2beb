import { expect } from 'chai';
import { ApiextensionsV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { Registry } from 'prom-client';
import { UpdateControl, type EventSourceHealth } from '@kindex/core';
import {
  createNamespace,
  createTestCrd,
  eventually,
  startEmbeddedApiServer,
  startTestApiServer,
  type TestApiServer,
} from '@kindex/testing';
import {
  Controller,
  DEFAULT_PRIMARY_NAME_KEY,
  DEFAULT_PRIMARY_NAMESPACE_KEY,
  fromAnnotations,
  InformerEventSource,
  KubeApiError,
  KubeClient,
  requiredPermissions,
  type RemoteCluster,
  InformerRegistry,
} from '../index.js';
import { InformerMetrics } from '../internal.js';
import { useOperatorSuite } from '../testing-fixtures/operator-suite.js';
import { TcpRelay } from '../testing-fixtures/tcp-relay.js';
import { ClusterKind, JobKind, type Cluster, type Job } from '../testing-fixtures/remote-kinds.js';

// A Job in cluster A reconciled from the Cluster objects of cluster B, two test API servers at once.

describe('InformerEventSource withRemoteCluster', function () {
  this.timeout(120_000);
  const suite = useOperatorSuite({ crd: { group: 'test.kindex.dev', kind: 'Job' } });
  let b: TestApiServer | undefined;
  let controller: Controller<Job> | undefined;
  before(async () => {
    b = await startTestApiServer();
    await createTestCrd(b.kubeConfig.makeApiClient(ApiextensionsV1Api), b.kubeConfig.makeApiClient(CustomObjectsApi), {
      group: 'test.kindex.dev',
      kind: 'Cluster',
    });
    // A real server serves a new CRD's resource a moment after it is established.
    const clientB = new KubeClient(b.kubeConfig);
    await eventually(() => clientB.list(ClusterKind, { namespace: 'default' }), { timeoutMs: 30_000 });
  });
  afterEach(async () => {
    await controller?.stop({ drainTimeoutMs: 5_000 });
    controller = undefined;
  });
  // After the suite's own hook, which stops the client's informers (B's included).
  after(async () => {
    await b?.stop();
  });

  /** A Cluster in B naming its Job in A by annotations; retried, since a write right after a restart may meet a stale connection. */
  async function createCluster(client: KubeClient, ns: string, name: string, job: string, jobNamespace: string): Promise<void> {
    await eventually(() =>
      client.create(ClusterKind, {
        metadata: { name, namespace: ns, annotations: { [DEFAULT_PRIMARY_NAME_KEY]: job, [DEFAULT_PRIMARY_NAMESPACE_KEY]: jobNamespace } },
        spec: { size: 1 },
      }),
    );
  }

  function remoteController(cluster: RemoteCluster, nsA: string, nsB: string) {
    const secondaries = new Map<string, string[]>();
    let source: InformerEventSource<Cluster, Job> | undefined;
    controller = new Controller<Job>(
      {
        reconcile: (job, context) => {
          secondaries.set(
            job.metadata!.name!,
            context.getSecondaryResources(ClusterKind).map((c) => c.metadata!.name!),
          );
          return UpdateControl.noUpdate();
        },
        prepareEventSources: (context) => {
          source = InformerEventSource.from(ClusterKind, JobKind)
            .withName('clusters')
            .withRemoteCluster(cluster)
            .withNamespaces([nsB])
            .withSecondaryToPrimaryMapper(fromAnnotations())
            .build(context);
          return [source];
        },
      },
      { kind: JobKind, namespaces: [nsA] },
      suite.client,
    );
    return { secondaries, source: () => source! };
  }

  it("reconciles a Job of A from B's Clusters, goes on with A while B is unreachable, then catches up", async () => {
    const nsA = await createNamespace(suite.server.kubeConfig);
    const nsB = await createNamespace(b!.kubeConfig);
    const clientB = new KubeClient(b!.kubeConfig);
    // The operator reaches B through a TCP relay: closing it takes B away as a stopped server
    // would (connections cut, then refused), on the embedded and the real server alike.
    const relay = await TcpRelay.start(new URL(b!.url));
    const { secondaries, source } = remoteController({ name: 'cluster-b', kubeConfig: relay.kubeConfigOf(b!) }, nsA, nsB);
    try {
      await suite.client.create(JobKind, { metadata: { name: 'j1', namespace: nsA }, spec: { image: 'busybox' } });
      await controller!.start();
      const health: EventSourceHealth[] = [];
      source().health$.subscribe((h) => health.push(h));
      const problems: unknown[] = [];
      source().problems$.subscribe((p) => problems.push(p.error));
      await createCluster(clientB, nsB, 'c1', 'j1', nsA);
      await eventually(() => expect(secondaries.get('j1')).to.deep.equal(['c1']));

      // B goes away: only its source turns unhealthy, naming the cluster; its informer's metrics carry the cluster.
      await relay.stop();
      await eventually(() => expect(health.at(-1)?.status).to.equal('unhealthy'), { timeoutMs: 20_000 });
      expect(String((health.at(-1)?.error as Error).message)).to.match(/^cluster cluster-b: /);
      expect(problems.some((p) => String((p as Error).message).startsWith('cluster cluster-b: '))).to.equal(true);
      const metrics = new Registry();
      new InformerMetrics(metrics).observe(InformerRegistry.of(suite.client));
      const text = await metrics.metrics();
      expect(text).to.match(/kindex_informer_watching\{[^}]*resource="clusters.test.kindex.dev"[^}]*cluster="cluster-b"[^}]*\} 0/);
      expect(text).to.match(/kindex_informer_watching\{[^}]*resource="jobs.test.kindex.dev"[^}]*cluster=""[^}]*\} 1/);
      // A goes on: a new Job is reconciled with what is cached of B (nothing names it yet).
      await suite.client.create(JobKind, { metadata: { name: 'j2', namespace: nsA } });
      await eventually(() => expect(secondaries.get('j2')).to.deep.equal([]), { timeoutMs: 10_000 });
      expect(secondaries.get('j1')).to.deep.equal(['c1']);
      // B's server itself stops and starts again meanwhile (where the server can: data kept), and gets a new Cluster.
      await b!.faults.restart?.();
      await createCluster(clientB, nsB, 'c2', 'j2', nsA);

      // B is back: the source reconnects, is healthy again and catches up with what it missed.
      await relay.restart();
      await eventually(() => expect(secondaries.get('j2')).to.deep.equal(['c2']), { timeoutMs: 60_000 });
      await eventually(() => expect(health.at(-1)?.status).to.equal('healthy'));
    } finally {
      await controller?.stop({ drainTimeoutMs: 5_000 });
      controller = undefined;
      await relay.stop();
    }
  });

  it('turns only the remote source unhealthy, naming the cluster, the 401 and the fix, when its credentials stop working after sync; recovers with new ones', async () => {
    // Revoking credentials needs the server's test hooks: this cluster B is embedded on either tier.
    const revoking = await startEmbeddedApiServer({ token: 'token-a' });
    try {
      await createTestCrd(revoking.kubeConfig.makeApiClient(ApiextensionsV1Api), revoking.kubeConfig.makeApiClient(CustomObjectsApi), {
        group: 'test.kindex.dev',
        kind: 'Cluster',
      });
      const admin = new KubeClient(revoking.kubeConfig);
      const nsA = await createNamespace(suite.server.kubeConfig);
      const nsB = await createNamespace(revoking.kubeConfig);
      const asOperator = (token: string, into = new KubeConfig()): KubeConfig => {
        into.loadFromClusterAndUser(revoking.kubeConfig.getCurrentCluster()!, { name: 'operator', token });
        return into;
      };
      const remote = asOperator('token-a');
      const { secondaries, source } = remoteController({ name: 'cluster-b', kubeConfig: remote }, nsA, nsB);
      await suite.client.create(JobKind, { metadata: { name: 'j1', namespace: nsA } });
      await createCluster(admin, nsB, 'c1', 'j1', nsA);
      await controller!.start();
      const health: EventSourceHealth[] = [];
      source().health$.subscribe((h) => health.push(h));
      await eventually(() => expect(secondaries.get('j1')).to.deep.equal(['c1']));

      // The token is revoked and B's watches end: the relist gets 401.
      revoking.rotateToken('token-b');
      const refused = await new KubeClient(asOperator('token-a')).list(ClusterKind, { namespace: nsB }).catch((e: unknown) => e);
      expect(refused).to.be.instanceOf(KubeApiError).with.property('status', 401);
      await revoking.faults.closeWatches();
      await eventually(() => expect(health.at(-1)?.status).to.equal('unhealthy'), { timeoutMs: 20_000 });
      // One line saying what failed where, then the fix, as at start.
      const [what, fix, ...rest] = String((health.at(-1)?.error as Error).message).split('\n');
      expect(what).to.match(
        /^event source "clusters on cluster cluster-b" lost access: (?:list|watch) clusters\.test\.kindex\.dev\/v1 \(kind Cluster\) in namespace "[^"]+" failed with 401 Unauthorized/,
      );
      expect(fix).to.equal(
        "Fix: cluster cluster-b did not accept the credentials in the RemoteCluster's kubeConfig: check its token, client certificate and expiry there (the pod's service account token is not used for this cluster).",
      );
      expect(rest).to.deep.equal([]);
      // The rest goes on with what is cached of B.
      await suite.client.create(JobKind, { metadata: { name: 'j2', namespace: nsA } });
      await eventually(() => expect(secondaries.get('j2')).to.deep.equal([]), { timeoutMs: 10_000 });
      expect(secondaries.get('j1')).to.deep.equal(['c1']);

      // New credentials in the same KubeConfig: the source reconnects and catches up.
      // (The server's own kubeconfig holds the revoked token too.)
      await createCluster(new KubeClient(asOperator('token-b')), nsB, 'c2', 'j2', nsA);
      asOperator('token-b', remote);
      await eventually(() => expect(secondaries.get('j2')).to.deep.equal(['c2']), { timeoutMs: 60_000 });
      await eventually(() => expect(health.at(-1)?.status).to.equal('healthy'));
    } finally {
      await controller?.stop({ drainTimeoutMs: 5_000 });
      controller = undefined;
      await revoking.stop();
    }
  });

  it('fails the start when the remote cluster is down, naming the cluster', async () => {
    const down = await startTestApiServer();
    const kubeConfig: KubeConfig = down.kubeConfig;
    await down.stop();
    const nsA = await createNamespace(suite.server.kubeConfig);
    remoteController({ name: 'cluster-down', kubeConfig }, nsA, 'default');
    const started = controller!.start({ cacheSyncTimeoutMs: 2_000 });
    const error = await started.then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).to.include('clusters').and.to.include('cluster cluster-down');
  });

  it("leaves the remote source's kind out of the operator's own RBAC: the remote cluster grants it", async () => {
    const nsA = await createNamespace(suite.server.kubeConfig);
    remoteController({ name: 'cluster-b', kubeConfig: b!.kubeConfig }, nsA, 'default');
    const resources = (await requiredPermissions([controller!])).map((p) => p.resource);
    expect(resources).to.include('jobs').and.to.not.include('clusters');
  });

  it('refuses a remote source without its own mapper, and a bad cluster name, with the fix', () => {
    const cluster = { name: 'cluster-b', kubeConfig: suite.server.kubeConfig };
    expect(() =>
      InformerEventSource.from(ClusterKind, JobKind).withName('clusters').withRemoteCluster(cluster).build(suite.client),
    ).to.throw(
      TypeError,
      'event source clusters: objects of cluster cluster-b cannot name their primaries by owner references (they do not cross clusters); add withSecondaryToPrimaryMapper(fromAnnotations()) or fromLabels()',
    );
    expect(() =>
      InformerEventSource.from(ClusterKind, JobKind)
        .withName('clusters')
        .withRemoteCluster({ ...cluster, name: 'Cluster B' }),
    ).to.throw(
      TypeError,
      "event source clusters: the remote cluster's name must be lowercase letters, digits, '-' and '.' (at most 63), got \"Cluster B\"",
    );
  });
});
