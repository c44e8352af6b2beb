import { expect } from 'chai';
import fc from 'fast-check';
import { FakeClock } from '@kindex/core';
import { ShardCoordinator } from '../index.js';
import { MemoryLeases } from './memory-leases.fixture.test.js';
import { replicaActions, type ReplicaAction } from './replica-actions.fixture.test.js';

type Action = ReplicaAction;

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 3, arbitrary: replicaActions.join },
  { weight: 1, arbitrary: replicaActions.leave },
  { weight: 1, arbitrary: replicaActions.kill },
  { weight: 1, arbitrary: replicaActions.partition },
  { weight: 3, arbitrary: replicaActions.wait },
);

const TIMING = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500 } as const;
const STEP_MS = 50;

describe('ShardCoordinator (properties)', function () {
  this.timeout(300_000);

  it('for random joins, leaves, kills and partitions: never two owners of a shard at once, and once settled exactly one live owner per shard, shares balanced', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 8 }), fc.array(action, { minLength: 1, maxLength: 12 }), async (shards, actions) => {
        const clock = new FakeClock(1_000_000);
        const leases = new MemoryLeases();
        let next = 0;
        const live: { id: string; coordinator: ShardCoordinator; cutUntil: number }[] = [];
        const all: ShardCoordinator[] = [];
        const check = (): void => {
          for (let s = 0; s < shards; s++) {
            const owners = all.filter((c) => c.owns(s)).map((c) => c.identity);
            expect(owners.length, `shard ${s} at ${clock.now()}: ${owners.join(', ')}`).to.be.at.most(1);
          }
        };
        const wait = async (ms: number): Promise<void> => {
          for (let t = 0; t < ms; t += STEP_MS) {
            await clock.advance(STEP_MS);
            check();
          }
        };
        const join = async (): Promise<void> => {
          const id = `r${next++}`;
          const replica = { id, coordinator: undefined as unknown as ShardCoordinator, cutUntil: 0 };
          replica.coordinator = new ShardCoordinator({
            group: 'g',
            shards,
            identity: id,
            store: leases.view(() => clock.now() < replica.cutUntil),
            clock,
            ...TIMING,
          });
          live.push(replica);
          all.push(replica.coordinator);
          await replica.coordinator.start();
          check();
        };
        for (const a of actions) {
          if (a.type === 'join') await join();
          else if (a.type === 'wait') await wait(a.ms);
          else if (live.length > 0) {
            const replica = live[a.pick % live.length]!;
            if (a.type === 'partition') replica.cutUntil = clock.now() + a.ms;
            else {
              live.splice(live.indexOf(replica), 1);
              // A killed process owns nothing from then on, but leaves its leases to expire.
              const stopping = replica.coordinator.stop({ release: a.type === 'leave' });
              await clock.advance(0);
              await stopping;
            }
          }
          check();
        }
        if (live.length === 0) await join();
        for (const r of live) r.cutUntil = 0;
        await wait(12 * TIMING.leaseDurationMs);
        const share = Math.ceil(shards / live.length);
        const floor = Math.floor(shards / live.length);
        for (let s = 0; s < shards; s++) {
          const owners = live.filter((r) => r.coordinator.owns(s)).map((r) => r.id);
          expect(owners, `shard ${s} after settling with ${live.length} live`).to.have.length(1);
        }
        // Balanced: every live replica holds floor or ceil of shards/live.
        for (const r of live) expect(r.coordinator.owned().length, r.id).to.be.within(floor, share);
        await Promise.all(live.map((r) => r.coordinator.stop()));
      }),
      { numRuns: 40 },
    );
  });
});
