// context.getEventRecorder() end to end, on the test server of the run (embedded, or the real
// kube-apiserver with KINDEX_APISERVER=real): Events read back from the server, series folded,
// drops counted when the server refuses them, and the reconcile unaffected either way.
import { expect } from 'chai';
import { FakeClock, UnknownOptionError, UpdateControl, type Context, type EventRecord } from '@kindex/core';
import { Registry } from 'prom-client';
import { createNamespace, eventually, rawRequest, requireFault, uniqueName } from '@kindex/testing';
import { metricValue } from '@kindex/testing/internal';
import {
  EventBroadcaster,
  EventMetrics,
  EventRecordError,
  KubeClient,
  Operator,
  resourceKind,
  type EventRecorderOptions,
} from '../index.js';
import { useOperatorSuite } from '../testing-fixtures/operator-suite.js';
import type { Widget } from '../testing-fixtures/widget.js';

const WidgetKind = resourceKind<Widget>({ group: 'events.kindex.dev', version: 'v1', kind: 'Widget', plural: 'widgets', namespaced: true });
const CONTROLLER = 'widgets.events.kindex.dev';

type Json = Record<string, unknown>;

describe('EventBroadcaster (context.getEventRecorder)', function () {
  this.timeout(90_000);
  const suite = useOperatorSuite({ crd: { group: 'events.kindex.dev', kind: 'Widget', statusSubresource: true } });

  /** Runs an operator whose reconciler records `records` once per widget, then writes status.seen. */
  async function run(records: readonly EventRecord[], events: EventRecorderOptions): Promise<{ namespace: string; widget: Widget }> {
    const namespace = await createNamespace(suite.server.kubeConfig);
    const recorded = new Set<string>();
    suite.operator = new Operator({ kubeConfig: suite.server.kubeConfig, events: { reportingInstance: 'replica-0', ...events } });
    suite.operator.register(
      {
        reconcile: async (w: Widget, context: Context<Widget, KubeClient>) => {
          const uid = w.metadata!.uid!;
          if (!recorded.has(uid)) {
            recorded.add(uid);
            for (const r of records) context.getEventRecorder().record(r);
          }
          return UpdateControl.patchStatus<Widget>({ ...w, status: { seen: w.metadata?.generation ?? 0 } });
        },
      },
      { kind: WidgetKind, namespaces: [namespace] },
    );
    await suite.operator.start();
    const widget = await suite.client.create(WidgetKind, {
      apiVersion: 'events.kindex.dev/v1',
      kind: 'Widget',
      metadata: { name: uniqueName('w'), namespace },
      spec: { size: 1 },
    });
    return { namespace, widget };
  }

  async function eventsOf(namespace: string, group: 'events.k8s.io/v1' | 'v1' = 'events.k8s.io/v1'): Promise<Json[]> {
    const path = group === 'v1' ? `/api/v1/namespaces/${namespace}/events` : `/apis/events.k8s.io/v1/namespaces/${namespace}/events`;
    const response = await rawRequest(suite.server.kubeConfig, { path });
    return (JSON.parse(response.text) as { items: Json[] }).items;
  }

  async function seen(namespace: string, name: string): Promise<void> {
    await eventually(
      async () => expect((await suite.client.get<Widget>(WidgetKind, { name, namespace } as never))?.status?.seen).to.equal(1),
      {
        timeoutMs: 30_000,
      },
    );
  }

  const warning: EventRecord = { type: 'Warning', reason: 'SizeTooSmall', action: 'Reconcile', note: 'size 1 is below 3' };

  it('folds a Warning recorded 5 times into one Event whose series.count is 5 after the flush', async () => {
    const { namespace, widget } = await run([warning, warning, warning, warning, warning], { seriesFlushIntervalMs: 300 });
    const event = await eventually(
      async () => {
        const items = await eventsOf(namespace);
        expect(items).to.have.length(1);
        expect(items[0]!['series']).to.include({ count: 5 });
        return items[0]!;
      },
      { timeoutMs: 30_000 },
    );
    expect(event).to.include({
      reportingController: CONTROLLER,
      reportingInstance: 'replica-0',
      action: 'Reconcile',
      reason: 'SizeTooSmall',
      type: 'Warning',
      note: 'size 1 is below 3',
    });
    expect(event['regarding']).to.deep.equal({
      kind: 'Widget',
      namespace,
      name: widget.metadata!.name,
      uid: widget.metadata!.uid,
      apiVersion: 'events.kindex.dev/v1',
    });
    // MicroTime: six fractional digits, which the server accepted.
    expect(event['eventTime']).to.match(/\.\d{6}Z$/);
    expect((event['series'] as Json)['lastObservedTime']).to.match(/\.\d{6}Z$/);
    // The same object read as core/v1, as `kubectl describe` reads it.
    const [core] = await eventsOf(namespace, 'v1');
    expect(core).to.deep.include({ message: 'size 1 is below 3', reportingComponent: CONTROLLER, series: event['series'] });
    await seen(namespace, widget.metadata!.name!);
    const text = await suite.operator!.metrics.scrape();
    expect(metricValue(text, 'kindex_events_written_total', { controller: CONTROLLER, type: 'Warning' })).to.equal(5);
  });

  it('writes distinct reasons as distinct Events', async () => {
    const reasons = ['Created', 'Scaled', 'Exposed'];
    const { namespace } = await run(
      reasons.map((reason) => ({ type: 'Normal', reason, action: 'Reconcile' })),
      {},
    );
    const items = await eventually(
      async () => {
        const found = await eventsOf(namespace);
        expect(found).to.have.length(3);
        return found;
      },
      { timeoutMs: 30_000 },
    );
    expect(items.map((e) => e['reason']).sort()).to.deep.equal([...reasons].sort());
    for (const e of items) expect(e).to.not.have.property('series');
  });

  it('writes the repeats not yet flushed when the operator stops', async () => {
    const { namespace, widget } = await run([warning, warning, warning], { seriesFlushIntervalMs: 600_000 });
    await seen(namespace, widget.metadata!.name!);
    await suite.operator!.stop({ drainTimeoutMs: 5_000 });
    suite.operator = undefined;
    const items = await eventsOf(namespace);
    expect(items).to.have.length(1);
    expect(items[0]!['series']).to.include({ count: 3 });
  });

  it('drops and counts new Events past the per-object burst', async () => {
    const { namespace, widget } = await run(
      ['One', 'Two', 'Three', 'Four'].map((reason) => ({ type: 'Normal', reason, action: 'Reconcile' })),
      { burstPerObject: 2 },
    );
    await seen(namespace, widget.metadata!.name!);
    await eventually(async () => expect(await eventsOf(namespace)).to.have.length(2), { timeoutMs: 30_000 });
    const text = await suite.operator!.metrics.scrape();
    expect(metricValue(text, 'kindex_events_dropped_total', { controller: CONTROLLER, reason: 'rate_limited' })).to.equal(2);
  });

  it('keeps reconciling when the API server refuses every Event write, and counts the drops', async function () {
    const forbid = requireFault(this, suite.server, 'forbid');
    const allow = forbid({ group: 'events.k8s.io', resource: 'events' });
    try {
      const { namespace, widget } = await run(
        // The repeats fold into the Warning while its create is under way: all three are lost with it.
        [
          warning,
          warning,
          warning,
          { type: 'Normal', reason: 'Created', action: 'Reconcile' },
          { type: 'Normal', reason: 'Exposed', action: 'Reconcile' },
        ],
        {},
      );
      await seen(namespace, widget.metadata!.name!);
      await eventually(
        async () => {
          const text = await suite.operator!.metrics.scrape();
          expect(metricValue(text, 'kindex_events_dropped_total', { controller: CONTROLLER, reason: 'write_failed' })).to.equal(5);
        },
        { timeoutMs: 30_000 },
      );
      const text = await suite.operator!.metrics.scrape();
      expect(metricValue(text, 'controller_runtime_reconcile_errors_total', { controller: CONTROLLER }) ?? 0).to.equal(0);
      expect(metricValue(text, 'kindex_events_written_total', { controller: CONTROLLER }) ?? 0).to.equal(0);
      allow();
      expect(await eventsOf(namespace)).to.have.length(0);
    } finally {
      allow();
    }
  });

  it("signs Events with the replica's leader-election identity when no reportingInstance is given", async () => {
    const namespace = await createNamespace(suite.server.kubeConfig);
    suite.operator = new Operator({
      kubeConfig: suite.server.kubeConfig,
      leaderElection: {
        leaseName: uniqueName('lease'),
        leaseNamespace: namespace,
        identity: 'replica-b',
        leaseDurationMs: 3_000,
        renewDeadlineMs: 2_000,
        retryPeriodMs: 400,
      },
    });
    suite.operator.register(
      {
        reconcile: (w: Widget, context: Context<Widget, KubeClient>) => {
          context.getEventRecorder().record({ type: 'Normal', reason: 'Seen', action: 'Reconcile' });
          return UpdateControl.noUpdate<Widget>();
        },
      },
      { kind: WidgetKind, namespaces: [namespace] },
    );
    await suite.operator.start();
    await suite.client.create(WidgetKind, {
      apiVersion: 'events.kindex.dev/v1',
      kind: 'Widget',
      metadata: { name: uniqueName('w'), namespace },
    });
    const [event] = await eventually(
      async () => {
        const items = await eventsOf(namespace);
        expect(items).to.have.length(1);
        return items;
      },
      { timeoutMs: 30_000 },
    );
    expect(event).to.include({ reportingInstance: 'replica-b', reportingController: CONTROLLER });
  });

  /** A broadcaster used directly (flush() instead of the timer), and a widget its Events regard. */
  async function direct(options: EventRecorderOptions = {}) {
    const namespace = await createNamespace(suite.server.kubeConfig);
    const registry = new Registry();
    const broadcaster = new EventBroadcaster(suite.client, new EventMetrics(registry), {
      reportingInstance: 'replica-0',
      seriesFlushIntervalMs: 600_000,
      ...options,
    });
    const page: Widget = { metadata: { name: uniqueName('w'), namespace, uid: uniqueName('uid') } };
    const recorder = broadcaster.recorderFor(CONTROLLER, WidgetKind, page);
    const dropped = async (reason: string) =>
      metricValue(await registry.metrics(), 'kindex_events_dropped_total', { controller: CONTROLLER, reason }) ?? 0;
    return { namespace, broadcaster, recorder, dropped };
  }

  it('creates the Event again, series included, when a series patch finds it deleted (404)', async () => {
    const { namespace, broadcaster, recorder } = await direct();
    recorder.record(warning);
    await broadcaster.flush();
    const [first] = await eventsOf(namespace);
    const name = (first!['metadata'] as Json)['name'] as string;
    await suite.client.delete(resourceKind({ group: 'events.k8s.io', version: 'v1', kind: 'Event', plural: 'events', namespaced: true }), {
      name,
      namespace,
    } as never);
    recorder.record(warning);
    recorder.record(warning);
    await broadcaster.flush();
    const items = await eventsOf(namespace);
    expect(items).to.have.length(1);
    expect((items[0]!['metadata'] as Json)['name']).to.equal(name);
    expect(items[0]!['series']).to.include({ count: 3 });
    await broadcaster.stop();
  });

  it('starts a new Event when a repeat comes 6 minutes after the last one, and refills the rate limit with time', async () => {
    const clock = new FakeClock(Date.now());
    const { namespace, broadcaster, recorder, dropped } = await direct({ clock, burstPerObject: 1, refillIntervalMs: 300_000 });
    recorder.record(warning);
    recorder.record(warning); // folds into the first: no token needed
    await broadcaster.flush();
    await clock.advance(6 * 60_000);
    recorder.record(warning); // the series ended: a new Event, and its token came back after 5 minutes
    await broadcaster.flush();
    recorder.record({ ...warning, reason: 'Other' }); // no token left
    await broadcaster.flush();
    const items = await eventsOf(namespace);
    expect(items.map((e) => (e['series'] as Json | undefined)?.['count'] ?? 1).sort()).to.deep.equal([1, 2]);
    expect(await dropped('rate_limited')).to.equal(1);
    await broadcaster.stop();
  });

  it('drops and counts Events past the write queue, and records after stop', async () => {
    const { namespace, broadcaster, recorder, dropped } = await direct({ maxQueuedWrites: 1 });
    // The first create goes to the writer at once, the second waits in the queue, the third finds it full.
    for (const reason of ['One', 'Two', 'Three']) recorder.record({ type: 'Normal', reason, action: 'Reconcile' });
    await broadcaster.flush();
    expect(await eventsOf(namespace)).to.have.length(2);
    expect(await dropped('queue_full')).to.equal(1);
    await broadcaster.stop();
    recorder.record(warning);
    expect(await dropped('stopped')).to.equal(1);
  });

  it('throws EventRecordError naming the field for a record no retry could fix', () => {
    const broadcaster = new EventBroadcaster(suite.client, new EventMetrics(new Registry()), { reportingInstance: 'replica-0' });
    const recorder = broadcaster.recorderFor(CONTROLLER, WidgetKind, { metadata: { name: 'w', namespace: 'default' } });
    const bad: [Partial<EventRecord>, string][] = [
      [{ reason: '' }, 'reason'],
      [{ action: '' }, 'action'],
      [{ type: 'Info' as EventRecord['type'] }, 'type'],
      [{ reason: 'R'.repeat(129) }, 'reason'],
    ];
    for (const [change, field] of bad) {
      expect(() => recorder.record({ ...warning, ...change }))
        .to.throw(EventRecordError)
        .with.property('field', field);
    }
    const unnamed = broadcaster.recorderFor('Not a qualified name!', WidgetKind, { metadata: { name: 'w', namespace: 'default' } });
    expect(() => unnamed.record(warning)).to.throw(EventRecordError, /reportingController/);
    expect(() => new EventBroadcaster(suite.client, new EventMetrics(new Registry()), { flushMs: 10 } as EventRecorderOptions)).to.throw(
      UnknownOptionError,
      /flushMs/,
    );
    expect(() => new EventBroadcaster(suite.client, new EventMetrics(new Registry()), { seriesFlushIntervalMs: 0 })).to.throw(
      EventRecordError,
      /seriesFlushIntervalMs/,
    );
  });
});
