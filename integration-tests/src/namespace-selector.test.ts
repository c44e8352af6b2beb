// ControllerOptions.namespaceSelector: the Job controller (and its Cluster source, which inherits
// the controller's namespaces) follows the namespaces whose Namespace object carries a label, as
// labels are added and removed at run time. Runs on the embedded server and, with
// KINDEX_APISERVER=real, on a real kube-apiserver.
import { expect } from 'chai';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { ResourceID } from '@kindex/core';
import { CacheSyncError, Kinds, Operator, type Controller } from '@kindex/informer';
import { createNamespace, eventually, uniqueName } from '@kindex/testing';
import { JobReconciler } from '@kindex/sample-job-cluster/src/job-reconciler.js';
import { ReconcileLog } from './support/reconcile-log.js';
import {
  ClusterKind,
  JobKind,
  cluster,
  expectServerJobValues,
  job,
  setClusterValue,
  useSampleServer,
  type Job,
} from './support/sample-fixture.js';

describe('Controller namespaceSelector (on the Job/Cluster sample)', function () {
  this.timeout(120_000);
  const fixture = useSampleServer();
  let operator: Operator | undefined;

  afterEach(async function () {
    this.timeout(60_000);
    await operator?.stop({ drainTimeoutMs: 10_000 });
    operator = undefined;
  });

  async function label(namespace: string, key: string, value: string | null): Promise<void> {
    await fixture().client.patch(Kinds.Namespace, ResourceID.of(namespace), { metadata: { labels: { [key]: value } } });
  }

  async function startJobs(selector: string): Promise<{ jobs: Controller<Job>; log: ReconcileLog; reconciler: JobReconciler }> {
    operator = new Operator({ kubeConfig: fixture().server.kubeConfig });
    const reconciler = new JobReconciler();
    const jobs = operator.register(reconciler, { kind: JobKind, name: 'jobs', namespaceSelector: selector });
    const log = new ReconcileLog(jobs);
    await operator.start();
    return { jobs, log, reconciler };
  }

  /** Waits until nothing is queued or running and no event came for a while: counts are final. */
  async function settle(jobs: Controller<Job>, log: ReconcileLog): Promise<void> {
    await eventually(
      () => {
        const stats = jobs.processor?.stats();
        expect(stats?.queued, 'queued').to.equal(0);
        expect(stats?.processing, 'processing').to.equal(0);
        expect(log.quietForMs, 'quiet').to.be.at.least(700);
      },
      { timeoutMs: 60_000, intervalMs: 100, description: 'the controller settles' },
    );
  }

  it('reconciles labelled namespaces, adds one when it gains the label and drops one that loses it, without a storm', async () => {
    const { server, client } = fixture();
    const key = `kindex.dev/${uniqueName('sel')}`;
    const [a, b, c] = [
      await createNamespace(server.kubeConfig),
      await createNamespace(server.kubeConfig),
      await createNamespace(server.kubeConfig),
    ];
    for (const ns of [a, b, c]) {
      await client.create(ClusterKind, cluster('c', ns, `${ns}-1`));
      await client.create(JobKind, job('j1', ns, 'c'));
      await client.create(JobKind, job('j2', ns, 'c'));
    }
    await label(a, key, 'yes');
    await label(c, key, 'yes');
    const { jobs, log, reconciler } = await startJobs(`${key}=yes`);
    expect([...(jobs.primaryCache.namespaces as readonly string[])].sort()).to.deep.equal([a, c].sort());
    for (const ns of [a, c]) {
      await expectServerJobValues(client, ns, { j1: `${ns}-1`, j2: `${ns}-1` });
    }
    await settle(jobs, log);
    expect(
      log.keys().filter((k) => k.startsWith(`${b}/`)),
      'reconciles in the unlabelled namespace',
    ).to.deep.equal([]);

    // b gains the label: its jobs converge, each reconciled once; nothing else is reconciled.
    log.reset();
    await label(b, key, 'yes');
    await expectServerJobValues(client, b, { j1: `${b}-1`, j2: `${b}-1` });
    await settle(jobs, log);
    const counts = Object.fromEntries(log.keys().map((k) => [k, log.count(k)]));
    // One reconcile writes the status; the status write itself is filtered (generation-aware).
    expect(counts).to.deep.equal({ [`${b}/j1`]: 1, [`${b}/j2`]: 1 });

    // a loses the label: its objects leave both caches and nothing is reconciled for it.
    log.reset();
    await label(a, key, null);
    await eventually(() => expect(jobs.primaryCache.list(a), 'jobs of the dropped namespace still cached').to.deep.equal([]));
    await eventually(() => expect(reconciler.clusters!.list(a), 'clusters of the dropped namespace still cached').to.deep.equal([]));
    await settle(jobs, log);
    expect(log.total, 'reconciles caused by dropping a namespace').to.equal(0);
    // The dropped namespace is no longer followed; the others still are.
    await setClusterValue(client, a, 'c', `${a}-2`);
    await setClusterValue(client, c, 'c', `${c}-2`);
    await expectServerJobValues(client, c, { j1: `${c}-2`, j2: `${c}-2` });
    await settle(jobs, log);
    expect(
      log.keys().filter((k) => k.startsWith(`${a}/`)),
      'reconciles in the dropped namespace',
    ).to.deep.equal([]);
    expect(log.overlaps).to.deep.equal([]);
  });

  it('starts with no namespace selected and follows a namespace created with the label', async () => {
    const { client } = fixture();
    const key = `kindex.dev/${uniqueName('sel')}`;
    const { jobs, log } = await startJobs(`${key}=yes`);
    expect(jobs.primaryCache.namespaces).to.deep.equal([]);
    const ns = uniqueName('labelled');
    await client.create(Kinds.Namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { [key]: 'yes' } } });
    await eventually(() => expect(jobs.primaryCache.namespaces).to.deep.equal([ns]));
    await client.create(ClusterKind, cluster('c', ns, 'v1'));
    await client.create(JobKind, job('j', ns, 'c'));
    await expectServerJobValues(client, ns, new Map([['j', 'v1']]));
    await settle(jobs, log);
    expect(log.count(`${ns}/j`)).to.equal(1);
  });

  it('fails start with a CacheSyncError naming the namespace selector when namespaces may not be listed', async () => {
    const kubeConfig = await withoutNamespaceAccess();
    try {
      operator = new Operator({ kubeConfig: kubeConfig.config });
      operator.register(new JobReconciler(), { kind: JobKind, name: 'jobs', namespaceSelector: 'team=a' });
      const error = await operator.start().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(CacheSyncError);
      expect(error).to.include({ status: 403, controller: 'jobs', eventSource: 'namespace-selector', phase: 'startup' });
      const e = error as CacheSyncError;
      expect(e.type.plural).to.equal('namespaces');
      expect(e.message).to.contain('event source "namespace-selector"').and.contain('ClusterRole');
    } finally {
      kubeConfig.lift();
    }
  });

  /**
   * Credentials that may not list namespaces: the embedded server's forbid fault, or on a real
   * server a fresh service account's token with no role bound.
   */
  async function withoutNamespaceAccess(): Promise<{ config: KubeConfig; lift: () => void }> {
    const { server } = fixture();
    if (server.faults.forbid !== undefined) return { config: server.kubeConfig, lift: server.faults.forbid({ resource: 'namespaces' }) };
    const ns = await createNamespace(server.kubeConfig);
    const core = server.kubeConfig.makeApiClient(CoreV1Api);
    const sa = uniqueName('sa');
    await core.createNamespacedServiceAccount({ namespace: ns, body: { metadata: { name: sa } } });
    const request = await core.createNamespacedServiceAccountToken({
      name: sa,
      namespace: ns,
      body: { spec: { audiences: [], expirationSeconds: 3600 } },
    });
    const config = new KubeConfig();
    config.loadFromClusterAndUser(server.kubeConfig.getCurrentCluster()!, { name: sa, token: request.status!.token });
    return { config, lift: () => undefined };
  }

  it('reports losing access to namespaces after start as a problem of the namespace selector, keeping its namespaces', async function () {
    const { server } = fixture();
    if (server.faults.forbid === undefined || server.faults.closeWatches === undefined) this.skip();
    const key = `kindex.dev/${uniqueName('sel')}`;
    const ns = await createNamespace(server.kubeConfig);
    await label(ns, key, 'yes');
    const { jobs } = await startJobs(`${key}=yes`);
    const problems: { source: string; error: unknown }[] = [];
    jobs.events$.subscribe((e) => e.type === 'problem' && problems.push(e));
    const lift = server.faults.forbid({ resource: 'namespaces' });
    try {
      await server.faults.closeWatches();
      await eventually(() => expect(problems.map((p) => p.source)).to.include('namespace-selector'), { timeoutMs: 30_000 });
      expect(jobs.primaryCache.namespaces, 'the last known selection is kept').to.deep.equal([ns]);
    } finally {
      lift();
    }
  });

  it('asks for a ClusterRole with list and watch on namespaces in its RBAC manifest', async () => {
    operator = new Operator({ kubeConfig: fixture().server.kubeConfig });
    operator.register(new JobReconciler(), { kind: JobKind, name: 'jobs', namespaceSelector: 'team=a' });
    const manifest = await operator.rbacManifest();
    expect(manifest.namespacedRules.size, 'namespaces are only known at run time').to.equal(0);
    const rule = (resource: string) => manifest.clusterRules.find((r) => r.resources.includes(resource));
    expect(rule('namespaces')?.verbs).to.include.members(['list', 'watch']);
    expect(rule('jobs')?.verbs).to.include.members(['list', 'watch']);
    expect(rule('clusters')?.verbs).to.include.members(['list', 'watch']);
  });

  it('rejects namespaces together with namespaceSelector, naming both', () => {
    operator = new Operator({ kubeConfig: fixture().server.kubeConfig });
    expect(() => operator!.register(new JobReconciler(), { kind: JobKind, namespaces: ['x'], namespaceSelector: 'team=a' })).to.throw(
      TypeError,
      /namespaces and namespaceSelector/,
    );
  });
});
