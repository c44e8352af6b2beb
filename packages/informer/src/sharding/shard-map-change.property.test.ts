import { expect } from 'chai';
import fc from 'fast-check';
import { FakeClock, ShardMap, type ShardMap as ShardMapType } from '@kindex/core';
import { fnv1a64Hex } from '@kindex/core/internal';
import { ShardCoordinator } from '../index.js';
import { MemoryLeases } from './memory-leases.fixture.test.js';
import { replicaActions, type ReplicaAction } from './replica-actions.fixture.test.js';

type Action =
  | ReplicaAction
  | { readonly type: 'add'; readonly prefix: string; readonly count: number }
  | { readonly type: 'remove'; readonly pick: number; readonly count: number }
  | { readonly type: 'hang'; readonly pick: number; readonly ms: number };

const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 2, arbitrary: replicaActions.join },
  { weight: 1, arbitrary: replicaActions.leave },
  { weight: 1, arbitrary: replicaActions.kill },
  { weight: 1, arbitrary: replicaActions.partition },
  // The server stops answering one replica: its lease calls hang, then land late (a paused round).
  { weight: 1, arbitrary: fc.record({ type: fc.constant('hang' as const), pick: fc.nat(), ms: fc.integer({ min: 500, max: 8000 }) }) },
  // Namespaces come (sequential names, which pile into few equal slices) and go.
  {
    weight: 3,
    arbitrary: fc.record({
      type: fc.constant('add' as const),
      prefix: fc.constantFrom('team-', 'acc-sh-', 'x', 'prod-eu-'),
      count: fc.integer({ min: 1, max: 20 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('remove' as const), pick: fc.nat(), count: fc.integer({ min: 1, max: 10 }) }) },
  { weight: 3, arbitrary: replicaActions.wait },
);

const TIMING = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 500 } as const;
const STEP_MS = 50;

/** A replica: a coordinator and the reconciles it runs (namespace → end time), which start whenever ownsValue says so. */
interface Replica {
  readonly id: string;
  coordinator: ShardCoordinator;
  cutUntil: number;
  hangUntil: number;
  /** Lease calls waiting for `hangUntil`. */
  readonly hung: (() => void)[];
  readonly running: Map<string, number>;
  /** Drains the coordinator waits for: resolved once no running reconcile matches. */
  readonly drains: { readonly matches: (ns: string) => boolean; readonly resolve: () => void }[];
}

describe('ShardCoordinator map changes (properties)', function () {
  this.timeout(600_000);
  // RUNS=400 in the environment for a longer soak; 100 by default.
  const RUNS = Number(process.env['RUNS'] ?? 100);
  let runsWithMapChanges = 0;

  it('as namespaces come and go and replicas join, leave, die and get cut off: never two replicas reconciling one namespace at once, and once settled one live owner per namespace on a map within the load bound', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 0, max: 30 }),
        fc.array(action, { minLength: 1, maxLength: 14 }),
        async (shards, initial, actions) => {
          const clock = new FakeClock(1_000_000);
          const leases = new MemoryLeases();
          const present = new Set(Array.from({ length: initial }, (_, i) => `team-${i + 1}`));
          let nextName = 0;
          let next = 0;
          const live: Replica[] = [];
          const all: Replica[] = [];
          let mapChanges = 0;
          // How long a reconcile of a namespace runs: 100 to 1300 ms, longer than a round, so map changes land mid-reconcile.
          const duration = (ns: string): number => 100 + (parseInt(fnv1a64Hex(ns).slice(0, 4), 16) % 1200);

          const settleDrains = (r: Replica): void => {
            for (const d of [...r.drains]) {
              if ([...r.running.keys()].some(d.matches)) continue;
              r.drains.splice(r.drains.indexOf(d), 1);
              d.resolve();
            }
          };
          const step = (): void => {
            const now = clock.now();
            for (const r of all) if (now >= r.hangUntil) for (const resume of r.hung.splice(0)) resume();
            for (const r of live) {
              for (const [ns, end] of r.running) if (end <= now) r.running.delete(ns);
              settleDrains(r);
              for (const ns of present) {
                if (!r.running.has(ns) && r.coordinator.ownsValue(ns)) r.running.set(ns, now + duration(ns));
              }
            }
            for (const ns of present) {
              const reconciling = all.filter((r) => r.running.has(ns)).map((r) => r.id);
              expect(reconciling.length, `${ns} at ${now}: reconciled by ${reconciling.join(', ')}`).to.be.at.most(1);
            }
          };
          const wait = async (ms: number): Promise<void> => {
            for (let t = 0; t < ms; t += STEP_MS) {
              await clock.advance(STEP_MS);
              step();
            }
          };
          const drain = (r: Replica, matches: (ns: string) => boolean): Promise<void> =>
            new Promise((resolve) => {
              r.drains.push({ matches, resolve });
              settleDrains(r);
            });
          const join = async (): Promise<void> => {
            const r: Replica = {
              id: `r${next++}`,
              coordinator: undefined as unknown as ShardCoordinator,
              cutUntil: 0,
              hangUntil: 0,
              hung: [],
              running: new Map(),
              drains: [],
            };
            const hash = (ns: string): string => fnv1a64Hex(ns);
            r.coordinator = new ShardCoordinator({
              group: 'g',
              shards,
              identity: r.id,
              store: leases.view(
                () => clock.now() < r.cutUntil,
                () => (clock.now() < r.hangUntil ? new Promise<void>((resolve) => r.hung.push(resolve)) : Promise.resolve()),
              ),
              clock,
              ...TIMING,
              population: () => Promise.resolve([...present]),
              onRelease: (shard) => drain(r, (ns) => r.coordinator.belongsTo(hash(ns), shard)),
              onMapChange: (previous: ShardMapType, nextMap: ShardMapType) => {
                mapChanges++;
                return drain(r, (ns) => previous.shardOfValue(ns) !== nextMap.shardOfValue(ns));
              },
            });
            // A lost shard's reconciles are aborted at once (their writes fenced): they stop counting.
            r.coordinator.lost$.subscribe(({ shard }) => {
              for (const ns of [...r.running.keys()]) if (r.coordinator.belongsTo(hash(ns), shard)) r.running.delete(ns);
            });
            live.push(r);
            all.push(r);
            await r.coordinator.start();
            step();
          };
          const stop = async (r: Replica, release: boolean): Promise<void> => {
            live.splice(live.indexOf(r), 1);
            // Leaving: the operator drains its reconciles before the coordinator lets go. Dying: they die with it.
            r.running.clear();
            settleDrains(r);
            r.hangUntil = 0;
            for (const resume of r.hung.splice(0)) resume();
            const stopping = r.coordinator.stop({ release });
            await clock.advance(0);
            await stopping;
          };

          for (const a of actions) {
            if (a.type === 'join') await join();
            else if (a.type === 'wait') await wait(a.ms);
            else if (a.type === 'add') for (let i = 0; i < a.count; i++) present.add(`${a.prefix}${nextName++}`);
            else if (a.type === 'remove') {
              const names = [...present];
              for (let i = 0; i < a.count && names.length > 0; i++) present.delete(names.splice(a.pick % names.length, 1)[0]!);
            } else if (live.length > 0) {
              const r = live[a.pick % live.length]!;
              if (a.type === 'partition') r.cutUntil = clock.now() + a.ms;
              else if (a.type === 'hang') r.hangUntil = clock.now() + a.ms;
              else await stop(r, a.type === 'leave');
            }
            step();
          }
          if (live.length === 0) await join();
          for (const r of live) {
            r.cutUntil = 0;
            r.hangUntil = 0;
          }
          await wait(16 * TIMING.leaseDurationMs);

          const epochs = new Set(live.map((r) => r.coordinator.map.epoch));
          expect([...epochs], 'one map for all').to.have.length(1);
          const map: ShardMap = live[0]!.coordinator.map;
          if (present.size > 0) {
            expect(map.epoch, 'a balanced map was published').to.be.at.least(1);
            const loads = map.loads(present);
            expect(Math.max(...loads), `loads ${loads.join(',')}`).to.be.at.most(ShardMap.loadBound(present.size, shards));
          }
          for (const ns of present) {
            const owners = live.filter((r) => r.coordinator.ownsValue(ns)).map((r) => r.id);
            expect(owners, `${ns} after settling`).to.have.length(1);
          }
          for (const r of live) expect(r.coordinator.ownership.settled, r.id).to.equal(true);
          await Promise.all(live.map((r) => r.coordinator.stop()));
          if (mapChanges > 0) runsWithMapChanges++;
        },
      ),
      { numRuns: RUNS },
    );
    // The property says something only if maps changed under load in many runs.
    expect(runsWithMapChanges, 'runs in which a replica switched maps').to.be.at.least(RUNS / 2);
  });
});
