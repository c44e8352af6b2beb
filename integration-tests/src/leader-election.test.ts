// Leader election across operator processes: three child processes, each its own
// Operator with leaderElection, against one API server (embedded, or real with
// KINDEX_APISERVER=real). The reconcilers' own records (JSON lines with pid, key, start and end)
// are the evidence: no primary reconciled by two processes at once, every change reconciled.
import { expect } from 'chai';
import { eventually, startTestApiServer, type TestApiServer } from '@kindex/testing';
import { ElectionScenario } from './support/election-scenario.js';
import { intervals, overlaps, readRecords, type ReplicaProcess } from './support/replica-process.js';

/**
 * Short timings, roomy enough for a loaded two-core CI machine: a new leader that stalls past its
 * renew deadline loses the lease (and exits, with onLost 'exit'), and the assertions name it.
 * Pinned to one core beside the other process suites, replicas stalled for up to 5 s (3 s was the
 * deadline before).
 */
const timing = { leaseDurationMs: 6_000, renewDeadlineMs: 4_500, retryPeriodMs: 500 };

describe('leader election across processes', function () {
  this.timeout(240_000);
  let server: TestApiServer;
  let scenario: ElectionScenario | undefined;

  before(async () => {
    server = await startTestApiServer();
  });
  afterEach(async () => {
    await scenario?.stopChurn();
    scenario?.killAll();
    scenario = undefined;
  });
  after(async () => {
    await server.stop();
  });

  async function leaderOf(s: ElectionScenario): Promise<ReplicaProcess> {
    let leader: ReplicaProcess | undefined;
    await eventually(
      async () => {
        const holder = await s.holder();
        leader = s.replicas.find((r) => r.identity === holder && r.leading);
        expect(leader, `a replica leads (lease holder ${holder})`).to.not.equal(undefined);
      },
      { timeoutMs: 30_000 },
    );
    return leader!;
  }

  it('fails over after SIGKILL of the leader mid-churn, with no overlapping reconciles and every change reconciled', async () => {
    const s = (scenario = await ElectionScenario.create(server, { counters: 12, timing, onLost: 'standby' }));
    await Promise.all(['r0', 'r1', 'r2'].map((id) => s.spawn(id)));
    const old = await leaderOf(s);
    await eventually(async () => {
      for (const c of (await s.counters()).values()) expect(c.status?.observed).to.equal(0);
    });

    s.startChurn();
    await new Promise((r) => setTimeout(r, 1_500));
    const killedAt = Date.now();
    old.signal('SIGKILL');
    await old.exited;
    // The old leader may still start a reconcile between killedAt and the signal landing (it
    // leads until then); once it has exited it can do nothing, and its open reconciles ended.
    const diedAt = Date.now();
    const followers = s.replicas.filter((r) => r !== old);
    const taking = await Promise.any(followers.map((r) => r.waitFor((l) => l.event === 'leading', 30_000, 'leadership').then(() => r)));
    await new Promise((r) => setTimeout(r, 1_500));
    await s.stopChurn();

    // Every change, including those made during the failover, ends up reconciled by the new leader.
    await eventually(
      async () => {
        for (const [name, c] of await s.counters()) {
          expect(c.status, name).to.deep.equal({ observed: s.values.get(name), by: taking.identity });
        }
      },
      { timeoutMs: 30_000 },
    );
    const records = readRecords(s.setup.recordsFile);
    const all = intervals(records, (pid) => (pid === old.pid ? diedAt : Date.now()));
    expect(overlaps(all), 'reconciles of one primary by two processes at the same time').to.deep.equal([]);
    for (const [name, value] of s.values) {
      expect(
        all.some((i) => i.pid === taking.pid && i.key === `${s.setup.namespace}/${name}` && i.value === value),
        `${name} reconciled at its final value ${value} by the new leader`,
      ).to.equal(true);
    }
    expect(
      all.filter((i) => i.pid !== taking.pid && i.start > (i.pid === old.pid ? diedAt : killedAt)),
      'reconciles after the kill by anyone but the new leader',
    ).to.deep.equal([]);
    const firstAfterKill = Math.min(...all.filter((i) => i.pid === taking.pid && i.start > killedAt).map((i) => i.start));
    console.log(
      `      failover: ${firstAfterKill - killedAt} ms from SIGKILL to the new leader's first reconcile (lease ${timing.leaseDurationMs} ms)`,
    );
    expect(firstAfterKill - killedAt).to.be.lessThan(timing.leaseDurationMs + 3 * timing.retryPeriodMs * 2.2 + 5_000);

    // SIGTERM: the leader drains, releases the lease and exits 0; the last follower takes over at once.
    const last = followers.find((r) => r !== taking)!;
    const termAt = Date.now();
    taking.signal('SIGTERM');
    expect(await taking.exited).to.deep.equal({ code: 0, signal: null });
    await last.waitFor((l) => l.event === 'leading', 30_000, 'leadership after SIGTERM');
    const lease = await s.lease();
    expect(lease?.spec?.holderIdentity).to.equal(last.identity);
    const handover = last.lines.find((l) => l.event === 'leading')!.at - termAt;
    expect(handover, 'a released lease is taken without waiting it out').to.be.lessThan(timing.leaseDurationMs);
    last.signal('SIGTERM');
    expect(await last.exited).to.deep.equal({ code: 0, signal: null });
    expect((await s.lease())?.spec?.holderIdentity).to.equal('');
  });

  it('makes a leader paused (SIGSTOP) past its lease stand down on SIGCONT without writing', async () => {
    const s = (scenario = await ElectionScenario.create(server, { counters: 6, timing, onLost: 'exit' }));
    await Promise.all(['p0', 'p1', 'p2'].map((id) => s.spawn(id)));
    const old = await leaderOf(s);
    s.startChurn(40);
    await new Promise((r) => setTimeout(r, 1_000));

    const stoppedAt = Date.now();
    old.signal('SIGSTOP');
    const followers = s.replicas.filter((r) => r !== old);
    const taking = await Promise.any(followers.map((r) => r.waitFor((l) => l.event === 'leading', 30_000, 'leadership').then(() => r)));
    const takenAt = taking.lines.find((l) => l.event === 'leading')!.at;
    expect(takenAt - stoppedAt, 'the lease was waited out').to.be.greaterThan(timing.renewDeadlineMs);
    await eventually(async () => expect((await s.counters()).get('c0')?.status?.by).to.equal(taking.identity), { timeoutMs: 20_000 });

    const resumedAt = Date.now();
    old.signal('SIGCONT');
    // It finds its deadline passed, stops dispatching, and exits (onLost 'exit') with code 1.
    expect(await old.exited).to.deep.equal({ code: 1, signal: null });
    expect(old.stderr).to.match(/p\d lost lease .*counters \(renew deadline passed\); exiting/);
    await new Promise((r) => setTimeout(r, 1_000));
    await s.stopChurn();

    await eventually(
      async () => {
        for (const [name, c] of await s.counters())
          expect(c.status, name).to.deep.equal({ observed: s.values.get(name), by: taking.identity });
      },
      { timeoutMs: 30_000 },
    );
    const records = readRecords(s.setup.recordsFile);
    expect(
      records.filter((r) => r.pid === old.pid && r.type === 'start' && r.at >= resumedAt),
      'reconciles started by the resumed replica',
    ).to.deep.equal([]);
    // Ordered by the server's resourceVersions: no write of the paused replica landed after the new leader's first.
    const writeRv = (pid: number) => records.filter((r) => r.pid === pid && r.type === 'wrote').map((r) => BigInt(r.rv!));
    const newFirst = writeRv(taking.pid).reduce((a, b) => (b < a ? b : a));
    expect(
      writeRv(old.pid)
        .filter((rv) => rv > newFirst)
        .map(String),
      'writes of the paused replica after the new leader wrote',
    ).to.deep.equal([]);
    expect(
      records.some((r) => r.pid === old.pid && r.type === 'wrote'),
      'it did write while it led',
    ).to.equal(true);
    // A reconcile frozen mid-way may end after the resume; its write is fenced, so only the
    // reconcile records of processes that could write are checked for overlap.
    const all = intervals(records, () => Date.now()).filter((i) => i.pid !== old.pid || i.end < stoppedAt);
    expect(overlaps(all)).to.deep.equal([]);
    const lease = await s.lease();
    expect(lease?.spec?.holderIdentity).to.equal(taking.identity);
    expect(lease?.spec?.leaseTransitions).to.equal(1);
    for (const r of followers) r.signal('SIGTERM');
    for (const r of followers) expect(await r.exited).to.deep.equal({ code: 0, signal: null });
  });
});
