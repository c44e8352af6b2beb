// An operator restarted over many primaries reconciles a primary changed
// during the initial wave before most unchanged ones under `queue: 'priority'`; under the
// default FIFO queue the change waits for its place in the list. Ordering only, no timing: the
// reconciler is slow (one worker, a few ms each) so the change lands while the wave runs.
import { expect } from 'chai';
import { ResourceID, UpdateControl, type KubernetesObject, type Reconciler } from '@kindex/core';
import { Kinds, KubeClient, Operator } from '@kindex/informer';
import { createNamespace, eventually, useTestApiServer } from '@kindex/testing';
import { inBatches } from './support/sample-fixture.js';

const PRIMARIES = 300;
/** Zero-padded so that the list (ordered by key) hands them out as cm-000 ... cm-299. */
const nameOf = (i: number): string => `cm-${String(i).padStart(3, '0')}`;
const LAST = nameOf(PRIMARIES - 1);

/**
 * Records each reconcile's primary name, in order, and takes `delayMs` over each; the first
 * reconcile of `urgent` asks for a requeue at `urgentPriority`.
 */
class SlowRecorder implements Reconciler<KubernetesObject> {
  readonly order: string[] = [];
  constructor(
    private readonly delayMs: number,
    private readonly urgent?: string,
    private readonly urgentPriority?: number,
  ) {}
  async reconcile(primary: KubernetesObject): Promise<UpdateControl<KubernetesObject>> {
    const name = primary.metadata!.name!;
    this.order.push(name);
    await new Promise((r) => setTimeout(r, this.delayMs));
    if (name === this.urgent && this.order.filter((n) => n === name).length === 1) {
      return UpdateControl.noUpdate().rescheduleAfter(1, this.urgentPriority === undefined ? {} : { priority: this.urgentPriority });
    }
    return UpdateControl.noUpdate();
  }
}

describe("Controller queue: 'priority' against 'fifo' on a restart over 300 primaries", function () {
  this.timeout(240_000);
  const server = useTestApiServer();
  let operator: Operator | undefined;
  let namespace = '';
  let client: KubeClient;

  before(async function () {
    this.timeout(180_000);
    client = new KubeClient(server().kubeConfig);
    namespace = await createNamespace(server().kubeConfig);
    const indexes = Array.from({ length: PRIMARIES }, (_, i) => i);
    // One at a time: creation order, key order and so list order agree on both servers.
    await inBatches(
      indexes,
      (i) =>
        client.create(Kinds.ConfigMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: nameOf(i), namespace }, data: { v: '0' } }),
      1,
    );
  });

  afterEach(async () => {
    await operator?.stop({ drainTimeoutMs: 10_000 });
    operator = undefined;
  });

  after(async () => {
    await client?.registry?.stopAll();
  });

  /**
   * Starts an operator over the existing primaries (a restart: every one arrives from the
   * initial list), changes the last-listed primary once a few reconciles of the wave ran, and
   * returns the order of the first reconciles until every primary was reconciled.
   */
  async function restartAndChangeLast(queue: 'fifo' | 'priority', value: string): Promise<string[]> {
    const reconciler = new SlowRecorder(10);
    operator = new Operator({ kubeConfig: server().kubeConfig });
    operator.register(reconciler, {
      kind: Kinds.ConfigMap,
      name: `cms-${queue}`,
      namespaces: [namespace],
      queue,
      concurrency: 1,
      generationAware: false,
    });
    await operator.start();
    await eventually(() => expect(reconciler.order.length).to.be.at.least(5), { timeoutMs: 60_000 });
    expect(reconciler.order, 'the change must land during the initial wave').to.not.include(LAST);
    await client.patch(Kinds.ConfigMap, ResourceID.of(LAST, namespace), { data: { v: value } });
    await eventually(() => expect(new Set(reconciler.order).size).to.equal(PRIMARIES), { timeoutMs: 120_000 });
    return reconciler.order;
  }

  it('reconciles the changed primary before most unchanged ones', async () => {
    const order = await restartAndChangeLast('priority', 'p');
    const position = order.indexOf(LAST);
    // Raised from the low priority of the list to normal, it jumps the rest of the wave: it runs
    // as soon as the watch event arrives, well before half of the unchanged primaries.
    expect(position, `position of ${LAST} among ${PRIMARIES}`).to.be.below(PRIMARIES / 2);
    // Exactly once: its list event and its change coalesced into one reconcile.
    expect(order.filter((n) => n === LAST)).to.have.length(1);
  });

  it('requeues a reschedule at the priority the reconcile asked for, else at the one it ran at', async () => {
    const first = nameOf(0);
    const run = async (priority: number | undefined): Promise<string[]> => {
      const reconciler = new SlowRecorder(5, first, priority);
      operator = new Operator({ kubeConfig: server().kubeConfig });
      operator.register(reconciler, {
        kind: Kinds.ConfigMap,
        name: `requeue-${String(priority)}`,
        namespaces: [namespace],
        queue: 'priority',
        concurrency: 1,
        generationAware: false,
      });
      await operator.start();
      await eventually(() => expect(new Set(reconciler.order).size).to.equal(PRIMARIES), { timeoutMs: 120_000 });
      await eventually(() => expect(reconciler.order.filter((n) => n === first)).to.have.length(2), { timeoutMs: 30_000 });
      await operator.stop({ drainTimeoutMs: 10_000 });
      operator = undefined;
      return reconciler.order;
    };
    // Asked at priority 0: above the rest of the wave (LOW_PRIORITY), so it runs right after its delay.
    const raised = await run(0);
    expect(raised.lastIndexOf(first), 'requeue at priority 0').to.be.below(PRIMARIES / 2);
    // No priority asked: it keeps the low priority of the list it came from, behind the wave.
    const kept = await run(undefined);
    expect(kept.lastIndexOf(first), 'requeue at the priority it ran at').to.equal(PRIMARIES);
  });

  it("leaves it at its place in the list with the default 'fifo' queue", async () => {
    const order = await restartAndChangeLast('fifo', 'f');
    expect(order.indexOf(LAST), `position of ${LAST} among ${PRIMARIES}`).to.equal(PRIMARIES - 1);
  });
});
