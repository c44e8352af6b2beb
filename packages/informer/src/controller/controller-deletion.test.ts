import { expect } from 'chai';
import { DeleteControl, ResourceID, UpdateControl, type KubernetesObject, type Reconciler } from '@kindex/core';
import { createNamespace, eventually, requireFault } from '@kindex/testing';
import { Controller, KubeClient, type ControllerEvent, type PatchType, type ResourceType } from '../index.js';
import { useOperatorSuite } from '../testing-fixtures/operator-suite.js';
import { WIDGET_CRD, WidgetKind, type Widget } from '../testing-fixtures/widget.js';

// Cleanup exactly once per deletion, whichever of the DELETED watch event and the response to
// the finalizer-removal write reaches the controller first.

const FINALIZER = 'test.kindex.dev/cleanup';

/** A client that can hold back the response of the controller's finalizer-removal patch. */
class HoldingClient extends KubeClient {
  beforeFinalizerRemovalResponse: (() => Promise<void>) | undefined;

  override async patch<R extends KubernetesObject>(
    type: ResourceType,
    id: ResourceID,
    patch: unknown,
    options: { subresource?: 'status'; patchType?: PatchType } = {},
  ): Promise<R> {
    const written = await super.patch<R>(type, id, patch, options);
    const removesFinalizer =
      Array.isArray(patch) &&
      patch.some((op: { op?: string; path?: string }) => op.op === 'remove' && op.path?.startsWith('/metadata/finalizers/'));
    if (removesFinalizer) await this.beforeFinalizerRemovalResponse?.();
    return written;
  }
}

describe('Controller deletion', function () {
  this.timeout(60_000);
  const suite = useOperatorSuite({
    crd: WIDGET_CRD,
    client: (kubeConfig) => new HoldingClient(kubeConfig),
  });
  let controller: Controller<Widget> | undefined;
  afterEach(async () => {
    suite.server.faults.resumeEvents?.();
    suite.client.beforeFinalizerRemovalResponse = undefined;
    await controller?.stop({ drainTimeoutMs: 5_000 });
    controller = undefined;
  });

  async function run(reconciler: Reconciler<Widget, KubeClient>, namespace: string) {
    controller = new Controller<Widget>(reconciler, { kind: WidgetKind, namespaces: [namespace], finalizerName: FINALIZER }, suite.client);
    const events: ControllerEvent[] = [];
    controller.events$.subscribe((e) => events.push(e));
    await controller.start();
    return { controller, events };
  }

  /** Creates a widget, waits for the finalizer, deletes it. */
  async function createAndDelete(name: string, ns: string): Promise<void> {
    await suite.client.create(WidgetKind, {
      apiVersion: 'test.kindex.dev/v1',
      kind: 'Widget',
      metadata: { name, namespace: ns },
      spec: { size: 1 },
    });
    await eventually(async () =>
      expect((await suite.client.get<Widget>(WidgetKind, ResourceID.of(name, ns)))?.metadata?.finalizers).to.deep.equal([FINALIZER]),
    );
    await suite.client.delete(WidgetKind, ResourceID.of(name, ns));
  }

  /** Waits until the primary is gone from the server and the cache, and the controller is idle. */
  async function settled(name: string, ns: string, c: Controller<Widget>): Promise<void> {
    await eventually(async () => expect(await suite.client.get(WidgetKind, ResourceID.of(name, ns))).to.equal(undefined));
    await eventually(() => expect(c.primaryCache.peekKey(`${ns}/${name}`)).to.equal(undefined));
    // Room for a second cleanup to show up if the DELETED event were misread.
    await new Promise((r) => setTimeout(r, 500));
  }

  const cleanupRecorder = (cleanups: { name: string; unknown: boolean }[]): Reconciler<Widget, KubeClient> => ({
    reconcile: () => UpdateControl.noUpdate(),
    cleanup: (w, context) => {
      cleanups.push({ name: w.metadata!.name!, unknown: context.isPrimaryFinalStateUnknown() });
      return DeleteControl.defaultDelete();
    },
  });

  it('runs cleanup once on a normal deletion', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const cleanups: { name: string; unknown: boolean }[] = [];
    const { controller: c, events } = await run(cleanupRecorder(cleanups), ns);
    await createAndDelete('plain', ns);
    await settled('plain', ns, c);
    expect(cleanups).to.deep.equal([{ name: 'plain', unknown: false }]);
    expect(events.filter((e) => e.type === 'reconciled' && e.control === 'cleanupAfterDeletion')).to.deep.equal([]);
    expect(c.getPrimary(ResourceID.of('plain', ns))).to.equal(undefined);
  });

  it('runs cleanup once when the DELETED event arrives before the finalizer-removal response', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const cleanups: { name: string; unknown: boolean }[] = [];
    const { controller: c } = await run(cleanupRecorder(cleanups), ns);
    let held = false;
    // The removal write has landed; its response waits until the cache has seen the DELETED event.
    suite.client.beforeFinalizerRemovalResponse = async () => {
      await eventually(() => expect(c.primaryCache.peekKey(`${ns}/first`)).to.equal(undefined), { timeoutMs: 20_000 });
      held = true;
    };
    await createAndDelete('first', ns);
    await settled('first', ns, c);
    expect(held).to.equal(true);
    expect(cleanups).to.deep.equal([{ name: 'first', unknown: false }]);
    expect(c.getPrimary(ResourceID.of('first', ns))).to.equal(undefined);
  });

  it('runs cleanup once when the finalizer-removal response arrives before the DELETED event', async function () {
    // Only a server that can hold watch events back can force this order every time.
    requireFault(this, suite.server, 'pauseEvents');
    const ns = await createNamespace(suite.server.kubeConfig);
    const cleanups: { name: string; unknown: boolean }[] = [];
    const recorder = cleanupRecorder(cleanups);
    const { controller: c, events } = await run(
      {
        ...recorder,
        // Hold the watch back before the removal write, so the DELETED event waits for its response.
        cleanup: (w, context) => {
          suite.server.faults.pauseEvents!();
          return recorder.cleanup!(w, context);
        },
      },
      ns,
    );
    let responded = false;
    suite.client.beforeFinalizerRemovalResponse = async () => {
      responded = true;
    };
    await createAndDelete('second', ns);
    await eventually(() => expect(events.some((e) => e.type === 'reconciled' && e.control === 'defaultDelete')).to.equal(true));
    expect(responded).to.equal(true);
    expect(c.primaryCache.peekKey(`${ns}/second`)).to.not.equal(undefined); // the DELETED event is still held
    suite.server.faults.resumeEvents!();
    await settled('second', ns, c);
    expect(cleanups).to.deep.equal([{ name: 'second', unknown: false }]);
    expect(c.getPrimary(ResourceID.of('second', ns))).to.equal(undefined);
  });
});
