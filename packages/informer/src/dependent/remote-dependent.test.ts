// Dependent resources in another cluster, two test API servers at once: a Job in cluster A owns a
// ConfigMap in cluster B, applied, watched and (through the finalizer) deleted there.
import { expect } from 'chai';
import { KubeConfig } from '@kubernetes/client-node';
import { ApiextensionsV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { GenericRetry, ResourceID, UpdateControl, type KubernetesObject } from '@kindex/core';
import { createNamespace, createTestCrd, eventually, startTestApiServer, type TestApiServer } from '@kindex/testing';
import {
  CacheSyncError,
  DEFAULT_PRIMARY_NAME_KEY,
  DEFAULT_PRIMARY_NAMESPACE_KEY,
  DEFAULT_PRIMARY_TYPE_KEY,
  fromAnnotations,
  InformerEventSource,
  InvalidDesiredResourceError,
  KubeClient,
  KubernetesDependentResource,
  Kinds,
  Operator,
  requiredPermissions,
  Workflow,
  type RemoteCluster,
} from '../index.js';
import { useOperatorSuite } from '../testing-fixtures/operator-suite.js';
import { TcpRelay } from '../testing-fixtures/tcp-relay.js';
import { ClusterKind, JobKind, type Job } from '../testing-fixtures/remote-kinds.js';

type ConfigMap = KubernetesObject & { data?: Record<string, string> };

/** The ConfigMap in `nsB` of `cluster` that each Job should have: named after the Job, holding its image. */
function jobConfig(cluster: RemoteCluster, nsB: string, options: { namespaces?: readonly string[] } = { namespaces: [nsB] }) {
  return new KubernetesDependentResource<ConfigMap, Job>({
    kind: Kinds.ConfigMap,
    primaryKind: JobKind,
    name: 'job-config',
    cluster,
    ...options,
    desired: (job) => ({
      metadata: { name: `${job.metadata!.namespace!}-${job.metadata!.name!}`, namespace: nsB },
      data: { image: job.spec?.image ?? '' },
    }),
  });
}

describe('KubernetesDependentResource in a remote cluster', function () {
  this.timeout(120_000);
  const suite = useOperatorSuite({ crd: { group: 'test.kindex.dev', kind: 'Job' } });
  let b: TestApiServer | undefined;
  let clientB: KubeClient | undefined;
  before(async () => {
    b = await startTestApiServer();
    clientB = new KubeClient(b.kubeConfig);
    await createTestCrd(b.kubeConfig.makeApiClient(ApiextensionsV1Api), b.kubeConfig.makeApiClient(CustomObjectsApi), {
      group: 'test.kindex.dev',
      kind: 'Cluster',
    });
    // A real server serves a new CRD's resource a moment after it is established.
    await eventually(() => clientB!.list(ClusterKind, { namespace: 'default' }), { timeoutMs: 30_000 });
  });
  afterEach(async () => {
    await suite.operator?.stop({ drainTimeoutMs: 5_000 });
    suite.operator = undefined;
  });
  after(async () => {
    await b?.stop();
  });

  function run(workflow: Workflow<Job>, nsA: string): Operator {
    const operator = new Operator({ kubeConfig: suite.server.kubeConfig });
    operator.register<Job>(
      { reconcile: () => UpdateControl.noUpdate() },
      // Retries close together and many: an outage of B spans several of them.
      {
        kind: JobKind,
        namespaces: [nsA],
        workflow,
        retry: new GenericRetry({ initialIntervalMs: 200, maxIntervalMs: 1_000, maxAttempts: 100 }),
      },
    );
    suite.operator = operator;
    return operator;
  }

  /** Starts an operator whose reconciler applies `dependent` itself and keeps what each attempt threw. */
  async function reconcileCapturing(dependent: KubernetesDependentResource<ConfigMap, Job>, nsA: string): Promise<Error[]> {
    const failures: Error[] = [];
    suite.operator = new Operator({ kubeConfig: suite.server.kubeConfig });
    suite.operator.register<Job>(
      {
        reconcile: (job, context) =>
          dependent.reconcile(job, context).then(
            () => UpdateControl.noUpdate(),
            (error: unknown) => {
              failures.push(error as Error);
              return UpdateControl.noUpdate();
            },
          ),
        prepareEventSources: (context) => [dependent.eventSource(context)],
      },
      { kind: JobKind, namespaces: [nsA] },
    );
    await suite.operator.start();
    return failures;
  }

  it('applies the object in its cluster naming the primary in annotations, follows it there, and deletes it through the finalizer', async () => {
    const nsA = await createNamespace(suite.server.kubeConfig);
    const nsB = await createNamespace(b!.kubeConfig);
    const dependent = jobConfig({ name: 'cluster-b', kubeConfig: b!.kubeConfig }, nsB);
    expect(dependent.ownedByPrimary, 'no owner reference across clusters').to.equal(false);
    const workflow = new Workflow<Job>([{ dependent }]);
    expect(workflow.needsCleanup).to.equal(true);
    await run(workflow, nsA).start();
    await suite.client.create(JobKind, { metadata: { name: 'j1', namespace: nsA }, spec: { image: 'busybox' } });
    const id = ResourceID.of(`${nsA}-j1`, nsB);

    const created = await eventually(async () => {
      const cm = await clientB!.get(Kinds.ConfigMap, id);
      expect(cm?.data).to.deep.equal({ image: 'busybox' });
      return cm!;
    });
    expect(created.metadata?.annotations).to.include({
      [DEFAULT_PRIMARY_NAME_KEY]: 'j1',
      [DEFAULT_PRIMARY_NAMESPACE_KEY]: nsA,
      [DEFAULT_PRIMARY_TYPE_KEY]: 'jobs.test.kindex.dev',
    });
    expect(created.metadata?.ownerReferences ?? []).to.deep.equal([]);
    expect(await suite.client.get(Kinds.ConfigMap, ResourceID.of(`${nsA}-j1`, nsA)), 'nothing written in A').to.equal(undefined);
    await eventually(async () =>
      expect((await suite.client.get(JobKind, ResourceID.of('j1', nsA)))?.metadata?.finalizers).to.have.length(1),
    );

    // A change of the primary reaches B; so does a deletion in B (its event source watches B).
    await suite.client.patch(JobKind, ResourceID.of('j1', nsA), { spec: { image: 'alpine' } });
    await eventually(async () => expect((await clientB!.get(Kinds.ConfigMap, id))?.data).to.deep.equal({ image: 'alpine' }));
    const before = (await clientB!.get(Kinds.ConfigMap, id))!.metadata!.uid;
    await clientB!.delete(Kinds.ConfigMap, id);
    await eventually(async () => {
      const again = await clientB!.get(Kinds.ConfigMap, id);
      expect(again?.metadata?.uid).to.be.a('string').and.not.equal(before);
      expect(again?.data).to.deep.equal({ image: 'alpine' });
    });

    // No garbage collector crosses clusters: the finalizer holds the Job until B's object is gone.
    await suite.client.delete(JobKind, ResourceID.of('j1', nsA));
    await eventually(async () => expect(await clientB!.get(Kinds.ConfigMap, id), "B's ConfigMap deleted").to.equal(undefined));
    await eventually(async () => expect(await suite.client.get(JobKind, ResourceID.of('j1', nsA)), 'the Job gone').to.equal(undefined));
  });

  it('keeps the primary, finalizer and all, while its remote object cannot be deleted, and finishes once the cluster is back', async () => {
    const nsA = await createNamespace(suite.server.kubeConfig);
    const nsB = await createNamespace(b!.kubeConfig);
    // The operator reaches B through a relay that can take B away (see TcpRelay).
    const relay = await TcpRelay.start(new URL(b!.url));
    try {
      const viaRelay = relay.kubeConfigOf(b!);
      await run(new Workflow<Job>([{ dependent: jobConfig({ name: 'cluster-b', kubeConfig: viaRelay }, nsB) }]), nsA).start();
      await suite.client.create(JobKind, { metadata: { name: 'j1', namespace: nsA }, spec: { image: 'busybox' } });
      const id = ResourceID.of(`${nsA}-j1`, nsB);
      await eventually(async () => expect(await clientB!.get(Kinds.ConfigMap, id)).to.not.equal(undefined));

      await relay.stop();
      await suite.client.delete(JobKind, ResourceID.of('j1', nsA));
      // Cleanup fails while B is away: the Job stays, marked for deletion, its finalizer on.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const held = await suite.client.get(JobKind, ResourceID.of('j1', nsA));
      expect(held?.metadata?.deletionTimestamp, 'marked for deletion').to.be.a('string');
      expect(held?.metadata?.finalizers).to.have.length(1);
      expect(await clientB!.get(Kinds.ConfigMap, id), "B's ConfigMap still there").to.not.equal(undefined);

      // B's server itself stops and starts again meanwhile (where the server can: data kept).
      await b!.faults.restart?.();
      await relay.restart();
      await eventually(async () => expect(await clientB!.get(Kinds.ConfigMap, id), "B's ConfigMap deleted").to.equal(undefined), {
        timeoutMs: 30_000,
      });
      await eventually(async () => expect(await suite.client.get(JobKind, ResourceID.of('j1', nsA)), 'the Job gone').to.equal(undefined));
    } finally {
      await relay.stop();
    }
  });

  it('names the cluster in a failed remote write', async () => {
    const nsA = await createNamespace(suite.server.kubeConfig);
    const nsB = await createNamespace(b!.kubeConfig);
    const relay = await TcpRelay.start(new URL(b!.url));
    try {
      const viaRelay = relay.kubeConfigOf(b!);
      const failures = await reconcileCapturing(jobConfig({ name: 'cluster-b', kubeConfig: viaRelay }, nsB), nsA);
      await relay.stop();
      await suite.client.create(JobKind, { metadata: { name: 'j1', namespace: nsA } });
      await eventually(() => expect(failures).to.have.length.greaterThan(0), { timeoutMs: 20_000 });
      expect(failures[0]!.message).to.match(/^cluster cluster-b: /);
      expect(failures[0]!.cause, 'the error of the request').to.be.instanceOf(Error);
    } finally {
      await relay.stop();
    }
  });

  it("gives each remote cluster its own RBAC manifest, and leaves its kinds out of the operator's", async () => {
    const nsA = await createNamespace(suite.server.kubeConfig);
    const cluster: RemoteCluster = { name: 'cluster-b', kubeConfig: b!.kubeConfig };
    const operator = new Operator({ kubeConfig: suite.server.kubeConfig });
    operator.register<Job>(
      {
        reconcile: () => UpdateControl.noUpdate(),
        prepareEventSources: (context) => [
          InformerEventSource.from(ClusterKind, JobKind)
            .withName('clusters')
            .withRemoteCluster(cluster)
            .withNamespaces(['fleet'])
            .withSecondaryToPrimaryMapper(fromAnnotations())
            .build(context),
        ],
      },
      { kind: JobKind, namespaces: [nsA], workflow: new Workflow<Job>([{ dependent: jobConfig(cluster, 'mirror') }]) },
    );
    const manifest = await operator.rbacManifest({ name: 'job-operator', leases: false, events: false });
    const own = [...manifest.namespacedRules.values(), manifest.clusterRules].flat().flatMap((r) => r.resources ?? []);
    expect(own).to.include('jobs').and.not.include('configmaps').and.not.include('clusters');
    expect([...manifest.clusters!.keys()]).to.deep.equal(['cluster-b']);
    const forB = manifest.clusters!.get('cluster-b')!;
    expect(forB.clusterRules).to.deep.equal([]);
    expect(Object.fromEntries(forB.namespacedRules)).to.deep.equal({
      fleet: [{ apiGroups: ['test.kindex.dev'], resources: ['clusters'], verbs: ['get', 'list', 'watch'] }],
      mirror: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] }],
    });
    expect(forB.yaml).to.include('kind: Role').and.not.include('RoleBinding');
    // requiredPermissions stays the operator's own cluster's.
    expect((await requiredPermissions(operator.controllers)).map((p) => p.resource)).to.not.include('configmaps');
  });

  it('refuses one cluster name for two kubeconfigs, naming both', async () => {
    const nsA = await createNamespace(suite.server.kubeConfig);
    // A source reaching B and a dependent reaching A, both calling their cluster 'cluster-b'.
    const clash = new Operator({ kubeConfig: suite.server.kubeConfig });
    clash.register<Job>(
      {
        reconcile: () => UpdateControl.noUpdate(),
        prepareEventSources: (context) => [
          InformerEventSource.from(ClusterKind, JobKind)
            .withName('clusters')
            .withRemoteCluster({ name: 'cluster-b', kubeConfig: b!.kubeConfig })
            .withSecondaryToPrimaryMapper(fromAnnotations())
            .build(context),
        ],
      },
      {
        kind: JobKind,
        namespaces: [nsA],
        workflow: new Workflow<Job>([{ dependent: jobConfig({ name: 'cluster-b', kubeConfig: suite.server.kubeConfig }, 'default') }]),
      },
    );
    const error = await clash.start().then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    const serverA = suite.server.kubeConfig.getCurrentCluster()!.server;
    const serverB = b!.kubeConfig.getCurrentCluster()!.server;
    expect(error).to.be.instanceOf(TypeError);
    expect(error!.message).to.match(
      new RegExp(
        `^remote cluster cluster-b is named twice with different kubeconfigs: event source clusters reaches ${serverB} as .*, event source job-config reaches ${serverA} as .*; give each cluster its own name, or share one RemoteCluster$`,
      ),
    );
    await clash.stop();
  });

  it('fails the start naming the source, the cluster, the 401 and the fix when its kubeconfig cannot authenticate', async () => {
    const nsA = await createNamespace(suite.server.kubeConfig);
    const intruder = new KubeConfig();
    intruder.loadFromOptions({
      clusters: [b!.kubeConfig.getCurrentCluster()!],
      users: [{ name: 'intruder', token: 'not-a-token' }],
      contexts: [{ name: 'b', cluster: b!.kubeConfig.getCurrentCluster()!.name, user: 'intruder' }],
      currentContext: 'b',
    });
    const operator = run(new Workflow<Job>([{ dependent: jobConfig({ name: 'cluster-b', kubeConfig: intruder }, 'default') }]), nsA);
    const error = await operator.start({ cacheSyncTimeoutMs: 20_000 }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    // One line saying what failed where, then the fix (as every CacheSyncError).
    const [what, fix, ...rest] = error!.message.split('\n');
    expect(what).to.match(
      /^controller "jobs\.test\.kindex\.dev", event source "job-config on cluster cluster-b" cannot start: (?:list|watch) configmaps\/v1 \(kind ConfigMap\) in namespace "default" failed with 401 Unauthorized/,
    );
    // The fix is in the remote cluster's kubeconfig, not the pod's service account token.
    expect(fix).to.match(
      /^Fix: cluster cluster-b did not accept the credentials in the RemoteCluster's kubeConfig: check its token, client certificate and expiry there \(the pod's service account token is not used for this cluster\)\.$/,
    );
    expect((error as CacheSyncError).cluster?.name).to.equal('cluster-b');
    expect(rest).to.deep.equal([]);
  });

  it('refuses namespaces on a local dependent, and a desired object outside the watched namespaces, with the fix', async () => {
    expect(
      () =>
        new KubernetesDependentResource<ConfigMap, Job>({
          kind: Kinds.ConfigMap,
          primaryKind: JobKind,
          name: 'local',
          namespaces: ['elsewhere'],
          desired: () => ({ metadata: { name: 'x' } }),
        }),
    ).to.throw(
      TypeError,
      `dependent "local": namespaces is for a dependent in a remote cluster; a local one lives in its primary's namespace (add cluster, or drop namespaces)`,
    );
    const nsA = await createNamespace(suite.server.kubeConfig);
    const nsB = await createNamespace(b!.kubeConfig);
    // Without namespaces it watches the controller's (nsA), so nsB is out of its sight.
    const dependent = jobConfig({ name: 'cluster-b', kubeConfig: b!.kubeConfig }, nsB, {});
    const failures = await reconcileCapturing(dependent, nsA);
    await suite.client.create(JobKind, { metadata: { name: 'j1', namespace: nsA } });
    await eventually(() => expect(failures).to.have.length.greaterThan(0));
    expect(failures[0]).to.be.instanceOf(InvalidDesiredResourceError);
    expect((failures[0] as Error).message).to.equal(
      `dependent "job-config" of Job ${nsA}/j1: desired() put ${nsA}-j1 in namespace ${nsB} of cluster cluster-b, which the dependent does not watch (${nsA}); list it in the dependent's namespaces option`,
    );
  });
});
