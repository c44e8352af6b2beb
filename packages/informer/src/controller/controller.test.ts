import { expect } from 'chai';
import {
  DeleteControl,
  ErrorStatusUpdateControl,
  GenericRetry,
  kopfFilter,
  ResourceID,
  UpdateControl,
  type Context,
  type Reconciler,
} from '@kindex/core';
import { createNamespace, eventually, requireFault, uniqueName } from '@kindex/testing';
import { KubeClient, Operator, type ControllerEvent } from '../index.js';
import { useOperatorSuite } from '../testing-fixtures/operator-suite.js';
import { controllerInternals } from './controller-internals.js';
import { WIDGET_CRD, WidgetKind, type Widget } from '../testing-fixtures/widget.js';

const widget = (name: string, namespace: string, size = 1): Widget => ({
  apiVersion: 'test.kindex.dev/v1',
  kind: 'Widget',
  metadata: { name, namespace },
  spec: { size },
});

describe('Controller', function () {
  this.timeout(60_000);
  const suite = useOperatorSuite({ crd: WIDGET_CRD });

  async function run<P extends Widget>(reconciler: Reconciler<P, KubeClient>, namespace: string, extra: Record<string, unknown> = {}) {
    suite.operator = new Operator({ kubeConfig: suite.server.kubeConfig });
    const controller = suite.operator.register<P>(reconciler, { kind: WidgetKind as never, namespaces: [namespace], ...extra });
    const events: ControllerEvent[] = [];
    controller.events$.subscribe((e) => events.push(e));
    await suite.operator.start();
    return { controller, events };
  }

  it('reconciles a new primary exactly once when it only patches status', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    let calls = 0;
    await run<Widget>(
      {
        reconcile: (w) => {
          calls++;
          return UpdateControl.patchStatus({ ...w, status: { seen: w.spec?.size ?? 0 } });
        },
      },
      ns,
    );
    await suite.client.create(WidgetKind, widget('w1', ns, 3));
    await eventually(async () => expect((await suite.client.get<Widget>(WidgetKind, ResourceID.of('w1', ns)))?.status?.seen).to.equal(3));
    await new Promise((r) => setTimeout(r, 500));
    expect(calls).to.equal(1);
  });

  it('releases the snapshots a reconcile reads, when it succeeds and when it throws', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const openDuring: number[] = [];
    let controllerRef: { primaryCache: { openSnapshots: number } } | undefined;
    const { controller } = await run<Widget>(
      {
        reconcile: (w, context) => {
          // The snapshot is taken when the reconcile first reads the primary cache.
          expect(context.getPrimaryCache().list(ns).length).to.be.greaterThan(0);
          openDuring.push(controllerRef!.primaryCache.openSnapshots);
          if ((w.spec?.size ?? 0) > 1) throw new Error('too big');
          return UpdateControl.noUpdate();
        },
      },
      ns,
      { retry: new GenericRetry({ maxAttempts: 2, initialIntervalMs: 10, intervalMultiplier: 1 }) },
    );
    controllerRef = controller;
    await suite.client.create(WidgetKind, widget('ok', ns, 1));
    await suite.client.create(WidgetKind, widget('bad', ns, 2));
    await eventually(() => expect(openDuring.length).to.be.greaterThanOrEqual(3));
    expect(Math.min(...openDuring)).to.be.greaterThan(0);
    await eventually(() => expect(controller.primaryCache.openSnapshots).to.equal(0));
  });

  it('whenIdle resolves when the last matching reconcile ends, at once when none runs', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started = false;
    const { controller } = await run<Widget>(
      {
        reconcile: async () => {
          started = true;
          await gate;
          return UpdateControl.noUpdate();
        },
      },
      ns,
    );
    await suite.client.create(WidgetKind, widget('slow', ns));
    await eventually(() => expect(started).to.equal(true));
    let idle = false;
    const internals = controllerInternals<Widget>(controller);
    const waiting = internals.whenIdle((w) => w.metadata?.name === 'slow').then(() => (idle = true));
    // Another primary's release does not wait for this one.
    await internals.whenIdle((w) => w.metadata?.name === 'other');
    await new Promise((r) => setTimeout(r, 100));
    expect(idle, 'resolved while the reconcile still runs').to.equal(false);
    release();
    await waiting;
    expect(idle).to.equal(true);
  });

  it('reconciles again on a spec change and reads its own status write before the watch shows it', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const seen: (number | undefined)[] = [];
    const { controller } = await run<Widget>(
      {
        reconcile: (w) => {
          seen.push(w.status?.count);
          const count = (w.status?.count ?? 0) + 1;
          const control = UpdateControl.patchStatus<Widget>({ ...w, status: { ...w.status, count } });
          return count < 3 ? control.rescheduleAfter(10) : control;
        },
      },
      ns,
    );
    await suite.client.create(WidgetKind, widget('w', ns));
    await eventually(() => expect(seen.length).to.be.greaterThan(0));
    // Hold the watch back: the follow-up reconciles can only know their own writes through
    // the read-after-write cache.
    suite.server.faults.pauseEvents?.();
    await eventually(() => expect(seen).to.have.length(3));
    expect(seen).to.deep.equal([undefined, 1, 2]);
    // The third write lands after the third reconcile returned.
    await eventually(() => expect(controller.getPrimary(ResourceID.of('w', ns))?.status?.count).to.equal(3));
  });

  it('adds its finalizer before the first reconcile and removes it when cleanup says so', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const cleaned: string[] = [];
    let allowRemoval = false;
    await run<Widget>(
      {
        reconcile: (w) => UpdateControl.patchStatus({ ...w, status: { seen: 1 } }),
        cleanup: (w) => {
          cleaned.push(w.metadata!.name!);
          return allowRemoval ? DeleteControl.defaultDelete() : DeleteControl.noFinalizerRemoval().rescheduleAfter(50);
        },
      },
      ns,
      { finalizerName: 'test.kindex.dev/cleanup' },
    );
    await suite.client.create(WidgetKind, widget('f', ns));
    await eventually(async () =>
      expect((await suite.client.get<Widget>(WidgetKind, ResourceID.of('f', ns)))?.metadata?.finalizers).to.deep.equal([
        'test.kindex.dev/cleanup',
      ]),
    );
    await suite.client.delete(WidgetKind, ResourceID.of('f', ns));
    await eventually(() => expect(cleaned.length).to.be.greaterThan(1));
    expect(await suite.client.get(WidgetKind, ResourceID.of('f', ns))).to.not.equal(undefined);
    allowRemoval = true;
    await eventually(async () => expect(await suite.client.get(WidgetKind, ResourceID.of('f', ns))).to.equal(undefined));
  });

  it('stops retrying after the configured attempts and records the error with updateErrorStatus', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    let attempts = 0;
    const errors: { error: string; attempt: number | undefined }[] = [];
    await run<Widget>(
      {
        reconcile: () => {
          attempts++;
          throw new Error('always broken');
        },
        updateErrorStatus: (w, context: Context<Widget, KubeClient>, error) => {
          errors.push({ error: String(error), attempt: context.getRetryInfo()?.attemptCount });
          return ErrorStatusUpdateControl.patchStatus({ ...w, status: { error: String(error), attempts } });
        },
      },
      ns,
      { retry: new GenericRetry({ maxAttempts: 2, initialIntervalMs: 10, intervalMultiplier: 1 }), maxReconciliationIntervalMs: undefined },
    );
    await suite.client.create(WidgetKind, widget('broken', ns));
    await eventually(async () =>
      expect((await suite.client.get<Widget>(WidgetKind, ResourceID.of('broken', ns)))?.status?.error).to.match(/always broken/),
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(attempts).to.equal(3); // the first attempt and two retries
    expect(errors).to.have.length(1);
  });

  it('keeps reconciling other primaries while one reconciler throws or hangs', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const done: string[] = [];
    await run<Widget>(
      {
        reconcile: async (w) => {
          const name = w.metadata!.name!;
          if (name === 'hangs') await new Promise(() => {});
          if (name === 'throws') throw new Error('nope');
          done.push(name);
          return UpdateControl.noUpdate();
        },
      },
      ns,
      { concurrency: 2, reconcileTimeoutMs: 200, retry: new GenericRetry({ maxAttempts: 1, initialIntervalMs: 10 }) },
    );
    await suite.client.create(WidgetKind, widget('hangs', ns));
    await suite.client.create(WidgetKind, widget('throws', ns));
    for (let i = 0; i < 5; i++) await suite.client.create(WidgetKind, widget(`ok-${i}`, ns));
    await eventually(() => expect(done.sort()).to.deep.equal(['ok-0', 'ok-1', 'ok-2', 'ok-3', 'ok-4']));
  });

  it('never reconciles one primary concurrently under a burst of spec changes, and ends on the last one', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    let running = 0;
    let maxRunning = 0;
    const sizes: number[] = [];
    await run<Widget>(
      {
        reconcile: async (w) => {
          running++;
          maxRunning = Math.max(maxRunning, running);
          // Slower than the patches arrive, on any server, so events must coalesce.
          await new Promise((r) => setTimeout(r, 50));
          sizes.push(w.spec?.size ?? -1);
          running--;
          return UpdateControl.noUpdate();
        },
      },
      ns,
      { concurrency: 4 },
    );
    const name = uniqueName('burst');
    await suite.client.create(WidgetKind, widget(name, ns, 0));
    const N = 200;
    for (let i = 1; i <= N; i++) await suite.client.patch(WidgetKind, ResourceID.of(name, ns), { spec: { size: i } });
    await eventually(() => expect(sizes[sizes.length - 1]).to.equal(N), { timeoutMs: 30_000 });
    expect(maxRunning).to.equal(1);
    expect(sizes.length).to.be.lessThan(N); // coalesced
  });

  it('reconciles only the primaries its event filters let through', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const reconciled: string[] = [];
    await run<Widget>(
      {
        reconcile: (w) => {
          reconciled.push(w.metadata!.name!);
          return UpdateControl.noUpdate();
        },
      },
      ns,
      { primaryEventFilters: [kopfFilter<Widget>({ labels: { team: 'a' } })] },
    );
    await suite.client.create(WidgetKind, { ...widget('team-a', ns), metadata: { name: 'team-a', namespace: ns, labels: { team: 'a' } } });
    await suite.client.create(WidgetKind, { ...widget('team-b', ns), metadata: { name: 'team-b', namespace: ns, labels: { team: 'b' } } });
    await eventually(() => expect(reconciled).to.include('team-a'));
    await new Promise((r) => setTimeout(r, 300));
    expect(reconciled).to.deep.equal(['team-a']);
  });

  it('runs cleanup once with the final state unknown when a primary vanishes while the watch was away', async function () {
    requireFault(this, suite.server, 'pauseEvents');
    requireFault(this, suite.server, 'expireHistory');
    requireFault(this, suite.server, 'closeWatches');
    const ns = await createNamespace(suite.server.kubeConfig);
    const cleanups: { name: string; unknown: boolean }[] = [];
    await run<Widget>(
      {
        reconcile: () => UpdateControl.noUpdate(),
        cleanup: (w, context) => {
          cleanups.push({ name: w.metadata!.name!, unknown: context.isPrimaryFinalStateUnknown() });
          return DeleteControl.defaultDelete();
        },
      },
      ns,
      { finalizerName: 'test.kindex.dev/cleanup' },
    );
    await suite.client.create(WidgetKind, widget('gone', ns));
    await eventually(async () =>
      expect((await suite.client.get<Widget>(WidgetKind, ResourceID.of('gone', ns)))?.metadata?.finalizers).to.have.length(1),
    );
    await new Promise((r) => setTimeout(r, 100));
    suite.server.faults.pauseEvents!();
    // Someone removes the finalizer by hand and deletes the primary while our watch hears nothing.
    await suite.client.patch(WidgetKind, ResourceID.of('gone', ns), [{ op: 'remove', path: '/metadata/finalizers' }], {
      patchType: 'json',
    });
    await suite.client.delete(WidgetKind, ResourceID.of('gone', ns));
    await suite.server.faults.expireHistory!();
    await suite.server.faults.closeWatches!();
    suite.server.faults.resumeEvents!();
    await eventually(() => expect(cleanups).to.deep.equal([{ name: 'gone', unknown: true }]), { timeoutMs: 20_000 });
  });
});
