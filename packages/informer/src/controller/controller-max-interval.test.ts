import { expect } from 'chai';
import { UpdateControl, type KubernetesObject } from '@kindex/core';
import { createNamespace, eventually } from '@kindex/testing';
import { Controller, Kinds, type ControllerOptions } from '../index.js';
import { useOperatorSuite } from '../testing-fixtures/operator-suite.js';

const PRIMARIES = 20;
/** Short, so the safety net fires within the test: steps of interval / 64 = 20 ms. */
const INTERVAL = 1_280;

/**
 * The max-reconciliation-interval safety net end to end: a controller over real HTTP reconciles
 * each primary again once it has had no reconcile for the interval (never before), through the
 * sweep, with a bounded primary cache (stamps in its records, most primaries out of memory, each
 * read back with one GET) and with an unbounded one (stamps in the processor's map).
 */
describe('Controller maxReconciliationIntervalMs', function () {
  this.timeout(60_000);
  const suite = useOperatorSuite();
  let controller: Controller | undefined;
  afterEach(async () => {
    await controller?.stop({ drainTimeoutMs: 5_000 });
    controller = undefined;
  });

  for (const bounded of [false, true]) {
    it(`reconciles every idle primary again after the interval, never before (${bounded ? 'bounded' : 'unbounded'} cache)`, async () => {
      const ns = await createNamespace(suite.server.kubeConfig);
      const names = Array.from({ length: PRIMARIES }, (_, i) => `cm-${i}`);
      await Promise.all(names.map((name) => suite.client.create(Kinds.ConfigMap, { metadata: { name, namespace: ns }, data: { v: '1' } })));
      const starts = new Map<string, number[]>();
      const options: ControllerOptions<KubernetesObject> = {
        kind: Kinds.ConfigMap,
        namespaces: [ns],
        inspection: true,
        maxReconciliationIntervalMs: INTERVAL,
        ...(bounded ? { cacheBound: { maxObjects: 5 } } : {}),
      };
      controller = new Controller(
        {
          reconcile: (cm) => {
            const name = cm.metadata!.name!;
            starts.set(name, [...(starts.get(name) ?? []), Date.now()]);
            return UpdateControl.noUpdate();
          },
        },
        options,
        suite.client,
      );
      await controller.start();
      await eventually(() => expect(names.filter((n) => (starts.get(n)?.length ?? 0) < 2)).to.deep.equal([]), { timeoutMs: 20_000 });
      for (const name of names) {
        const [first, second] = starts.get(name)!;
        expect(second! - first!, name).to.be.at.least(INTERVAL);
        const described = controller.describePrimary(`${ns}/${name}`);
        const last = described.lastReconcile;
        // The next safety net, as computed from the stamp: an interval after the last reconcile.
        const dueIn = Date.parse(described.maxIntervalReconcileAt!) - Date.parse(last!.startedAt);
        expect(dueIn, name).to.be.within(INTERVAL, INTERVAL + 2 * (INTERVAL / 64) + 50);
        const sources = last?.causes.causes.map((c) => `${c.type}:${c.source}`) ?? [];
        // The latest reconcile of each primary is a sweep's (a third may have come meanwhile).
        expect(sources, name).to.include('reschedule:max-interval');
      }
      if (bounded) expect(controller.primaryCache.size).to.be.at.most(5);
    });
  }
});
