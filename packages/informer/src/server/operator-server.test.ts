import { expect } from 'chai';
import { ResourceID, UpdateControl, type KubernetesObject, type Reconciler } from '@kindex/core';
import { CoreV1Api } from '@kubernetes/client-node';
import { createNamespace, eventually, requireFault } from '@kindex/testing';
import { metricValue } from '@kindex/testing/internal';
import {
  InformerEventSource,
  Kinds,
  KubeClient,
  Operator,
  type Controller,
  type KubeEventSourceContext,
  type PrimaryDescription,
} from '../index.js';
import { type ControllerDebugView } from '../internal.js';
import { controllerInternals } from '../controller/controller-internals.js';
import { useOperatorSuite } from '../testing-fixtures/operator-suite.js';
import { WIDGET_CRD, WidgetKind, type Widget } from '../testing-fixtures/widget.js';

interface ConfigMap extends KubernetesObject {
  data?: Record<string, string>;
}
const ConfigMapKind = Kinds.ConfigMap as unknown as import('../index.js').ResourceKind<ConfigMap>;

const widget = (name: string, namespace: string, config?: string): Widget => ({
  apiVersion: 'test.kindex.dev/v1',
  kind: 'Widget',
  metadata: { name, namespace },
  spec: { size: 1, ...(config ? { config } : {}) },
});

/** Widgets that copy `data.value` of the ConfigMap their `spec.config` names into their status. */
class WidgetReconciler implements Reconciler<Widget, KubeClient> {
  fail = false;
  /** Names of the widgets reconciled, one per call. */
  readonly reconciled: string[] = [];
  prepareEventSources(context: KubeEventSourceContext<Widget>) {
    return [
      InformerEventSource.from(ConfigMapKind, WidgetKind)
        .withName('configs')
        .withNamespacesInheritedFromController()
        .withSecondaryToPrimaryMapper((cm) =>
          cm.metadata?.labels?.['widget'] ? [ResourceID.of(cm.metadata.labels['widget'], cm.metadata.namespace)] : [],
        )
        .build(context),
    ];
  }
  reconcile(w: Widget, context: import('@kindex/core').Context<Widget, KubeClient>) {
    this.reconciled.push(w.metadata?.name ?? '');
    if (this.fail) throw new Error('reconcile refused');
    const cm = context.getSecondaryResource(ConfigMapKind);
    return UpdateControl.patchStatus<Widget>({ ...w, status: { seen: 1, value: cm?.data?.['value'] ?? '' } });
  }
}

describe('OperatorServer', function () {
  this.timeout(60_000);
  const suite = useOperatorSuite({ crd: WIDGET_CRD });

  function newOperator(namespace: string, serverOptions: Record<string, unknown> = {}, reconciler = new WidgetReconciler()) {
    suite.operator = new Operator({
      kubeConfig: suite.server.kubeConfig,
      server: { port: 0, host: '127.0.0.1', debug: true, ...serverOptions },
    });
    const controller = suite.operator.register<Widget>(reconciler, {
      kind: WidgetKind,
      name: 'widgets',
      namespaces: [namespace],
      reflector: { backoff: { initialMs: 20, maxMs: 100 } },
    }) as unknown as Controller;
    return { operator: suite.operator, controller, reconciler };
  }

  async function get(path: string): Promise<{ status: number; body: string }> {
    const address = suite.operator!.server!.address!;
    const response = await fetch(`http://127.0.0.1:${address.port}${path}`);
    return { status: response.status, body: await response.text() };
  }

  const scrape = async (): Promise<string> => (await get('/metrics')).body;

  it('serves controller-runtime reconcile and workqueue series that move as reconciles happen', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const { reconciler } = newOperator(ns);
    await suite.operator!.start();
    const before = await scrape();
    expect(metricValue(before, 'controller_runtime_reconcile_total', { controller: 'widgets', result: 'success' })).to.equal(0);
    expect(metricValue(before, 'controller_runtime_reconcile_total', { controller: 'widgets', result: 'error' })).to.equal(0);
    expect(metricValue(before, 'controller_runtime_max_concurrent_reconciles', { controller: 'widgets' })).to.equal(10);
    expect(metricValue(before, 'workqueue_adds_total', { name: 'widgets', controller: 'widgets' })).to.equal(0);

    await suite.client.create(WidgetKind, widget('a', ns));
    await suite.client.create(WidgetKind, widget('b', ns));
    await eventually(async () =>
      expect(
        metricValue(await scrape(), 'controller_runtime_reconcile_total', { controller: 'widgets', result: 'success' }),
      ).to.be.at.least(2),
    );
    const after = await scrape();
    expect(metricValue(after, 'workqueue_adds_total', { name: 'widgets' })).to.be.at.least(2);
    expect(metricValue(after, 'workqueue_work_duration_seconds_count', { name: 'widgets' })).to.be.at.least(2);
    expect(metricValue(after, 'workqueue_queue_duration_seconds_count', { name: 'widgets' })).to.be.at.least(2);
    expect(metricValue(after, 'controller_runtime_reconcile_time_seconds_count', { controller: 'widgets' })).to.be.at.least(2);
    expect(metricValue(after, 'workqueue_depth', { name: 'widgets' })).to.be.a('number');
    expect(metricValue(after, 'workqueue_longest_running_processor_seconds', { name: 'widgets' })).to.be.a('number');
    expect(metricValue(after, 'workqueue_unfinished_work_seconds', { name: 'widgets' })).to.be.a('number');
    expect(metricValue(after, 'controller_runtime_active_workers', { controller: 'widgets' })).to.be.a('number');
    expect(metricValue(after, 'kindex_informer_objects', { resource: 'widgets.test.kindex.dev', namespace: ns })).to.equal(2);
    expect(
      metricValue(after, 'kindex_informer_events_total', { resource: 'widgets.test.kindex.dev', namespace: ns, type: 'added' }),
    ).to.equal(2);
    expect(metricValue(after, 'kindex_informer_lists_total', { resource: 'widgets.test.kindex.dev', namespace: ns })).to.equal(1);
    expect(metricValue(after, 'kindex_informer_synced', { resource: 'configmaps', namespace: ns })).to.equal(1);

    // A failing reconcile counts as an error and schedules a retry.
    reconciler.fail = true;
    await suite.client.create(WidgetKind, widget('c', ns));
    await eventually(async () => {
      const text = await scrape();
      expect(metricValue(text, 'controller_runtime_reconcile_errors_total', { controller: 'widgets' })).to.be.at.least(1);
      expect(metricValue(text, 'controller_runtime_reconcile_total', { controller: 'widgets', result: 'error' })).to.be.at.least(1);
      expect(metricValue(text, 'workqueue_retries_total', { name: 'widgets' })).to.be.at.least(1);
    });
  });

  it('counts reconciler calls only: dispatches that call none (primary not cached, shard not owned) count as skipped, by reason', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const { controller, reconciler } = newOperator(ns);
    // What sharding's guard does for a primary of a shard another replica owns.
    controllerInternals<KubernetesObject>(controller).setDispatchGuard((w) => w.metadata?.name !== 'foreign');
    await suite.operator!.start();
    const skipped = (text: string, reason: string) =>
      metricValue(text, 'kindex_reconcile_skipped_total', { controller: 'widgets', reason });
    const before = await scrape();
    for (const reason of ['not-cached', 'not-owned', 'hidden', 'deleting']) expect(skipped(before, reason), reason).to.equal(0);
    await suite.client.create(WidgetKind, widget('mine', ns));
    await suite.client.create(WidgetKind, widget('foreign', ns));
    // A secondary naming a widget that does not exist.
    await suite.client.create(ConfigMapKind, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: ns, labels: { widget: 'ghost' } },
    });
    await eventually(async () => {
      const text = await scrape();
      expect(skipped(text, 'not-cached')).to.be.at.least(1);
      expect(skipped(text, 'not-owned')).to.be.at.least(1);
      expect(reconciler.reconciled).to.include('mine');
      // Every success is a reconciler call, and every call is timed.
      expect(metricValue(text, 'controller_runtime_reconcile_total', { controller: 'widgets', result: 'success' })).to.equal(
        reconciler.reconciled.length,
      );
      expect(metricValue(text, 'controller_runtime_reconcile_time_seconds_count', { controller: 'widgets' })).to.equal(
        reconciler.reconciled.length,
      );
    });
    expect(reconciler.reconciled).to.not.include('foreign').and.to.not.include('ghost');
  });

  it('counts the relist after a 410 Gone and the watch restarts in the informer series', async function () {
    const expireHistory = requireFault(this, suite.server, 'expireHistory');
    const breakWatches = suite.server.faults.closeWatches?.bind(suite.server.faults) ?? requireFault(this, suite.server, 'restart');
    const ns = await createNamespace(suite.server.kubeConfig);
    newOperator(ns);
    await suite.operator!.start();
    await suite.client.create(WidgetKind, widget('a', ns));
    const labels = { resource: 'widgets.test.kindex.dev', namespace: ns };
    await eventually(async () =>
      expect(metricValue(await scrape(), 'controller_runtime_reconcile_total', { controller: 'widgets', result: 'success' })).to.equal(1),
    );
    expect(metricValue(await scrape(), 'kindex_informer_relists_total', labels)).to.equal(0);
    // A write elsewhere moves the server past the informer's resourceVersion; forgetting the
    // history then makes its next watch answer 410 Gone.
    const other = await createNamespace(suite.server.kubeConfig);
    await suite.client.create(WidgetKind, widget('elsewhere', other));
    await expireHistory();
    await breakWatches();
    await eventually(
      async () => {
        const text = await scrape();
        expect(metricValue(text, 'kindex_informer_relists_total', labels)).to.be.at.least(1);
        expect(metricValue(text, 'kindex_informer_lists_total', labels)).to.be.at.least(2);
        expect(metricValue(text, 'kindex_informer_watch_restarts_total', labels)).to.be.at.least(1);
        expect(metricValue(text, 'kindex_informer_objects', labels)).to.equal(1);
      },
      { timeoutMs: 60_000 },
    );
  });

  it('exports the leader election status the elector sets', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    newOperator(ns);
    await suite.operator!.start();
    expect(metricValue(await scrape(), 'leader_election_master_status')).to.equal(undefined);
    suite.operator!.metrics.setLeaderElectionStatus('widgets-lock', true);
    expect(metricValue(await scrape(), 'leader_election_master_status', { name: 'widgets-lock' })).to.equal(1);
    suite.operator!.metrics.setLeaderElectionStatus('widgets-lock', false);
    expect(metricValue(await scrape(), 'leader_election_master_status', { name: 'widgets-lock' })).to.equal(0);
  });

  it('keeps the series of two operators in one process apart', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    newOperator(ns);
    const other = new Operator({ kubeConfig: suite.server.kubeConfig });
    other.register<Widget>(new WidgetReconciler(), { kind: WidgetKind, name: 'widgets', namespaces: [ns] });
    expect(other.metrics.registry).to.not.equal(suite.operator!.metrics.registry);
    expect(
      metricValue(await other.metrics.scrape(), 'controller_runtime_reconcile_total', { controller: 'widgets', result: 'success' }),
    ).to.equal(0);
  });

  it('answers /readyz 500 while caches sync and 200 once they have, /healthz 200 throughout', async function () {
    const setLatency = requireFault(this, suite.server, 'setLatency');
    const ns = await createNamespace(suite.server.kubeConfig);
    newOperator(ns);
    setLatency(400);
    const started = suite.operator!.start();
    await eventually(() => expect(suite.operator!.server!.address).to.not.equal(undefined));
    const syncing = await get('/readyz');
    expect(syncing.status).to.equal(500);
    expect(syncing.body).to.contain('[-]controllers failed: caches syncing');
    expect((await get('/healthz')).status).to.equal(200);
    setLatency(0);
    await started;
    expect(await get('/readyz')).to.deep.equal({ status: 200, body: 'ok' });
    const verbose = await get('/readyz?verbose');
    expect(verbose.body).to.equal('[+]controllers ok\nreadyz check passed\n');
    expect(await get('/healthz/ping')).to.deep.equal({ status: 200, body: 'ok' });
  });

  it('runs readiness checks added by others, and skips excluded ones', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    newOperator(ns);
    let leading = false;
    suite.operator!.health.addReadyzCheck('leader-election', () => {
      if (!leading) throw new Error('neither holding the lease nor a synced follower');
    });
    await suite.operator!.start();
    const notLeading = await get('/readyz');
    expect(notLeading.status).to.equal(500);
    expect(notLeading.body).to.equal(
      '[+]controllers ok\n[-]leader-election failed: neither holding the lease nor a synced follower\nreadyz check failed\n',
    );
    expect((await get('/readyz?exclude=leader-election')).status).to.equal(200);
    leading = true;
    expect((await get('/readyz')).status).to.equal(200);
    expect(() => suite.operator!.health.addReadyzCheck('leader-election', () => {})).to.throw(/registered already/);
  });

  it('fails /healthz once a source stays broken past the threshold, and recovers with it', async function () {
    const failNextRequests = requireFault(this, suite.server, 'failNextRequests');
    const closeWatches = requireFault(this, suite.server, 'closeWatches');
    const ns = await createNamespace(suite.server.kubeConfig);
    newOperator(ns, { unhealthyAfterMs: 300 });
    await suite.operator!.start();
    expect((await get('/healthz')).status).to.equal(200);
    // Every request fails from now on: the reflectors lose their watches and cannot reopen them.
    // (The probes below go to the operator's own server, not the API server.)
    failNextRequests(1_000_000, { status: 503 });
    await closeWatches();
    await eventually(
      async () => {
        const health = await get('/healthz');
        expect(health.status).to.equal(500);
        expect(health.body).to.match(
          /\[-\]informers failed: informer (widgets\.test\.kindex\.dev|configmaps) in namespace .* broken for \d+s \(limit 0\.3s\)/,
        );
      },
      { timeoutMs: 10_000 },
    );
    expect((await get('/readyz')).status, 'still synced: readiness is about caches, not liveness').to.equal(200);
    failNextRequests(0, { status: 503 });
    await eventually(async () => expect(await get('/healthz')).to.deep.equal({ status: 200, body: 'ok' }), { timeoutMs: 10_000 });
  });

  it('shows per controller the cache and index sizes, the queue and why a primary was last reconciled', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    newOperator(ns);
    await suite.operator!.start();
    await suite.client.create(WidgetKind, widget('w', ns, 'settings'));
    await eventually(async () => expect((await suite.client.get<Widget>(WidgetKind, ResourceID.of('w', ns)))?.status?.seen).to.equal(1));
    const core = suite.server.kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespacedConfigMap({
      namespace: ns,
      body: { metadata: { name: 'settings', namespace: ns, labels: { widget: 'w' } }, data: { value: 'v1' } },
    });
    await eventually(async () =>
      expect((await suite.client.get<Widget>(WidgetKind, ResourceID.of('w', ns)))?.status?.value).to.equal('v1'),
    );

    const all = JSON.parse((await get('/debug/controllers')).body) as { controllers: ControllerDebugView[] };
    expect(all.controllers.map((c) => c.name)).to.deep.equal(['widgets']);
    const view = JSON.parse((await get('/debug/controllers/widgets')).body) as ControllerDebugView;
    expect(view.kind).to.equal('test.kindex.dev/v1/Widget');
    expect(view.primaryCache).to.deep.equal({ objects: 1, synced: true, indexes: {} });
    expect(view.queue).to.have.keys('queued', 'processing', 'delayed');
    expect(view.eventSources).to.deep.equal([
      {
        name: 'configs',
        type: 'v1/ConfigMap',
        status: 'healthy',
        cache: { objects: 1, synced: true, indexes: {} },
        reverseIndex: { primaries: 1, secondaries: 1 },
      },
    ]);

    const primary = JSON.parse((await get(`/debug/controllers/widgets/primaries/${ns}/w`)).body) as PrimaryDescription;
    expect(primary.key).to.equal(`${ns}/w`);
    expect(primary.cached).to.equal(true);
    await eventually(async () => {
      const last = (JSON.parse((await get(`/debug/controllers/widgets/primaries/${ns}/w`)).body) as PrimaryDescription).lastReconcile;
      expect(last?.result).to.equal('success');
      const fromConfig = last?.causes.causes.find((c) => c.source === 'configs');
      expect(fromConfig).to.include({ type: 'resource', event: 'create', objectKey: `${ns}/settings` });
    });

    expect((await get('/debug/controllers/nope')).status).to.equal(404);
    expect((await get('/nope')).status).to.equal(404);
  });

  it('keeps the debug endpoint off unless enabled', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    newOperator(ns, { debug: false });
    await suite.operator!.start();
    const off = await get('/debug/controllers');
    expect(off.status).to.equal(404);
    expect(off.body).to.contain('server.debug');
  });

  it('rejects a bad port with the option named, and reports a port in use', async () => {
    expect(() => new Operator({ kubeConfig: suite.server.kubeConfig, server: { port: -1 } })).to.throw(TypeError, /server\.port/);
    expect(() => new Operator({ kubeConfig: suite.server.kubeConfig, server: { port: 0, unhealthyAfterMs: -5 } })).to.throw(
      TypeError,
      /server\.unhealthyAfterMs must be a number of milliseconds >= 0, got -5/,
    );
    const ns = await createNamespace(suite.server.kubeConfig);
    newOperator(ns);
    await suite.operator!.start();
    const taken = new Operator({
      kubeConfig: suite.server.kubeConfig,
      server: { port: suite.operator!.server!.address!.port, host: '127.0.0.1' },
    });
    try {
      await taken.start();
      expect.fail('start should fail');
    } catch (error) {
      expect((error as Error).name).to.equal('OperatorServerError');
      expect((error as Error).message).to.match(/cannot listen on 127\.0\.0\.1:\d+ .*choose another server\.port/);
    } finally {
      await taken.stop();
    }
  });
});
