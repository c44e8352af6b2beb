// Operator with leaderElection, several replicas in one process against the test server of the
// run (embedded, or real with KINDEX_APISERVER=real). The multi-process scenarios (SIGKILL,
// SIGSTOP) live in integration-tests/src/leader-election.test.ts.
import { expect } from 'chai';
import { ResourceID, UpdateControl, type KubernetesObject, type Reconciler } from '@kindex/core';
import { createNamespace, eventually, uniqueName } from '@kindex/testing';
import {
  KubeApiError,
  KubeClient,
  Kinds,
  LeaderElectionStartError,
  NotLeaderError,
  Operator,
  resourceKind,
  type ControllerEvent,
  type Lease,
  type OperatorLeaderElectionOptions,
  InformerRegistry,
} from '../index.js';
import { useOperatorSuite } from '../testing-fixtures/operator-suite.js';

interface Gadget extends KubernetesObject {
  spec?: { size?: number };
  status?: { seen?: number; by?: string };
}
const GadgetKind = resourceKind<Gadget>({ group: 'test.kindex.dev', version: 'v1', kind: 'Gadget', plural: 'gadgets', namespaced: true });
const gadget = (name: string, namespace: string, size = 1): Gadget => ({
  apiVersion: 'test.kindex.dev/v1',
  kind: 'Gadget',
  metadata: { name, namespace },
  spec: { size },
});

/** Short timings so failovers take seconds; the ratios are client-go's. */
const fast = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 400 } as const;

describe('Operator with leaderElection', function () {
  this.timeout(60_000);
  const suite = useOperatorSuite({ crd: { group: 'test.kindex.dev', kind: 'Gadget' } });
  const operators: Operator[] = [];
  afterEach(async () => {
    await Promise.all(operators.splice(0).map((o) => o.stop({ drainTimeoutMs: 5_000 })));
  });

  /** One replica: an operator whose reconciler stamps its identity into the status. */
  function replica(
    namespace: string,
    identity: string,
    election: Partial<OperatorLeaderElectionOptions> = {},
    reconciler?: Reconciler<Gadget, KubeClient>,
  ) {
    const operator = new Operator({
      kubeConfig: suite.server.kubeConfig,
      leaderElection: { leaseName: 'gadgets', leaseNamespace: namespace, identity, onLost: 'standby', ...fast, ...election },
    });
    operators.push(operator);
    const reconciled: string[] = [];
    const controller = operator.register<Gadget>(
      reconciler ?? {
        reconcile: (g) => {
          reconciled.push(g.metadata!.name!);
          return UpdateControl.patchStatus({ ...g, status: { seen: g.spec?.size ?? 0, by: identity } });
        },
      },
      { kind: GadgetKind, namespaces: [namespace] },
    );
    return { operator, controller, reconciled };
  }

  const statusOf = async (ns: string, name: string) => (await suite.client.get<Gadget>(GadgetKind, ResourceID.of(name, ns)))?.status;

  it('lets only the lease holder reconcile while the follower keeps a synced cache, and hands over on stop', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    await suite.client.create(GadgetKind, gadget('g1', ns, 1));
    const a = replica(ns, 'replica-a');
    await a.operator.start();
    expect(a.operator.isLeader).to.equal(true);
    const b = replica(ns, 'replica-b');
    await b.operator.start();
    expect(b.operator.isLeader).to.equal(false);
    expect(b.operator.leaderElector?.status).to.include({ role: 'candidate', holderIdentity: 'replica-a' });
    await eventually(async () => expect(await statusOf(ns, 'g1')).to.deep.equal({ seen: 1, by: 'replica-a' }));

    // Warm standby: the follower's cache follows the server without reconciling.
    await suite.client.create(GadgetKind, gadget('g2', ns, 2));
    await eventually(() => expect(b.controller.primaryCache.snapshot().peek(`${ns}/g2`)).to.not.equal(undefined));
    await eventually(async () => expect(await statusOf(ns, 'g2')).to.deep.equal({ seen: 2, by: 'replica-a' }));
    expect(b.reconciled).to.deep.equal([]);

    // The lease on the server is client-go's record.
    const lease = await suite.client.get<Lease>(Kinds.Lease, ResourceID.of('gadgets', ns));
    expect(lease?.spec).to.include({ holderIdentity: 'replica-a', leaseDurationSeconds: 3, leaseTransitions: 0 });

    // Graceful stop releases the lease: b leads at its next attempt, long before the lease would expire.
    const stoppedAt = Date.now();
    await a.operator.stop();
    operators.splice(operators.indexOf(a.operator), 1);
    expect((await suite.client.get<Lease>(Kinds.Lease, ResourceID.of('gadgets', ns)))?.spec?.holderIdentity).to.equal('');
    await eventually(() => expect(b.operator.isLeader).to.equal(true), { timeoutMs: 10_000 });
    expect(Date.now() - stoppedAt).to.be.lessThan(fast.leaseDurationMs);
    // The new leader works through everything it queued while following.
    await eventually(async () => expect((await statusOf(ns, 'g1'))?.by).to.equal('replica-b'));
    await suite.client.patch(GadgetKind, ResourceID.of('g2', ns), { spec: { size: 5 } });
    await eventually(async () => expect(await statusOf(ns, 'g2')).to.deep.equal({ seen: 5, by: 'replica-b' }));
    expect((await suite.client.get<Lease>(Kinds.Lease, ResourceID.of('gadgets', ns)))?.spec).to.include({
      holderIdentity: 'replica-b',
      leaseTransitions: 1,
    });
  });

  it('refuses writes through the client of a replica that does not lead (fencing)', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const a = replica(ns, 'leader');
    await a.operator.start();
    const b = replica(ns, 'follower');
    await b.operator.start();
    const error = await b.operator.client.create(GadgetKind, gadget('nope', ns)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(NotLeaderError);
    expect((error as Error).message)
      .to.include('follower')
      .and.include(`${ns}/gadgets`);
    expect(await suite.client.get(GadgetKind, ResourceID.of('nope', ns))).to.equal(undefined);
    // Reads are not fenced: followers serve caches and uncached reads.
    expect(await b.operator.client.get(GadgetKind, ResourceID.of('nope', ns))).to.equal(undefined);
  });

  it("refuses a leader's write based on a resourceVersion that moved on (optimistic locking)", async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    await suite.client.create(GadgetKind, gadget('g', ns, 1));
    let attempts = 0;
    const a = replica(
      ns,
      'a',
      {},
      {
        reconcile: async (g) => {
          attempts++;
          // Someone else changes the primary after this reconcile read it (as a new leader would).
          if (attempts === 1) await suite.client.patch(GadgetKind, ResourceID.of('g', ns), { metadata: { labels: { touched: 'yes' } } });
          return UpdateControl.patchStatus({ ...g, status: { seen: g.spec?.size ?? 0, by: `attempt-${attempts}` } });
        },
      },
    );
    const events: ControllerEvent[] = [];
    a.controller.events$.subscribe((e) => events.push(e));
    await a.operator.start();
    await eventually(async () => expect((await statusOf(ns, 'g'))?.by).to.match(/^attempt-[2-9]/));
    const failures = events.flatMap((e) =>
      e.type === 'processing' && e.event.type === 'finished' && e.event.outcome.type === 'error' ? [e.event.outcome.error] : [],
    );
    expect(failures[0]).to.be.instanceOf(KubeApiError);
    expect((failures[0] as KubeApiError).status).to.equal(409);
    expect((await suite.client.get<Gadget>(GadgetKind, ResourceID.of('g', ns)))?.metadata?.labels).to.deep.equal({ touched: 'yes' });
  });

  it('stops reconciling when another holder takes the lease, and with onLost "standby" leads again once it is free', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const lost: string[] = [];
    const a = replica(ns, 'standby-a', { onLost: 'standby' });
    a.operator.leaderElector!.status$.subscribe((s) => lost.push(`${s.role}:${s.reason}`));
    await a.operator.start();
    expect(a.operator.isLeader).to.equal(true);
    const lease = (await suite.client.get<Lease>(Kinds.Lease, ResourceID.of('gadgets', ns)))!;
    await suite.client.update<Lease>(Kinds.Lease, {
      ...lease,
      spec: { ...lease.spec, holderIdentity: 'intruder', renewTime: new Date().toISOString().replace('Z', '000Z') },
    });
    await eventually(() => expect(a.operator.isLeader).to.equal(false), { timeoutMs: 5_000 });
    expect(lost).to.include('candidate:lease taken by intruder');
    expect(a.controller.dispatchPaused).to.equal(true);
    await suite.client.create(GadgetKind, gadget('while-deposed', ns, 7));
    await new Promise((r) => setTimeout(r, 500));
    expect(a.reconciled, 'no reconcile while another replica holds the lease').to.deep.equal([]);
    // The intruder never renews: after the lease duration the replica takes over again and catches up.
    await eventually(() => expect(a.operator.isLeader).to.equal(true), { timeoutMs: 15_000 });
    await eventually(async () => expect(await statusOf(ns, 'while-deposed')).to.deep.equal({ seen: 7, by: 'standby-a' }));
  });

  it('aborts the signal of an in-flight reconcile with NotLeaderError the moment the lease is lost', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    await suite.client.create(GadgetKind, gadget('busy', ns));
    let signal: AbortSignal | undefined;
    const a = replica(
      ns,
      'busy-a',
      { onLost: () => {} },
      {
        reconcile: async (g, context) => {
          signal = context.getSignal();
          await new Promise((resolve) => signal!.addEventListener('abort', resolve));
          return UpdateControl.patchStatus({ ...g, status: { seen: 1, by: 'busy-a' } });
        },
      },
    );
    await a.operator.start();
    await eventually(() => expect(signal).to.not.equal(undefined));
    const lease = (await suite.client.get<Lease>(Kinds.Lease, ResourceID.of('gadgets', ns)))!;
    await suite.client.update<Lease>(Kinds.Lease, { ...lease, spec: { ...lease.spec, holderIdentity: 'intruder' } });
    await eventually(() => expect(signal!.aborted).to.equal(true), { timeoutMs: 5_000 });
    expect(signal!.reason).to.be.instanceOf(NotLeaderError);
    // The reconcile returned after the abort: its status write was fenced, not sent.
    await new Promise((r) => setTimeout(r, 300));
    expect(await statusOf(ns, 'busy')).to.equal(undefined);
  });

  it('calls an onLost callback instead of exiting', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const calls: string[] = [];
    const a = replica(ns, 'callback-a', { onLost: (s) => calls.push(s.reason) });
    await a.operator.start();
    const lease = (await suite.client.get<Lease>(Kinds.Lease, ResourceID.of('gadgets', ns)))!;
    await suite.client.update<Lease>(Kinds.Lease, { ...lease, spec: { ...lease.spec, holderIdentity: 'intruder' } });
    await eventually(() => expect(calls).to.deep.equal(['lease taken by intruder']), { timeoutMs: 5_000 });
    expect(a.operator.leaderElector?.status.role).to.equal('stopped');
    expect(a.controller.dispatchPaused).to.equal(true);
  });

  it('releases the lease on stop only after in-flight reconciles finished', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    await suite.client.create(GadgetKind, gadget('slow', ns));
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    let finish!: () => void;
    const gate = new Promise<void>((r) => (finish = r));
    const a = replica(
      ns,
      'draining',
      {},
      {
        reconcile: async (g) => {
          started();
          await gate;
          return UpdateControl.patchStatus({ ...g, status: { seen: 1, by: 'draining' } });
        },
      },
    );
    await a.operator.start();
    await running;
    let stopped = false;
    const stopping = a.operator.stop({ drainTimeoutMs: 30_000 }).then(() => (stopped = true));
    operators.splice(operators.indexOf(a.operator), 1);
    await new Promise((r) => setTimeout(r, 300));
    expect(stopped).to.equal(false);
    expect(
      (await suite.client.get<Lease>(Kinds.Lease, ResourceID.of('gadgets', ns)))?.spec?.holderIdentity,
      'held while reconciling',
    ).to.equal('draining');
    finish();
    await stopping;
    expect(await statusOf(ns, 'slow'), 'the in-flight reconcile finished and wrote').to.deep.equal({ seen: 1, by: 'draining' });
    expect((await suite.client.get<Lease>(Kinds.Lease, ResourceID.of('gadgets', ns)))?.spec?.holderIdentity).to.equal('');
  });

  it('abandons a reconcile that outlives the drain timeout and fences its late write', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    await suite.client.create(GadgetKind, gadget('stuck', ns));
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    let finish!: () => void;
    const gate = new Promise<void>((r) => (finish = r));
    let lateWrite: unknown;
    let signal: AbortSignal | undefined;
    const a = replica(
      ns,
      'abandoning',
      {},
      {
        reconcile: async (g, context) => {
          signal = context.getSignal();
          started();
          await gate;
          // The reconciler's own write after the operator stopped and released the lease.
          lateWrite = await context
            .getClient()
            .patch(GadgetKind, ResourceID.of('stuck', ns), { metadata: { labels: { late: 'yes' } } })
            .then(
              () => 'written',
              (e: unknown) => e,
            );
          return UpdateControl.noUpdate();
        },
      },
    );
    await a.operator.start();
    await running;
    expect(signal?.aborted).to.equal(false);
    await a.operator.stop({ drainTimeoutMs: 200 });
    operators.splice(operators.indexOf(a.operator), 1);
    expect(signal?.aborted, 'the abandoned reconcile was told to give up').to.equal(true);
    expect((await suite.client.get<Lease>(Kinds.Lease, ResourceID.of('gadgets', ns)))?.spec?.holderIdentity).to.equal('');
    finish();
    await eventually(() => expect(lateWrite).to.be.instanceOf(NotLeaderError));
    expect((await suite.client.get<Gadget>(GadgetKind, ResourceID.of('stuck', ns)))?.metadata?.labels).to.equal(undefined);
  });

  it('fails start fast with the fix when the lease namespace does not exist', async () => {
    const missing = uniqueName('missing');
    const operator = new Operator({
      kubeConfig: suite.server.kubeConfig,
      leaderElection: { leaseName: 'x', leaseNamespace: missing, ...fast },
    });
    operators.push(operator);
    const error = await operator.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(LeaderElectionStartError);
    expect((error as LeaderElectionStartError).status).to.equal(404);
    expect((error as Error).message).to.include(`namespace "${missing}" does not exist`);
  });

  it('run() stops what started and rejects when start fails', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const operator = new Operator({
      kubeConfig: suite.server.kubeConfig,
      leaderElection: { leaseName: 'x', leaseNamespace: uniqueName('missing'), ...fast },
    });
    operator.register<Gadget>({ reconcile: () => UpdateControl.noUpdate() }, { kind: GadgetKind, namespaces: [ns] });
    const error = await operator.run({ exit: false, signals: [] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(LeaderElectionStartError);
    expect(InformerRegistry.of(operator.client).size, 'shared informers left running').to.equal(0);
    await new Promise((r) => setTimeout(r, 500));
    expect(InformerRegistry.of(operator.client).size, 'shared informers started late').to.equal(0);
  });

  it('names the option when the lease name is missing', () => {
    expect(() => new Operator({ kubeConfig: suite.server.kubeConfig, leaderElection: { leaseName: '', leaseNamespace: 'ops' } })).to.throw(
      'leaderElection.leaseName',
    );
  });
});
