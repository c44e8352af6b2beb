import { expect } from 'chai';
import { DeleteControl, UpdateControl, type Reconciler } from '@kindex/core';
import { ApiextensionsV1Api, CoreV1Api, CustomObjectsApi, KubeConfig, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import {
  createNamespace,
  createTestCrd,
  eventually,
  requireFault,
  startTestApiServer,
  uniqueName,
  type TestApiServer,
} from '@kindex/testing';
import {
  CacheSyncError,
  CacheSyncTimeoutError,
  InformerEventSource,
  Kinds,
  KubeClient,
  Operator,
  StartAbortedError,
  resourceKind,
  type ObjectOfKind,
  type ResourceKind,
  InformerRegistry,
} from '../index.js';
import type { EventSourceHealth } from '@kindex/core';
import type { Widget } from '../testing-fixtures/widget.js';

// Timings of each startup failure, printed once at the end (figures for the closing note).
const timings: string[] = [];

describe('Operator startup failures', function () {
  this.timeout(90_000);
  let server: TestApiServer;
  let WidgetKind: ResourceKind<Widget>;
  let operator: Operator | undefined;
  const fast = { backoff: { initialMs: 50, maxMs: 200 } };
  // Refusals this test added, lifted after it so they cannot leak into the next one.
  let lifts: (() => void)[] = [];
  const forbid = (rule: Parameters<NonNullable<TestApiServer['faults']['forbid']>>[0]): (() => void) => {
    const lift = server.faults.forbid!(rule);
    lifts.push(lift);
    return lift;
  };

  before(async function () {
    this.timeout(180_000);
    // RBAC enforced on both servers (the admin kubeconfig may do everything), for the tests that
    // run an operator as a ServiceAccount.
    server = await startTestApiServer({ authorization: 'RBAC' });
    const crd = await createTestCrd(
      server.kubeConfig.makeApiClient(ApiextensionsV1Api),
      server.kubeConfig.makeApiClient(CustomObjectsApi),
      { kind: 'Widget' },
    );
    WidgetKind = resourceKind<Widget>(crd);
  });
  afterEach(async () => {
    for (const lift of lifts) lift();
    lifts = [];
    server.faults.failNextRequests?.(0, { status: 503 });
    await operator?.stop({ drainTimeoutMs: 5_000 });
    operator = undefined;
  });
  after(async () => {
    if (timings.length > 0) console.log(`      startup failure timings (${server.flavor} server): ${timings.join('; ')}`);
    await server.stop();
  });

  const seenStatus: Reconciler<Widget, KubeClient> = {
    reconcile: (w) => UpdateControl.patchStatus<Widget>({ ...w, status: { seen: w.spec?.size ?? 0 } }),
  };
  const withConfigMaps = (
    extra: (b: ReturnType<typeof InformerEventSource.from<ObjectOfKind<typeof Kinds.ConfigMap>, Widget>>) => void = () => undefined,
  ): Reconciler<Widget, KubeClient> => ({
    ...seenStatus,
    prepareEventSources: (context) => {
      const builder = InformerEventSource.from(Kinds.ConfigMap, WidgetKind).withName('config-maps').withReflectorOptions(fast);
      extra(builder);
      return [builder.build(context)];
    },
  });

  /** Starts and expects a rejection; returns the error and records how long it took. */
  async function startFails(op: Operator, label: string, options: Parameters<Operator['start']>[0] = {}): Promise<unknown> {
    const started = Date.now();
    let failure: unknown;
    try {
      await op.start(options);
    } catch (error) {
      failure = error;
    }
    const ms = Date.now() - started;
    timings.push(`${label} ${ms} ms`);
    expect(failure, `${label}: start() must reject`).to.be.an('error');
    return failure;
  }

  /**
   * A KubeConfig refused `list`/`watch` on configmaps in `namespace` and, unless `primary` is
   * granted, on the primary kind: the embedded server's forbid fault, or on a real server a
   * ServiceAccount token from the TokenRequest API with only the granted rules bound (on both
   * servers with `viaRbac`).
   */
  async function refusedConfig(
    namespace: string,
    grantPrimary: boolean,
    viaRbac = false,
  ): Promise<{ kubeConfig: KubeConfig; user: string }> {
    if (server.faults.forbid !== undefined && !viaRbac) {
      forbid({ resource: 'configmaps', namespace });
      if (!grantPrimary) forbid({ resource: WidgetKind.plural, group: WidgetKind.group, namespace });
      return { kubeConfig: server.kubeConfig, user: 'system:serviceaccount:default:kindex-test' };
    }
    const core = server.kubeConfig.makeApiClient(CoreV1Api);
    const sa = uniqueName('sa');
    await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name: sa } } });
    const request = await core.createNamespacedServiceAccountToken({
      name: sa,
      namespace,
      body: { spec: { audiences: [], expirationSeconds: 3600 } },
    });
    if (grantPrimary) {
      const rbac = server.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
      const rules = [
        { apiGroups: [WidgetKind.group], resources: [WidgetKind.plural], verbs: ['get', 'list', 'watch', 'patch', 'update'] },
        { apiGroups: [WidgetKind.group], resources: [`${WidgetKind.plural}/status`], verbs: ['get', 'patch', 'update'] },
      ];
      await rbac.createNamespacedRole({ namespace, body: { metadata: { name: 'widgets' }, rules } });
      await rbac.createNamespacedRoleBinding({
        namespace,
        body: {
          metadata: { name: 'widgets' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'widgets' },
          subjects: [{ kind: 'ServiceAccount', name: sa, namespace }],
        },
      });
    }
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromClusterAndUser(server.kubeConfig.getCurrentCluster()!, { name: sa, token: request.status!.token });
    return { kubeConfig, user: `system:serviceaccount:${namespace}:${sa}` };
  }

  it('403 on the primary list: start() rejects at once with the Role to add, naming controller, source, kind, namespace and verb', async () => {
    const ns = await createNamespace(server.kubeConfig);
    const { kubeConfig } = await refusedConfig(ns, false);
    operator = new Operator({ kubeConfig });
    // A list, as the title says (by watch-list the refused request is a watch; the reflector's own tests cover that).
    operator.register(seenStatus, { kind: WidgetKind, name: 'widgets', namespaces: [ns], reflector: { ...fast, initialState: 'list' } });
    const error = await startFails(operator, '403 (primary)');
    expect(error).to.be.instanceOf(CacheSyncError);
    const e = error as CacheSyncError;
    expect(e).to.include({ controller: 'widgets', eventSource: 'primary', namespace: ns, verb: 'list', status: 403, phase: 'startup' });
    expect(e.type.plural).to.equal(WidgetKind.plural);
    expect(e.message).to.contain('controller "widgets"').and.contain('event source "primary"').and.contain(`in namespace "${ns}"`);
    expect(e.fix)
      .to.contain('kind: Role\n')
      .and.contain(`namespace: ${ns}`)
      .and.contain(`- ${WidgetKind.group}`)
      .and.contain(`- ${WidgetKind.plural}`);
    expect(e.fix).to.contain('kind: RoleBinding').and.contain('kind: ServiceAccount');
    expect(e.message).to.contain(e.fix);
  });

  it('403 on an event source names that source; 403 across all namespaces asks for a ClusterRole', async () => {
    const ns = await createNamespace(server.kubeConfig);
    const { kubeConfig } = await refusedConfig(ns, true);
    operator = new Operator({ kubeConfig });
    operator.register(withConfigMaps(), { kind: WidgetKind, name: 'widgets', namespaces: [ns], reflector: fast });
    const e = (await startFails(operator, '403 (event source)')) as CacheSyncError;
    expect(e).to.be.instanceOf(CacheSyncError);
    expect(e).to.include({ controller: 'widgets', eventSource: 'config-maps', namespace: ns, status: 403 });
    expect(e.fix).to.contain('kind: Role\n').and.contain('- configmaps');

    const wide = new Operator({ kubeConfig });
    operator = wide;
    // The primary stays in the namespace the real server's Role grants; only the source goes wide.
    wide.register(
      withConfigMaps((b) => b.withAllNamespaces()),
      { kind: WidgetKind, name: 'widgets-wide', namespaces: [ns], reflector: fast },
    );
    if (server.faults.forbid !== undefined) forbid({ resource: 'configmaps' });
    const all = (await startFails(wide, '403 (all namespaces)')) as CacheSyncError;
    expect(all).to.include({ eventSource: 'config-maps', namespace: undefined, status: 403 });
    expect(all.fix).to.contain('kind: ClusterRole\n').and.contain('kind: ClusterRoleBinding');
  });

  it('404 (CRD not installed): start() rejects naming the CRD to install', async () => {
    const ns = await createNamespace(server.kubeConfig);
    const Missing = resourceKind({
      group: `${uniqueName('g')}.kindex.test`,
      version: 'v1',
      kind: 'Gadget',
      plural: 'gadgets',
      namespaced: true,
    });
    operator = new Operator({ kubeConfig: server.kubeConfig });
    operator.register(seenStatus, { kind: Missing, name: 'gadgets', namespaces: [ns], reflector: { ...fast, initialState: 'list' } });
    const e = (await startFails(operator, '404')) as CacheSyncError;
    expect(e).to.be.instanceOf(CacheSyncError);
    expect(e).to.include({ controller: 'gadgets', eventSource: 'primary', status: 404, verb: 'list' });
    expect(e.fix).to.contain(`CustomResourceDefinition gadgets.${Missing.group}`);
  });

  it('400 (a selector the server rejects): start() rejects with the selector and the server reason', async () => {
    const ns = await createNamespace(server.kubeConfig);
    operator = new Operator({ kubeConfig: server.kubeConfig });
    operator.register(
      withConfigMaps((b) => b.withFieldSelector('spec.nothing=here')),
      { kind: WidgetKind, name: 'widgets', namespaces: [ns], reflector: fast },
    );
    const e = (await startFails(operator, '400')) as CacheSyncError;
    expect(e).to.be.instanceOf(CacheSyncError);
    expect(e).to.include({ eventSource: 'config-maps', status: 400, fieldSelector: 'spec.nothing=here' });
    expect(e.fix).to.contain('field selector "spec.nothing=here"').and.contain(e.serverMessage);
  });

  it('401 (credentials refused): start() rejects saying to check the credentials', async () => {
    const ns = await createNamespace(server.kubeConfig);
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromClusterAndUser(server.kubeConfig.getCurrentCluster()!, { name: 'stale', token: 'not-a-valid-token' });
    operator = new Operator({ kubeConfig });
    operator.register(seenStatus, { kind: WidgetKind, name: 'widgets', namespaces: [ns], reflector: fast });
    const e = (await startFails(operator, '401')) as CacheSyncError;
    expect(e).to.be.instanceOf(CacheSyncError);
    expect(e).to.include({ status: 401, eventSource: 'primary' });
    expect(e.fix).to.contain('credentials');
  });

  it('a standalone event source start() rejects with the same error', async () => {
    const ns = await createNamespace(server.kubeConfig);
    const { kubeConfig } = await refusedConfig(ns, true);
    const client = new KubeClient(kubeConfig);
    const source = InformerEventSource.from(Kinds.ConfigMap, WidgetKind)
      .withName('lonely')
      .withNamespaces([ns])
      .withReflectorOptions(fast)
      .build({
        client,
        configuration: { namespaces: 'all' } as never,
        primaryCache: undefined as never,
      });
    const health: EventSourceHealth[] = [];
    source.health$.subscribe((h) => health.push(h));
    const started = Date.now();
    const e = await source.start().then(
      () => undefined,
      (error: unknown) => error,
    );
    timings.push(`403 (standalone source) ${Date.now() - started} ms`);
    expect(e).to.be.instanceOf(CacheSyncError);
    expect(e).to.include({ eventSource: 'lonely', status: 403, controller: undefined });
    expect(health.at(-1)).to.include({ status: 'unhealthy' });
    expect(InformerRegistry.of(client).size, 'the cache was released').to.equal(0);
    await source.stop();
  });

  it('transient failures past cacheSyncTimeoutMs: start() rejects naming what has not synced', async function () {
    const failNext = requireFault(this, server, 'failNextRequests');
    const ns = await createNamespace(server.kubeConfig);
    operator = new Operator({ kubeConfig: server.kubeConfig, cacheSyncTimeoutMs: 1_000 });
    operator.register(seenStatus, { kind: WidgetKind, name: 'widgets', namespaces: [ns], reflector: fast });
    failNext(1_000_000, { status: 503 });
    const e = (await startFails(operator, 'sync timeout (503s, 1 s)')) as CacheSyncTimeoutError;
    expect(e).to.be.instanceOf(CacheSyncTimeoutError);
    expect(e.pending).to.have.length(1);
    expect(e.pending[0]).to.include({ eventSource: 'primary' });
    expect(e.pending[0]!.namespaces).to.deep.equal([ns]);
    expect(e.pending[0]!.lastError).to.contain('503');
    expect(e.message).to.contain('controller "widgets"').and.contain(`namespace ${ns}`);
  });

  it('start({ signal }) can be aborted; stop() during start() makes start() reject and health never says healthy', async function () {
    const failNext = requireFault(this, server, 'failNextRequests');
    const ns = await createNamespace(server.kubeConfig);
    failNext(1_000_000, { status: 503 });

    operator = new Operator({ kubeConfig: server.kubeConfig });
    operator.register(seenStatus, { kind: WidgetKind, name: 'widgets', namespaces: [ns], reflector: fast });
    const abort = new AbortController();
    setTimeout(() => abort.abort(), 300);
    const aborted = await startFails(operator, 'abort', { signal: abort.signal });
    expect(aborted).to.be.instanceOf(StartAbortedError).and.include({ why: 'aborted' });

    const second = new Operator({ kubeConfig: server.kubeConfig });
    operator = second;
    const controller = second.register(seenStatus, { kind: WidgetKind, name: 'widgets', namespaces: [ns], reflector: fast });
    const statuses: string[] = [];
    controller.health$.subscribe((h) => statuses.push(h.status));
    const starting = second.start().then(
      () => undefined,
      (error: unknown) => error,
    );
    await new Promise((r) => setTimeout(r, 300));
    await second.stop();
    const stopped = await starting;
    expect(stopped).to.be.instanceOf(StartAbortedError).and.include({ why: 'stopped' });
    expect(statuses).to.not.include('healthy');
    expect(statuses.at(-1)).to.equal('stopped');
    expect(InformerRegistry.of(second.client).size).to.equal(0);
  });

  it("whenCrdMissing: 'wait' starts the other controllers, then this one when its CRD is installed", async () => {
    const ns = await createNamespace(server.kubeConfig);
    const group = `${uniqueName('g')}.kindex.test`;
    const Gizmo = resourceKind<Widget>({ group, version: 'v1', kind: 'Gizmo', plural: 'gizmos', namespaced: true });
    operator = new Operator({ kubeConfig: server.kubeConfig });
    operator.register(seenStatus, { kind: WidgetKind, name: 'widgets', namespaces: [ns], reflector: fast });
    const waiting = operator.register(seenStatus, {
      kind: Gizmo,
      name: 'gizmos',
      namespaces: [ns],
      reflector: fast,
      whenCrdMissing: 'wait',
      crdPollIntervalMs: 200,
    });
    const health: EventSourceHealth[] = [];
    waiting.health$.subscribe((h) => health.push(h));
    await operator.start();
    expect(health.at(-1)).to.include({ status: 'starting' });
    expect(health.at(-1)!.error).to.be.instanceOf(CacheSyncError).and.include({ status: 404 });

    const client = new KubeClient(server.kubeConfig);
    await client.create(WidgetKind, {
      apiVersion: WidgetKind.apiVersion,
      kind: 'Widget',
      metadata: { name: 'w', namespace: ns },
      spec: { size: 2 },
    });
    await eventually(async () =>
      expect((await client.get<Widget>(WidgetKind, { name: 'w', namespace: ns, key: `${ns}/w` } as never))?.status?.seen).to.equal(2),
    );

    await createTestCrd(server.kubeConfig.makeApiClient(ApiextensionsV1Api), server.kubeConfig.makeApiClient(CustomObjectsApi), {
      group,
      kind: 'Gizmo',
    });
    await client.create(Gizmo, { apiVersion: Gizmo.apiVersion, kind: 'Gizmo', metadata: { name: 'g', namespace: ns }, spec: { size: 5 } });
    await eventually(
      async () =>
        expect((await client.get<Widget>(Gizmo, { name: 'g', namespace: ns, key: `${ns}/g` } as never))?.status?.seen).to.equal(5),
      { timeoutMs: 30_000 },
    );
    expect(health.at(-1)).to.include({ status: 'healthy' });
    await client.registry?.stopAll();
  });

  /**
   * Access to widgets and configmaps in `namespace` that can be revoked and granted back: the
   * embedded server's forbid fault (open watches closed so clients reconnect into it), or on a
   * real server a ServiceAccount whose RoleBinding is deleted and created again; its watches
   * time out every second, so they reconnect into the new rules.
   */
  async function revocableAccess(
    namespace: string,
  ): Promise<{ kubeConfig: KubeConfig; watchTimeoutSeconds: number | undefined; revoke(): Promise<void>; grant(): Promise<void> }> {
    if (server.faults.forbid !== undefined && server.faults.closeWatches !== undefined) {
      let revoked: (() => void)[] = [];
      return {
        kubeConfig: server.kubeConfig,
        watchTimeoutSeconds: undefined,
        revoke: async () => {
          revoked = [
            forbid({ resource: 'configmaps', namespace }),
            forbid({ resource: WidgetKind.plural, group: WidgetKind.group, namespace }),
          ];
          await server.faults.closeWatches!();
        },
        grant: async () => revoked.forEach((lift) => lift()),
      };
    }
    const { kubeConfig, user } = await refusedConfig(namespace, false);
    const rbac = server.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    const rules = [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [WidgetKind.group], resources: [WidgetKind.plural], verbs: ['get', 'list', 'watch', 'patch', 'update'] },
      { apiGroups: [WidgetKind.group], resources: [`${WidgetKind.plural}/status`], verbs: ['get', 'patch', 'update'] },
    ];
    await rbac.createNamespacedRole({ namespace, body: { metadata: { name: 'access' }, rules } });
    const binding = {
      metadata: { name: 'access' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'access' },
      subjects: [{ kind: 'ServiceAccount', name: user.split(':').at(-1)!, namespace }],
    };
    const grant = async (): Promise<void> => void (await rbac.createNamespacedRoleBinding({ namespace, body: binding }));
    await grant();
    // The authorizer sees a new binding shortly after it is written.
    await eventually(() => kubeConfig.makeApiClient(CoreV1Api).listNamespacedConfigMap({ namespace }));
    return {
      kubeConfig,
      watchTimeoutSeconds: 1,
      revoke: async () => void (await rbac.deleteNamespacedRoleBinding({ name: 'access', namespace })),
      grant,
    };
  }

  it('losing RBAC after startup: health turns unhealthy with the fix, the cache is kept, and it heals when access returns', async () => {
    const ns = await createNamespace(server.kubeConfig);
    const admin = new KubeClient(server.kubeConfig);
    await admin.create(Kinds.ConfigMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'kept', namespace: ns } });
    const access = await revocableAccess(ns);
    const reflector = { ...fast, ...(access.watchTimeoutSeconds !== undefined ? { watchTimeoutSeconds: access.watchTimeoutSeconds } : {}) };
    operator = new Operator({ kubeConfig: access.kubeConfig });
    let source: InformerEventSource<ObjectOfKind<typeof Kinds.ConfigMap>, Widget> | undefined;
    const controller = operator.register<Widget>(
      {
        ...seenStatus,
        prepareEventSources: (context) => [
          (source = InformerEventSource.from(Kinds.ConfigMap, WidgetKind)
            .withName('config-maps')
            .withReflectorOptions(reflector)
            .build(context)),
        ],
      },
      { kind: WidgetKind, name: 'widgets', namespaces: [ns], reflector },
    );
    await operator.start();
    const sourceHealth: EventSourceHealth[] = [];
    const primaryHealth: EventSourceHealth[] = [];
    source!.health$.subscribe((h) => sourceHealth.push(h));
    controller.health$.subscribe((h) => primaryHealth.push(h));

    await access.revoke();
    const lost = (health: EventSourceHealth[]): CacheSyncError | undefined =>
      health.map((h) => h.error).find((e): e is CacheSyncError => e instanceof CacheSyncError);
    await eventually(() => expect(lost(sourceHealth)).to.not.equal(undefined), { timeoutMs: 20_000 });
    await eventually(() => expect(lost(primaryHealth)).to.not.equal(undefined), { timeoutMs: 20_000 });
    const e = lost(sourceHealth)!;
    expect(e).to.include({ phase: 'running', status: 403, eventSource: 'config-maps', namespace: ns });
    expect(e.verb).to.be.oneOf(['watch', 'list']);
    expect(e.message).to.contain('lost access').and.contain('kind: Role');
    expect(lost(primaryHealth)!.controller).to.equal('widgets');
    expect(source!.get(`${ns}/kept`), 'the last good cache is kept').to.not.equal(undefined);

    await access.grant();
    await eventually(() => expect(sourceHealth.at(-1)).to.include({ status: 'healthy' }), { timeoutMs: 20_000 });
    await eventually(() => expect(primaryHealth.at(-1)).to.include({ status: 'healthy' }), { timeoutMs: 20_000 });
    await admin.create(Kinds.ConfigMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after', namespace: ns } });
    await eventually(() => expect(source!.get(`${ns}/after`)).to.not.equal(undefined), { timeoutMs: 20_000 });
  });

  it('the controller stays unhealthy while any of its namespaces is refused, and names that namespace', async function () {
    requireFault(this, server, 'forbid');
    const closeWatches = requireFault(this, server, 'closeWatches');
    const [a, b] = [await createNamespace(server.kubeConfig), await createNamespace(server.kubeConfig)];
    operator = new Operator({ kubeConfig: server.kubeConfig });
    const controller = operator.register(seenStatus, { kind: WidgetKind, name: 'widgets', namespaces: [a, b], reflector: fast });
    await operator.start();
    const health: EventSourceHealth[] = [];
    controller.health$.subscribe((h) => health.push(h));
    const liftB = forbid({ resource: WidgetKind.plural, group: WidgetKind.group, namespace: b });
    await closeWatches();
    await eventually(() => expect(health.at(-1)).to.include({ status: 'unhealthy' }));
    // Namespace a reconnects fine meanwhile; that must not make the controller healthy.
    await new Promise((r) => setTimeout(r, 500));
    expect(health.at(-1)).to.include({ status: 'unhealthy' });
    expect(health.at(-1)!.error).to.be.instanceOf(CacheSyncError).and.include({ namespace: b, controller: 'widgets' });
    liftB();
    await eventually(() => expect(health.at(-1)).to.include({ status: 'healthy' }));
  });

  it('rbacManifest() lists what the controllers need; on a server enforcing RBAC its rules are enough to start', async () => {
    const ns = await createNamespace(server.kubeConfig);
    const probe = new Operator({ kubeConfig: server.kubeConfig });
    probe.register<Widget>(
      { ...withConfigMaps(), cleanup: () => DeleteControl.defaultDelete() },
      { kind: WidgetKind, name: 'widgets', namespaces: [ns] },
    );
    const manifest = await probe.rbacManifest();
    expect(manifest.clusterRules).to.deep.equal([]);
    expect(manifest.namespacedRules.get(ns)).to.deep.equal([
      // Watched only: read verbs. The finalizer is patched, status patched on /status.
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] },
      // context.getEventRecorder() writes the controller's Events beside its primaries.
      { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
      { apiGroups: [WidgetKind.group], resources: [WidgetKind.plural], verbs: ['get', 'list', 'watch', 'patch'] },
      { apiGroups: [WidgetKind.group], resources: [`${WidgetKind.plural}/finalizers`], verbs: ['update'] },
      { apiGroups: [WidgetKind.group], resources: [`${WidgetKind.plural}/status`], verbs: ['patch'] },
    ]);
    expect(manifest.yaml).to.contain('kind: Role\n').and.contain(`namespace: ${ns}`);
    const withoutEvents = await probe.rbacManifest({ events: false });
    expect(withoutEvents.namespacedRules.get(ns)?.some((r) => r.apiGroups.includes('events.k8s.io'))).to.equal(false);
    const { kubeConfig, user } = await refusedConfig(ns, false, true);
    const saName = user.split(':').at(-1)!;
    const bound = await probe.rbacManifest({ name: 'kindex-test', subject: { kind: 'ServiceAccount', name: saName, namespace: ns } });
    const rbac = server.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    for (const o of bound.objects) {
      if (o.kind === 'Role') await rbac.createNamespacedRole({ namespace: ns, body: o as never });
      if (o.kind === 'RoleBinding') await rbac.createNamespacedRoleBinding({ namespace: ns, body: o as never });
    }
    operator = new Operator({ kubeConfig });
    operator.register<Widget>(
      { ...withConfigMaps(), cleanup: () => DeleteControl.defaultDelete() },
      { kind: WidgetKind, name: 'widgets', namespaces: [ns] },
    );
    await eventually(async () => {
      // RBAC rules take effect after the authorizer's cache catches up.
      const attempt = new Operator({ kubeConfig });
      attempt.register(seenStatus, { kind: WidgetKind, name: 'probe', namespaces: [ns] });
      try {
        await attempt.start({ cacheSyncTimeoutMs: 10_000 });
      } finally {
        await attempt.stop();
      }
    });
    await operator.start();
    const client = new KubeClient(server.kubeConfig);
    await client.create(WidgetKind, {
      apiVersion: WidgetKind.apiVersion,
      kind: 'Widget',
      metadata: { name: 'rbac', namespace: ns },
      spec: { size: 7 },
    });
    await eventually(async () =>
      expect((await client.get<Widget>(WidgetKind, { name: 'rbac', namespace: ns, key: `${ns}/rbac` } as never))?.status?.seen).to.equal(7),
    );
    await client.registry?.stopAll();
  });
});
