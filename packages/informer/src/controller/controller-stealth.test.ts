// ControllerOptions.stealthFilter (kopf's stealth mode for primaries) on the test API server.
import { expect } from 'chai';
import { DeleteControl, kopfFilter, PRESENT, ResourceID, UpdateControl, type Reconciler } from '@kindex/core';
import { createNamespace, eventually } from '@kindex/testing';
import { InformerEventSource, KubeClient, Kinds, Operator } from '../index.js';
import { useOperatorSuite } from '../testing-fixtures/operator-suite.js';
import { WIDGET_CRD, WidgetKind, type Widget } from '../testing-fixtures/widget.js';

const widget = (name: string, namespace: string, labels: Record<string, string> = {}): Widget => ({
  apiVersion: 'test.kindex.dev/v1',
  kind: 'Widget',
  metadata: { name, namespace, labels },
  spec: { size: 1 },
});

describe('Controller stealthFilter', function () {
  this.timeout(60_000);
  const suite = useOperatorSuite({ crd: WIDGET_CRD });

  /**
   * Runs a controller that sees only widgets labelled `managed`, with a ConfigMap source that
   * triggers the widget of the same name; returns the names reconciled and cleaned up, in order.
   */
  async function start(ns: string): Promise<{ reconciled: string[]; cleanedUp: string[] }> {
    const reconciled: string[] = [];
    const cleanedUp: string[] = [];
    const reconciler: Reconciler<Widget, KubeClient> = {
      reconcile: (w) => {
        reconciled.push(w.metadata!.name!);
        return UpdateControl.noUpdate();
      },
      cleanup: (w) => {
        cleanedUp.push(w.metadata!.name!);
        return DeleteControl.defaultDelete();
      },
      prepareEventSources: (context) => [
        InformerEventSource.from(Kinds.ConfigMap, WidgetKind)
          .withSecondaryToPrimaryMapper((cm) => [ResourceID.of(cm.metadata!.name!, cm.metadata!.namespace)])
          .build(context),
      ],
    };
    suite.operator = new Operator({ kubeConfig: suite.server.kubeConfig });
    suite.operator.register(reconciler, {
      kind: WidgetKind,
      namespaces: [ns],
      stealthFilter: kopfFilter<Widget>({ labels: { managed: PRESENT } }),
    });
    await suite.operator.start();
    return { reconciled, cleanedUp };
  }

  /** Reconciles a fresh visible widget and waits for it: what was queued before has run. */
  async function marker(ns: string, reconciled: string[], name: string): Promise<void> {
    await suite.client.create(WidgetKind, widget(name, ns, { managed: 'yes' }));
    await eventually(() => expect(reconciled).to.include(name));
  }

  it('never reconciles an invisible primary, whatever triggers it, and reconciles it once it starts to match', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const { reconciled } = await start(ns);
    await suite.client.create(WidgetKind, widget('hidden', ns));
    await suite.client.create(Kinds.ConfigMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'hidden', namespace: ns } });
    await marker(ns, reconciled, 'marker-1');
    expect(reconciled).to.not.include('hidden');

    // A label change leaves the generation alone: without stealth the generation-aware
    // controller would skip it; stealth turns it into a create.
    await suite.client.patch(WidgetKind, ResourceID.of('hidden', ns), { metadata: { labels: { managed: 'yes' } } });
    await eventually(() => expect(reconciled.filter((n) => n === 'hidden')).to.have.length(1));

    // Out of sight again: its pending work is dropped and triggers reach it no more.
    await suite.client.patch(WidgetKind, ResourceID.of('hidden', ns), { metadata: { labels: { managed: null } } });
    await suite.client.patch(Kinds.ConfigMap, ResourceID.of('hidden', ns), { data: { poke: '1' } });
    await suite.client.patch(WidgetKind, ResourceID.of('hidden', ns), { spec: { size: 2 } });
    await marker(ns, reconciled, 'marker-2');
    expect(reconciled.filter((n) => n === 'hidden')).to.have.length(1);
  });

  it('still cleans up an invisible primary that carries its finalizer, so its deletion completes', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const { reconciled, cleanedUp } = await start(ns);
    await suite.client.create(WidgetKind, widget('w', ns, { managed: 'yes' }));
    await eventually(async () =>
      expect((await suite.client.get<Widget>(WidgetKind, ResourceID.of('w', ns)))?.metadata?.finalizers).to.have.length(1),
    );
    await suite.client.patch(WidgetKind, ResourceID.of('w', ns), { metadata: { labels: { managed: null } } });
    await marker(ns, reconciled, 'marker');
    await suite.client.delete(WidgetKind, ResourceID.of('w', ns));
    await eventually(async () => expect(await suite.client.get(WidgetKind, ResourceID.of('w', ns))).to.equal(undefined));
    expect(cleanedUp).to.deep.equal(['w']);
  });
});
