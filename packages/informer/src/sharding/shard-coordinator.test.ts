import { expect } from 'chai';
import { FakeClock } from '@kindex/core';
import { ShardCoordinator, type ShardLoss } from '../index.js';
import { MemoryLeases } from './memory-leases.fixture.test.js';

const TIMING = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500 } as const;

/** A coordinator on in-memory leases whose calls hang while `hang()` is in force, recording what it lost. */
function replica(leases: MemoryLeases, clock: FakeClock, identity: string, shards: number) {
  let opened: Promise<void> = Promise.resolve();
  let open = (): void => {};
  const coordinator = new ShardCoordinator({
    group: 'g',
    shards,
    identity,
    clock,
    ...TIMING,
    store: leases.view(
      () => false,
      () => opened,
    ),
  });
  const lost: (ShardLoss & { at: number })[] = [];
  coordinator.lost$.subscribe((loss) => lost.push({ ...loss, at: clock.now() }));
  return {
    coordinator,
    lost,
    hang(): void {
      opened = new Promise((resolve) => (open = resolve));
    },
    answer(): void {
      open();
      opened = Promise.resolve();
    },
  };
}

describe('ShardCoordinator', () => {
  it('loses its shards at the renew deadline while a lease call hangs, says so once, and owns them again when a renewal finds them still its own', async () => {
    const clock = new FakeClock(1_000_000);
    const leases = new MemoryLeases();
    const a = replica(leases, clock, 'a', 2);
    await a.coordinator.start();
    expect(a.coordinator.owned()).to.deep.equal([0, 1]);
    const renewedAt = clock.now();
    a.hang();
    await clock.advance(TIMING.renewDeadlineMs - 1);
    expect(a.coordinator.owned(), 'before the deadline').to.deep.equal([0, 1]);
    expect(a.lost).to.deep.equal([]);
    await clock.advance(1);
    // On time, although the round that should have renewed is still waiting for the server.
    expect(a.coordinator.owned()).to.deep.equal([]);
    expect(a.lost).to.deep.equal([
      { shard: 0, reason: 'renew-deadline', at: renewedAt + TIMING.renewDeadlineMs },
      { shard: 1, reason: 'renew-deadline', at: renewedAt + TIMING.renewDeadlineMs },
    ]);
    expect(a.coordinator.ownership.owned).to.deep.equal([]);
    await clock.advance(5 * TIMING.retryPeriodMs);
    expect(a.lost, 'announced once').to.have.length(2);
    // Nobody took them meanwhile: the hung round's renewals go through and ownership resumes.
    a.answer();
    await clock.advance(2 * TIMING.retryPeriodMs);
    expect(a.coordinator.owned()).to.deep.equal([0, 1]);
    expect(a.lost).to.have.length(2);
    await a.coordinator.stop();
  });

  it('loses a shard whose lease another holder took, at the next round, and only that one', async () => {
    const clock = new FakeClock(1_000_000);
    const leases = new MemoryLeases();
    const a = replica(leases, clock, 'a', 2);
    await a.coordinator.start();
    const name = a.coordinator.shardLeaseName(1);
    const current = leases.leases.get(name)!;
    await leases.view(() => false).update(current, { ...current.spec, holderIdentity: 'intruder' });
    await clock.advance(TIMING.retryPeriodMs);
    expect(a.lost.map(({ shard, reason }) => ({ shard, reason }))).to.deep.equal([{ shard: 1, reason: 'moved' }]);
    expect(a.coordinator.owned()).to.deep.equal([0]);
    await clock.advance(4 * TIMING.retryPeriodMs);
    expect(a.lost).to.have.length(1);
    await a.coordinator.stop({ release: false });
  });

  it('hands shards over to a replica that joins without calling them lost', async () => {
    const clock = new FakeClock(1_000_000);
    const leases = new MemoryLeases();
    const a = replica(leases, clock, 'a', 4);
    await a.coordinator.start();
    expect(a.coordinator.owned()).to.have.length(4);
    const b = replica(leases, clock, 'b', 4);
    await b.coordinator.start();
    await clock.advance(6 * TIMING.retryPeriodMs);
    expect(a.coordinator.owned()).to.have.length(2);
    expect(b.coordinator.owned()).to.have.length(2);
    expect(a.lost).to.deep.equal([]);
    expect(b.lost).to.deep.equal([]);
    await Promise.all([a.coordinator.stop(), b.coordinator.stop()]);
  });
});
