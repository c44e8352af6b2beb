// UpdateControl writes through server-side apply (`primaryWrites: 'apply'`), end to end against
// an API server: what the controller owns, what it leaves to other writers, and no write when
// the status it would apply is already there.
import { expect } from 'chai';
import { ResourceID, UpdateControl, type KubernetesObject } from '@kindex/core';
import { createNamespace, eventually } from '@kindex/testing';
import { KubeClient, Operator, resourceKind, type ControllerEvent } from '../index.js';
import { useOperatorSuite } from '../testing-fixtures/operator-suite.js';

interface Gadget extends KubernetesObject {
  spec?: { size?: number };
  status?: { seen?: number; note?: string };
}
const GadgetKind = resourceKind<Gadget>({ group: 'ssa.kindex.dev', version: 'v1', kind: 'Gadget', plural: 'gadgets', namespaced: true });

describe('Controller with primaryWrites: apply', function () {
  this.timeout(60_000);
  const suite = useOperatorSuite({
    crd: { group: 'ssa.kindex.dev', kind: 'Gadget' },
    client: (kubeConfig) => new KubeClient(kubeConfig, { fieldManager: 'someone-else' }),
  });

  it("applies status as its field manager, leaves other writers' status fields, and skips a status already applied", async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    suite.operator = new Operator({ kubeConfig: suite.server.kubeConfig });
    let calls = 0;
    // Returns only its own status field: a JSON-patch diff would delete `note`, an apply leaves it.
    const controller = suite.operator.register<Gadget>(
      {
        reconcile: (g) => {
          calls++;
          return UpdateControl.patchStatus<Gadget>({ ...g, status: { seen: g.spec?.size ?? 0 } });
        },
      },
      { kind: GadgetKind, namespaces: [ns], primaryWrites: 'apply', generationAware: false },
    );
    const events: ControllerEvent[] = [];
    controller.events$.subscribe((e) => events.push(e));
    await suite.operator.start();
    const id = ResourceID.of('g1', ns);
    await suite.client.create(GadgetKind, {
      apiVersion: 'ssa.kindex.dev/v1',
      kind: 'Gadget',
      metadata: { name: 'g1', namespace: ns },
      spec: { size: 2 },
    });
    await eventually(async () => expect((await suite.client.get<Gadget>(GadgetKind, id))?.status?.seen).to.equal(2));
    const afterFirst = await suite.client.get<Gadget>(GadgetKind, id);
    const entries = (afterFirst!.metadata!.managedFields as Array<{ manager: string; operation: string; subresource?: string }>).map(
      (e) => [e.manager, e.operation, e.subresource],
    );
    expect(entries).to.deep.include(['kindex', 'Apply', 'status']);

    // Another writer adds a status field; the next reconcile (triggered by that change) must keep it and write nothing.
    const writesBefore = events.filter((e) => e.type === 'reconciled' && e.wrote.includes('status')).length;
    const callsBefore = calls;
    await suite.client.patch(GadgetKind, id, { status: { note: 'from elsewhere' } }, { subresource: 'status' });
    await eventually(() => expect(calls).to.be.greaterThan(callsBefore));
    await new Promise((r) => setTimeout(r, 300));
    const live = await suite.client.get<Gadget>(GadgetKind, id);
    expect(live?.status).to.deep.equal({ seen: 2, note: 'from elsewhere' });
    expect(events.filter((e) => e.type === 'reconciled' && e.wrote.includes('status')).length).to.equal(writesBefore);

    // A spec change is applied and owned fields follow it.
    await suite.client.patch(GadgetKind, id, { spec: { size: 5 } });
    await eventually(async () =>
      expect((await suite.client.get<Gadget>(GadgetKind, id))?.status).to.deep.equal({ seen: 5, note: 'from elsewhere' }),
    );
  });
});
