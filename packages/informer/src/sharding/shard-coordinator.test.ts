import { expect } from 'chai';
import { FakeClock, ShardMap, type Clock } from '@kindex/core';
import { ShardCoordinator, type ShardLoss } from '../index.js';
import { SHARD_EPOCH_ANNOTATION } from '../internal.js';
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

/**
 * Replicas a and b of 4 shards on in-memory leases, balancing over 12 names until their first map
 * settles; `recut()` then adds 3 names to shard 0 of that map (6 > max(4, 5)), so the owner of
 * shard 0 publishes a second map, and returns it once both follow it, each replica's drain held
 * until the test opens its gate. `clock` defaults to `fake`, which the rounds advance.
 */
async function mapChangeGroup(fake: FakeClock, clock: Clock = fake) {
  const leases = new MemoryLeases();
  const present = Array.from({ length: 12 }, (_, i) => `team-${i + 1}`);
  // Each replica's drain of a map change waits for the test while `hold` is set.
  let hold = false;
  const gates = new Map<string, () => void>();
  const start = async (identity: string): Promise<ShardCoordinator> => {
    const coordinator = new ShardCoordinator({
      group: 'g',
      shards: 4,
      identity,
      clock,
      ...TIMING,
      store: leases.view(() => false),
      population: () => Promise.resolve([...present]),
      onMapChange: () => (hold ? new Promise<void>((resolve) => gates.set(identity, resolve)) : Promise.resolve()),
    });
    await coordinator.start();
    return coordinator;
  };
  const [a, b] = [await start('a'), await start('b')];
  await fake.advance(20 * TIMING.retryPeriodMs);
  const first = a.map;
  expect(first.epoch).to.equal(1);
  return {
    a,
    b,
    leases,
    present,
    first,
    gates,
    recut: async (): Promise<ShardMap> => {
      hold = true;
      for (let k = 0; present.length < 15; k++) if (first.shardOfValue(`x${k}`) === 0) present.push(`x${k}`);
      // The owner of shard 0 reads the namespaces every 5 rounds.
      await fake.advance(8 * TIMING.retryPeriodMs);
      expect([a.map.epoch, b.map.epoch]).to.deep.equal([2, 2]);
      return a.map;
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
  it('on a map change, reconciles nothing that moved until every holder drained it, and what did not move throughout', async () => {
    const clock = new FakeClock(1_000_000);
    const { a, b, present, first, gates, recut } = await mapChangeGroup(clock);
    const owners = (ns: string): string[] => [a, b].filter((c) => c.ownsValue(ns)).map((c) => c.identity);
    expect(first.loads(present)).to.deep.equal([3, 3, 3, 3]);
    for (const ns of present) expect(owners(ns), ns).to.have.length(1);
    const second = await recut();
    const moved = present.filter((ns) => first.shardOfValue(ns) !== second.shardOfValue(ns));
    const stayed = present.filter((ns) => !moved.includes(ns));
    expect(moved.length).to.be.greaterThan(0);
    expect(stayed.length).to.be.greaterThan(0);
    const check = (when: string): void => {
      for (const ns of moved) expect(owners(ns), `${ns} (moved) ${when}`).to.deep.equal([]);
      for (const ns of stayed) expect(owners(ns), `${ns} (stayed) ${when}`).to.have.length(1);
    };
    check('while both drain');
    await clock.advance(10 * TIMING.retryPeriodMs);
    check('while both drain, later');
    gates.get('a')!();
    await clock.advance(10 * TIMING.retryPeriodMs);
    check('while b drains');
    expect(a.ownership.settled).to.equal(false);
    gates.get('b')!();
    await clock.advance(4 * TIMING.retryPeriodMs);
    for (const ns of present) expect(owners(ns), ns).to.have.length(1);
    expect(second.loads(present).every((n) => n <= ShardMap.loadBound(15, 4))).to.equal(true);
    expect([a.ownership.settled, b.ownership.settled]).to.deep.equal([true, true]);
    await Promise.all([a.stop(), b.stop()]);
  });

  it('fences a value by the map: one that moved away is written by its draining old owner until it acks or its old shard lapses, one that moved in by the holder of its new shard', async () => {
    const fake = new FakeClock(1_000_000);
    const { clock, pause } = pausable(fake);
    const { a, b, leases, first, gates, recut } = await mapChangeGroup(fake, clock);
    const second = await recut();
    expect(gates.size, 'both drain').to.equal(2);
    // A hash that moved from a shard of a to one of b: the moves sit at the cuts, so try the segment starts of both maps.
    const hex = (start: string): string => start.slice(2);
    const candidates = [...first.segments, ...second.segments].map((s) => hex(s.start));
    const away = candidates.find((h) => a.owns(first.shardOfHash(h)) && b.owns(second.shardOfHash(h)));
    const bOnly = candidates.find((h) => b.owns(first.shardOfHash(h)) && b.owns(second.shardOfHash(h)));
    if (away === undefined || bOnly === undefined) throw new Error(`no hash moved from a to b, or stayed with b: ${second.serialize()}`);
    const [awayOld, awayNew] = [first.shardOfHash(away), second.shardOfHash(away)];

    expect(a.writeRefusalOfHash(away), 'moved away, a drains it holding its old shard').to.equal(undefined);
    expect(b.writeRefusalOfHash(away), 'moved in, b holds its new shard').to.equal(undefined);
    expect(a.writeRefusalOfHash(bOnly), 'never a’s').to.deep.equal({ shard: second.shardOfHash(bOnly), reason: 'moved' });
    // The deadlines pass (a paused process): the drained write is refused naming the old shard, the new owner's too.
    pause(TIMING.renewDeadlineMs);
    expect(a.writeRefusalOfHash(away), 'old shard lapsed').to.deep.equal({ shard: awayOld, reason: 'renew-deadline' });
    expect(b.writeRefusalOfHash(away), 'new shard lapsed').to.deep.equal({ shard: awayNew, reason: 'renew-deadline' });
    pause(-TIMING.renewDeadlineMs);

    // a drained and acked: what moved away is no longer a's to write; b, still draining, writes it by its new shard.
    gates.get('a')!();
    await fake.advance(2 * TIMING.retryPeriodMs);
    expect(leases.leases.get(a.shardLeaseName(awayOld))?.metadata?.annotations?.[SHARD_EPOCH_ANNOTATION]).to.equal('2');
    expect(a.writeRefusalOfHash(away), 'acked').to.deep.equal({ shard: awayNew, reason: 'moved' });
    expect(b.writeRefusalOfHash(away)).to.equal(undefined);
    gates.get('b')!();
    await fake.advance(2 * TIMING.retryPeriodMs);
    expect([a.ownership.settled, b.ownership.settled]).to.deep.equal([true, true]);
    expect(b.writeRefusalOfHash(away), 'settled').to.equal(undefined);
    expect(a.writeRefusalOfHash(away), 'settled').to.deep.equal({ shard: awayNew, reason: 'moved' });
    await Promise.all([a.stop(), b.stop()]);
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
