import { expect } from 'chai';
import { FakeClock, type Clock } from '@kindex/core';
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

/** `fake`'s time plus time that passes without timers firing: what a process frozen by SIGSTOP sees on resuming. */
function pausable(fake: FakeClock): { clock: Clock; pause: (ms: number) => void } {
  let paused = 0;
  const clock: Clock = {
    now: () => fake.now() + paused,
    setTimeout: (callback, delayMs) => fake.setTimeout(callback, delayMs),
    clearTimeout: (handle) => fake.clearTimeout(handle),
  };
  return { clock, pause: (ms) => (paused += ms) };
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

  it('refuses writes for a shard once its renew deadline has passed by the clock, before any timer ran (a paused process)', async () => {
    const fake = new FakeClock(1_000_000);
    const { clock, pause } = pausable(fake);
    const leases = new MemoryLeases();
    const a = new ShardCoordinator({ group: 'g', shards: 2, identity: 'a', clock, ...TIMING, store: leases.view(() => false) });
    const lost: ShardLoss[] = [];
    a.lost$.subscribe((loss) => lost.push(loss));
    await a.start();
    expect([a.writeRefusal(0), a.writeRefusal(1)]).to.deep.equal([undefined, undefined]);
    pause(TIMING.renewDeadlineMs);
    expect(a.writeRefusal(0)).to.deep.equal({ shard: 0, reason: 'renew-deadline' });
    expect(lost, 'no timer has run yet').to.deep.equal([]);
    await a.stop({ release: false });
    expect(a.writeRefusal(0), 'after stop').to.deep.equal({ shard: 0, reason: 'moved' });
  });

  it('lets a shard draining for a handover write until its last renewal’s deadline, and not after its release', async () => {
    const fake = new FakeClock(1_000_000);
    const { clock, pause } = pausable(fake);
    const leases = new MemoryLeases();
    let drained = (): void => {};
    const draining: number[] = [];
    const a = new ShardCoordinator({
      group: 'g',
      shards: 2,
      identity: 'a',
      clock,
      ...TIMING,
      store: leases.view(() => false),
      onRelease: (shard) => {
        draining.push(shard);
        return new Promise((resolve) => (drained = resolve));
      },
    });
    await a.start();
    const b = replica(leases, fake, 'b', 2);
    await b.coordinator.start();
    for (let i = 0; i < 10 && draining.length === 0; i++) await fake.advance(TIMING.retryPeriodMs);
    expect(draining).to.have.length(1);
    const shard = draining[0]!;
    expect(a.owns(shard), 'no new reconciles').to.equal(false);
    expect(a.writeRefusal(shard), 'the drained reconciles still write').to.equal(undefined);
    pause(TIMING.renewDeadlineMs);
    expect(a.writeRefusal(shard), 'not past the deadline of its last renewal').to.deep.equal({ shard, reason: 'renew-deadline' });
    pause(-TIMING.renewDeadlineMs);
    drained();
    await fake.advance(0);
    expect(a.writeRefusal(shard), 'released').to.deep.equal({ shard, reason: 'moved' });
    await Promise.all([a.stop(), b.coordinator.stop()]);
  });
});
