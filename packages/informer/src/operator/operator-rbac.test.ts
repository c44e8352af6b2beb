import { expect } from 'chai';
import {
  ApiextensionsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  RbacAuthorizationV1Api,
} from '@kubernetes/client-node';
import { DeleteControl, ResourceID, ShardMap, UpdateControl, type KubernetesObject, type Reconciler } from '@kindex/core';
import { createNamespace, createServiceAccount, createTestCrd, eventually, uniqueName, useTestApiServer } from '@kindex/testing';
import {
  InformerEventSource,
  Kinds,
  KubeApiError,
  KubeClient,
  KubernetesDependentResource,
  Operator,
  Workflow,
  resourceKind,
  type OperatorOptions,
  type ResourceKind,
} from '../index.js';
import { SHARD_MAP_ANNOTATION } from '../internal.js';
import type { Widget } from '../testing-fixtures/widget.js';

/**
 * End to end: the derived manifest, applied for a ServiceAccount, is enough for an operator
 * running as that account (leader election, watched Secrets, a ConfigMap dependent, status and
 * a finalizer), and nothing more: writes outside it are refused with 403.
 */
describe('Operator.rbacManifest on a server that enforces RBAC', function () {
  this.timeout(120_000);
  // The real server always enforces RBAC; the embedded one when asked to.
  const server = useTestApiServer({ shared: true, authorization: 'RBAC' });
  let WidgetKind: ResourceKind<Widget>;
  const stops: (() => Promise<void>)[] = [];

  before(async function () {
    const crd = await createTestCrd(
      server().kubeConfig.makeApiClient(ApiextensionsV1Api),
      server().kubeConfig.makeApiClient(CustomObjectsApi),
      { kind: 'Widget' },
    );
    WidgetKind = resourceKind<Widget>(crd);
  });
  afterEach(async () => {
    for (const stop of stops.splice(0)) await stop();
  });

  /** The operator under test: watches Secrets, owns a ConfigMap per Widget, creates Events, writes status, has cleanup. */
  function operatorOf(kubeConfig: KubeConfig, namespace: string): Operator {
    const options: OperatorOptions = {
      kubeConfig,
      leaderElection: { leaseName: 'widgets', leaseNamespace: namespace, onLost: 'standby' },
    };
    const operator = new Operator(options);
    const config = new KubernetesDependentResource({
      kind: Kinds.ConfigMap,
      primaryKind: WidgetKind,
      desired: (w: Widget) => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `${w.metadata!.name!}-config` },
        data: { size: String(w.spec?.size ?? 0) },
      }),
    });
    const reconciler: Reconciler<Widget, KubeClient> = {
      // A write of the reconciler's own, declared with `writes` below.
      reconcile: async (w, context) => {
        await context.getClient().create(Kinds.Event, {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { generateName: `${w.metadata!.name!}.`, namespace: w.metadata!.namespace! },
          involvedObject: {
            apiVersion: w.apiVersion,
            kind: w.kind,
            name: w.metadata!.name!,
            namespace: w.metadata!.namespace!,
            uid: w.metadata!.uid!,
          },
          reason: 'Reconciled',
          message: `size ${w.spec?.size ?? 0}`,
        });
        return UpdateControl.patchStatus<Widget>({ ...w, status: { seen: w.spec?.size ?? 0 } });
      },
      cleanup: () => DeleteControl.defaultDelete(),
      prepareEventSources: (context) => [InformerEventSource.from(Kinds.Secret, WidgetKind).withName('secrets').build(context)],
    };
    operator.register(reconciler, {
      kind: WidgetKind,
      name: 'widgets',
      namespaces: [namespace],
      workflow: new Workflow([{ dependent: config }]),
      writes: [{ kind: Kinds.Event, verbs: ['create'] }],
    });
    return operator;
  }

  /** A ServiceAccount with a TokenRequest token and no rights yet. */
  function serviceAccount(namespace: string): Promise<{ name: string; kubeConfig: KubeConfig }> {
    return createServiceAccount(server().kubeConfig, namespace);
  }

  async function expectForbidden(label: string, write: () => Promise<unknown>): Promise<void> {
    let failure: unknown;
    try {
      await write();
    } catch (error) {
      failure = error;
    }
    expect(failure, `${label} must be refused`).to.be.instanceOf(KubeApiError);
    expect((failure as KubeApiError).status, `${label}: ${String(failure)}`).to.equal(403);
  }

  it('the derived Role lets the operator start and reconcile as its ServiceAccount, and refuses writes outside it', async function () {
    const ns = await createNamespace(server().kubeConfig);
    const sa = await serviceAccount(ns);
    const manifest = await operatorOf(server().kubeConfig, ns).rbacManifest({
      name: 'widgets-operator',
      subject: { kind: 'ServiceAccount', name: sa.name, namespace: ns },
    });
    // Everything lands in this namespace's Role: the ClusterRole would grant more than needed.
    expect(manifest.clusterRules).to.deep.equal([]);
    expect(manifest.namespacedRules.get(ns)).to.deep.equal([
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'patch', 'delete'] },
      { apiGroups: [''], resources: ['events'], verbs: ['create'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] },
      // context.getEventRecorder()'s events.k8s.io Events (rbacManifest's `events`, on by default).
      { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
      { apiGroups: [WidgetKind.group], resources: [WidgetKind.plural], verbs: ['get', 'list', 'watch', 'patch'] },
      { apiGroups: [WidgetKind.group], resources: [`${WidgetKind.plural}/finalizers`], verbs: ['update'] },
      { apiGroups: [WidgetKind.group], resources: [`${WidgetKind.plural}/status`], verbs: ['patch'] },
    ]);
    const rbac = server().kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    for (const o of manifest.objects) {
      if (o.kind === 'Role') await rbac.createNamespacedRole({ namespace: ns, body: o as never });
      else if (o.kind === 'RoleBinding') await rbac.createNamespacedRoleBinding({ namespace: ns, body: o as never });
      else throw new Error(`unexpected ${o.kind} in the manifest`);
    }
    const asOperator = new KubeClient(sa.kubeConfig);
    stops.push(async () => asOperator.registry?.stopAll());
    // RBAC rules take effect once the authorizer's informers have seen them.
    await eventually(async () => expect(await asOperator.get(Kinds.Lease, ResourceID.of('none', ns))).to.equal(undefined), {
      timeoutMs: 30_000,
    });

    const operator = operatorOf(sa.kubeConfig, ns);
    stops.push(() => operator.stop({ drainTimeoutMs: 5_000 }));
    await operator.start({ cacheSyncTimeoutMs: 30_000 });
    const admin = new KubeClient(server().kubeConfig);
    stops.push(async () => admin.registry?.stopAll());
    await admin.create(WidgetKind, {
      apiVersion: WidgetKind.apiVersion,
      kind: 'Widget',
      metadata: { name: 'w', namespace: ns },
      spec: { size: 7 },
    });
    // Reconciled as the ServiceAccount: finalizer added, ConfigMap dependent created by apply, Event created, status written.
    await eventually(async () => {
      const w = await admin.get<Widget>(WidgetKind, ResourceID.of('w', ns));
      expect(w?.status?.seen).to.equal(7);
      expect(w?.metadata?.finalizers).to.have.length(1);
      expect(
        (await admin.get<KubernetesObject & { data?: Record<string, string> }>(Kinds.ConfigMap, ResourceID.of('w-config', ns)))?.data,
      ).to.deep.equal({ size: '7' });
    });
    expect(operator.isLeader).to.equal(true);
    const events = await server().kubeConfig.makeApiClient(CoreV1Api).listNamespacedEvent({ namespace: ns });
    expect(events.items.map((e) => e.reason)).to.include('Reconciled');

    // Outside the manifest: a watched kind is read-only, the primary cannot be created or deleted.
    await expectForbidden('creating a Secret (watched, not written)', () =>
      asOperator.create(Kinds.Secret, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'leak', namespace: ns } }),
    );
    await expectForbidden('deleting an Event (declared verbs: create only)', () =>
      asOperator.delete(Kinds.Event, ResourceID.of(events.items[0]!.metadata.name!, ns)),
    );
    await expectForbidden('deleting a Widget (primary: no delete)', () => asOperator.delete(WidgetKind, ResourceID.of('w', ns)));
    await expectForbidden('creating a Widget (primary: no create)', () =>
      asOperator.create(WidgetKind, { apiVersion: WidgetKind.apiVersion, kind: 'Widget', metadata: { name: 'x', namespace: ns } }),
    );
    await expectForbidden('creating a ConfigMap in another namespace', () =>
      asOperator.create(Kinds.ConfigMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'leak', namespace: 'default' } }),
    );

    // Cleanup as the ServiceAccount: the finalizer comes off and the Widget goes.
    await admin.delete(WidgetKind, ResourceID.of('w', ns));
    await eventually(async () => expect(await admin.get(WidgetKind, ResourceID.of('w', ns))).to.equal(undefined));
  });
  it('the derived manifest lets a namespace-sharded operator publish its shard map (listing Namespaces) and reconcile as its ServiceAccount', async function () {
    const ns = await createNamespace(server().kubeConfig);
    const sa = await serviceAccount(ns);
    const group = 'cms';
    const shardedOperator = (kubeConfig: KubeConfig, reconciled: Set<string>): Operator => {
      const operator = new Operator({
        kubeConfig,
        sharding: { group, namespace: ns, shards: 2, leaseDurationMs: 2_000, renewDeadlineMs: 1_500, retryPeriodMs: 250 },
      });
      const reconciler: Reconciler<KubernetesObject, KubeClient> = {
        reconcile: (cm) => {
          reconciled.add(cm.metadata!.name!);
          return UpdateControl.noUpdate();
        },
      };
      operator.register(reconciler, { kind: Kinds.ConfigMap, name: 'cms', namespaces: [ns], generationAware: false });
      return operator;
    };
    const name = uniqueName('sharded-operator');
    const manifest = await shardedOperator(server().kubeConfig, new Set()).rbacManifest({
      name,
      subject: { kind: 'ServiceAccount', name: sa.name, namespace: ns },
    });
    // The shard map is cut at the quantiles of the namespaces present: list on Namespaces, cluster-wide, nothing more.
    expect(manifest.clusterRules).to.deep.equal([{ apiGroups: [''], resources: ['namespaces'], verbs: ['list'] }]);
    const rbac = server().kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    for (const o of manifest.objects) {
      if (o.kind === 'Role') await rbac.createNamespacedRole({ namespace: ns, body: o as never });
      else if (o.kind === 'RoleBinding') await rbac.createNamespacedRoleBinding({ namespace: ns, body: o as never });
      else if (o.kind === 'ClusterRole') {
        await rbac.createClusterRole({ body: o as never });
        stops.push(() => rbac.deleteClusterRole({ name: o.metadata.name }).then(() => undefined));
      } else if (o.kind === 'ClusterRoleBinding') {
        await rbac.createClusterRoleBinding({ body: o as never });
        stops.push(() => rbac.deleteClusterRoleBinding({ name: o.metadata.name }).then(() => undefined));
      } else throw new Error(`unexpected ${(o as { kind: string }).kind} in the manifest`);
    }
    // RBAC rules take effect once the authorizer's informers have seen them.
    await eventually(
      async () => {
        await sa.kubeConfig.makeApiClient(CoreV1Api).listNamespace();
        await sa.kubeConfig.makeApiClient(CoordinationV1Api).listNamespacedLease({ namespace: ns });
      },
      { timeoutMs: 30_000 },
    );
    const admin = server().kubeConfig.makeApiClient(CoreV1Api);
    await admin.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'c' } } });
    const reconciled = new Set<string>();
    const operator = shardedOperator(sa.kubeConfig, reconciled);
    const problems: unknown[] = [];
    stops.push(() => operator.stop({ drainTimeoutMs: 5_000 }));
    await operator.start({ cacheSyncTimeoutMs: 30_000 });
    operator.shardCoordinator!.problems$.subscribe((p) => problems.push(p));
    // The map published on `<group>-map` (by this, the only replica) and followed; the primary reconciled under it.
    await eventually(
      async () => {
        const lease = await server()
          .kubeConfig.makeApiClient(CoordinationV1Api)
          .readNamespacedLease({ name: `${group}-map`, namespace: ns });
        const published = ShardMap.parse(lease.metadata!.annotations![SHARD_MAP_ANNOTATION]!);
        expect(published.epoch, String(problems)).to.be.at.least(1);
        expect(operator.shardCoordinator!.map.epoch).to.equal(published.epoch);
        expect(operator.shardCoordinator!.ownership.settled).to.equal(true);
        expect([...reconciled]).to.include('c');
      },
      { timeoutMs: 30_000 },
    );
    expect(problems.map(String)).to.deep.equal([]);
    await expectForbidden('reading a Namespace (list only)', () => new KubeClient(sa.kubeConfig).get(Kinds.Namespace, ResourceID.of(ns)));
  });
});
