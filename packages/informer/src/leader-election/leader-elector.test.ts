import { expect } from 'chai';
import fc from 'fast-check';
import { FakeClock } from '@kindex/core';
import {
  KubeApiError,
  LeaderElectionConfigError,
  LeaderElectionStartError,
  LeaderElector,
  LeaseConflictError,
  type Lease,
  type LeaseSpec,
  type LeaseStore,
  type LeaderElectorOptions,
} from '../index.js';

/** A lease in memory with the API server's optimistic concurrency; `partitioned` candidates get errors. */
class MemoryLeaseStore {
  lease: Lease | undefined;
  #rv = 0;
  readonly writes: LeaseSpec[] = [];

  constructor(readonly description = 'ops/op') {}

  /** The store as one candidate sees it; its calls fail while `cut()` says so. */
  view(cut: () => boolean = () => false): LeaseStore {
    const down = (): Error => new Error('connection refused');
    return {
      description: this.description,
      get: async () => {
        if (cut()) throw down();
        return this.lease === undefined ? undefined : structuredClone(this.lease);
      },
      create: async (spec) => {
        if (cut()) throw down();
        if (this.lease !== undefined) throw new LeaseConflictError(this.description);
        return this.#write(spec);
      },
      update: async (current, spec) => {
        if (cut()) throw down();
        if (this.lease?.metadata?.resourceVersion !== current.metadata?.resourceVersion) throw new LeaseConflictError(this.description);
        return this.#write(spec);
      },
    };
  }

  #write(spec: LeaseSpec): Lease {
    this.writes.push(spec);
    this.lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'op', namespace: 'ops', resourceVersion: String(++this.#rv) },
      spec,
    };
    return structuredClone(this.lease);
  }
}

const timing = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

function elector(store: LeaseStore, clock: FakeClock, identity: string, more: Partial<LeaderElectorOptions> = {}): LeaderElector {
  return new LeaderElector({ store, clock, identity, random: () => 0, ...timing, ...more });
}

/** One election: a fake clock, an empty lease in memory, and candidates whose connection to it can be cut. */
function election() {
  const clock = new FakeClock(1_000_000);
  const memory = new MemoryLeaseStore();
  const cutOff = new Set<string>();
  return {
    clock,
    memory,
    /** A candidate on this lease and clock (client-go's timings, no jitter). */
    candidate: (identity: string, more: Partial<LeaderElectorOptions> = {}) =>
      elector(
        memory.view(() => cutOff.has(identity)),
        clock,
        identity,
        more,
      ),
    /** Cuts the candidate `identity` off the lease (its calls fail), or with `false` reconnects it. */
    cut: (identity: string, cut = true) => void (cut ? cutOff.add(identity) : cutOff.delete(identity)),
  };
}

describe('LeaderElector', () => {
  it('acquires an absent lease on the first attempt and writes the client-go record', async () => {
    const { memory, candidate } = election();
    const a = candidate('a');
    await a.start();
    expect(a.isLeader).to.equal(true);
    expect(a.status).to.include({ role: 'leader', holderIdentity: 'a' });
    const spec = memory.lease?.spec;
    expect(spec).to.include({ holderIdentity: 'a', leaseDurationSeconds: 15, leaseTransitions: 0 });
    expect(spec?.acquireTime).to.equal(spec?.renewTime);
    expect(spec?.renewTime).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    await a.stop();
  });

  it('renews every retry period, keeping acquireTime and leaseTransitions', async () => {
    const { clock, memory, candidate } = election();
    const a = candidate('a');
    await a.start();
    const acquired = memory.lease?.spec?.acquireTime;
    await clock.advance(6_000);
    expect(memory.writes).to.have.length(4);
    expect(memory.lease?.spec).to.include({ acquireTime: acquired, leaseTransitions: 0 });
    expect(memory.lease?.spec?.renewTime).to.not.equal(acquired);
    expect(a.isLeader).to.equal(true);
    await a.stop();
  });

  it('lets a follower take over only a full lease duration after it last saw the record change', async () => {
    const { clock, memory, candidate, cut } = election();
    const a = candidate('a');
    const b = candidate('b');
    await a.start();
    await b.start();
    expect(b.isLeader).to.equal(false);
    expect(b.status).to.include({ role: 'candidate', holderIdentity: 'a' });
    await clock.advance(30_000);
    expect(b.isLeader, 'a keeps renewing').to.equal(false);

    cut('a'); // a can no longer reach the server: its last renewal happened at most 2 s ago
    const cutAt = clock.now();
    let bLeadsAt: number | undefined;
    b.isLeader$.subscribe((leading) => {
      if (leading) bLeadsAt = clock.now();
    });
    await clock.advance(20_000);
    expect(bLeadsAt).to.not.equal(undefined);
    expect(bLeadsAt! - cutAt).to.be.greaterThan(15_000 - 2_000);
    expect(b.isLeader).to.equal(true);
    expect(a.isLeader).to.equal(false);
    expect(memory.lease?.spec).to.include({ holderIdentity: 'b', leaseTransitions: 1 });
    await Promise.all([a.stop(), b.stop()]);
  });

  it('measures expiry on its own clock, not from the renewTime written by the holder', async () => {
    const { clock, memory, candidate } = election();
    // A record renewed "an hour ago" by a holder whose clock was off: still held until it stops changing for 15 s here.
    const store = memory.view();
    await store.create({
      holderIdentity: 'z',
      leaseDurationSeconds: 15,
      renewTime: '2000-01-01T00:00:00.000000Z',
      acquireTime: '2000-01-01T00:00:00.000000Z',
      leaseTransitions: 3,
    });
    const b = candidate('b');
    await b.start();
    expect(b.isLeader).to.equal(false);
    await clock.advance(14_000);
    expect(b.isLeader).to.equal(false);
    await clock.advance(4_000);
    expect(b.isLeader).to.equal(true);
    expect(memory.lease?.spec).to.include({ holderIdentity: 'b', leaseTransitions: 4 });
    await b.stop();
  });

  it('stands down when it cannot renew within the renew deadline, before any follower may acquire', async () => {
    const { clock, candidate, cut } = election();
    const a = candidate('a');
    const problems: unknown[] = [];
    a.problems$.subscribe((p) => problems.push(p));
    await a.start();
    const lastSent = clock.now();
    cut('a');
    await clock.advance(9_999);
    expect(a.isLeader).to.equal(true);
    await clock.advance(1);
    expect(a.isLeader).to.equal(false);
    expect(a.status).to.include({ role: 'stopped', reason: 'renew deadline passed' });
    expect(clock.now() - lastSent).to.be.lessThan(15_000);
    expect(problems.length).to.be.greaterThan(0);
    await a.stop();
  });

  it('reports not leading synchronously once the deadline passed, even before its timer ran', async () => {
    const { clock, candidate } = election();
    const a = candidate('a');
    await a.start();
    // Simulates a frozen process: time moves on, but no timer has run yet.
    (clock as unknown as { now: () => number }).now = () => 1_000_000 + 10_000;
    expect(a.isLeader).to.equal(false);
    expect(a.status.role, 'the status still says leader until the timer runs').to.equal('leader');
  });

  it('stands down when a renewal finds another holder on the lease', async () => {
    const { clock, memory, candidate } = election();
    const a = candidate('a', { afterLoss: 'rejoin' });
    await a.start();
    const rv = memory.lease!.metadata!.resourceVersion;
    await memory
      .view()
      .update(
        { ...memory.lease!, metadata: { ...memory.lease!.metadata, resourceVersion: rv } },
        { ...memory.lease!.spec, holderIdentity: 'intruder' },
      );
    await clock.advance(2_000);
    expect(a.isLeader).to.equal(false);
    expect(a.status).to.include({ role: 'candidate', reason: 'lease taken by intruder', holderIdentity: 'intruder' });
    await a.stop();
  });

  it('goes back to being a candidate with afterLoss "rejoin" and leads again when it can', async () => {
    const { clock, candidate, cut } = election();
    const a = candidate('a', { afterLoss: 'rejoin' });
    const roles: string[] = [];
    a.status$.subscribe((s) => {
      if (roles.at(-1) !== s.role) roles.push(s.role);
    });
    await a.start();
    cut('a');
    await clock.advance(11_000);
    expect(a.status.role).to.equal('candidate');
    cut('a', false);
    await clock.advance(5_000);
    expect(a.isLeader).to.equal(true);
    expect(roles).to.deep.equal(['candidate', 'leader', 'candidate', 'leader']);
    await a.stop();
  });

  it('releases the lease on stop so the next candidate acquires at its next attempt', async () => {
    const { clock, memory, candidate } = election();
    const a = candidate('a');
    const b = candidate('b');
    await a.start();
    await b.start();
    await clock.advance(4_000);
    await a.stop();
    expect(a.isLeader).to.equal(false);
    expect(memory.lease?.spec).to.include({ holderIdentity: '', leaseDurationSeconds: 1, leaseTransitions: 0 });
    await clock.advance(2_000);
    expect(b.isLeader).to.equal(true);
    expect(memory.lease?.spec).to.include({ holderIdentity: 'b', leaseTransitions: 1 });
    await b.stop();
  });

  it('keeps the lease on stop with releaseOnCancel false', async () => {
    const { memory, candidate } = election();
    const a = candidate('a', { releaseOnCancel: false });
    await a.start();
    await a.stop();
    expect(a.isLeader).to.equal(false);
    expect(memory.lease?.spec?.holderIdentity).to.equal('a');
  });

  it('lets exactly one of two candidates racing for a free lease win', async () => {
    const { candidate } = election();
    const a = candidate('a');
    const b = candidate('b');
    await Promise.all([a.start(), b.start()]);
    expect([a.isLeader, b.isLeader].filter(Boolean)).to.have.length(1);
    await Promise.all([a.stop(), b.stop()]);
  });

  it('fails start fast on a 403 with the RBAC to grant', async () => {
    const forbidden: LeaseStore = {
      description: 'ops/op',
      get: () =>
        Promise.reject(new KubeApiError('GET', '/apis/coordination.k8s.io/v1/namespaces/ops/leases/op', 403, 'Forbidden', 'forbidden')),
      create: () => Promise.reject(new Error('unreachable')),
      update: () => Promise.reject(new Error('unreachable')),
    };
    const a = new LeaderElector({ store: forbidden, identity: 'a', clock: new FakeClock() });
    const error = await a.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(LeaderElectionStartError);
    expect((error as Error).message)
      .to.include('leases.coordination.k8s.io')
      .and.include('"ops"');
    expect(a.status.role).to.equal('stopped');
  });

  it('rejects inconsistent timings naming the option and the fix', () => {
    const store = new MemoryLeaseStore().view();
    const make = (o: Partial<LeaderElectorOptions>) => () => new LeaderElector({ store, identity: 'a', ...o });
    expect(make({ leaseDurationMs: 10_000, renewDeadlineMs: 10_000 })).to.throw(
      LeaderElectionConfigError,
      'leaderElection.leaseDurationMs = 10000: must exceed renewDeadlineMs',
    );
    expect(make({ renewDeadlineMs: 2_000, retryPeriodMs: 2_000 })).to.throw(LeaderElectionConfigError, 'leaderElection.renewDeadlineMs');
    expect(make({ leaseDurationMs: 500, renewDeadlineMs: 300, retryPeriodMs: 100 })).to.throw(LeaderElectionConfigError, 'whole seconds');
    expect(make({ retryPeriodMs: -1 })).to.throw(LeaderElectionConfigError, 'positive');
    expect(make({ identity: '' })).to.throw(LeaderElectionConfigError, 'leaderElection.identity');
  });

  it('defaults to client-go timings and a pod-name identity with a random suffix', () => {
    const previous = process.env['POD_NAME'];
    process.env['POD_NAME'] = 'op-7d9f-x2';
    try {
      const a = new LeaderElector({ store: new MemoryLeaseStore().view() });
      const b = new LeaderElector({ store: new MemoryLeaseStore().view() });
      expect(a).to.include({ leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 });
      expect(a.identity).to.match(/^op-7d9f-x2_[0-9a-f]{8}$/);
      expect(a.identity).to.not.equal(b.identity);
    } finally {
      if (previous === undefined) delete process.env['POD_NAME'];
      else process.env['POD_NAME'] = previous;
    }
  });

  it('never has two leaders at once, and has one once the network heals (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({ wait: fc.integer({ min: 50, max: 4_000 }), toggle: fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }) }),
          { minLength: 1, maxLength: 40 },
        ),
        fc.array(fc.double({ min: 0, max: 0.999, noNaN: true }), { minLength: 3, maxLength: 3 }),
        async (steps, jitters) => {
          const { clock, memory } = election();
          const cut = [false, false, false];
          const electors = [0, 1, 2].map((i) =>
            elector(
              memory.view(() => cut[i]!),
              clock,
              `c${i}`,
              { afterLoss: 'rejoin', random: () => jitters[i]! },
            ),
          );
          await Promise.all(electors.map((e) => e.start()));
          const leaders = (): number => electors.filter((e) => e.isLeader).length;
          for (const step of steps) {
            if (step.toggle !== undefined) cut[step.toggle] = !cut[step.toggle];
            for (let t = 0; t < step.wait; t += 50) {
              await clock.advance(Math.min(50, step.wait - t));
              if (leaders() > 1) return false;
            }
          }
          cut.fill(false);
          for (let t = 0; t < 30_000; t += 500) {
            await clock.advance(500);
            if (leaders() > 1) return false;
          }
          const ok = leaders() === 1;
          await Promise.all(electors.map((e) => e.stop()));
          return ok;
        },
      ),
      { numRuns: 40 },
    );
  });
});
