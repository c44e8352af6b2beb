/**
 * Failover time after SIGKILL of the leader, measured, not asserted: three replica
 * processes under churn; the leader is SIGKILLed, the time to the new leader's first reconcile
 * (from the reconcilers' own records) is taken, a replacement replica joins, and again.
 *
 *   cd integration-tests && node --import tsx src/failover-benchmark.ts [--kills 10] [--lease-ms 4000]
 *
 * `--lease-ms` sets leaseDuration; renewDeadline and retryPeriod keep client-go's ratios (2/3 and
 * 2/15 of it). KINDEX_APISERVER=real runs it against the real kube-apiserver. Prints one line
 * per kill, then median and max, and the overlaps found in all records (must be 0).
 */
import { startTestApiServer } from '@kindex/testing';
import { ElectionScenario } from './support/election-scenario.js';
import { intervals, overlaps, readRecords, type ReplicaProcess } from './support/replica-process.js';

function argument(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const kills = argument('--kills', 10);
const leaseDurationMs = argument('--lease-ms', 4_000);
const timing = {
  leaseDurationMs,
  renewDeadlineMs: Math.round((leaseDurationMs * 2) / 3),
  retryPeriodMs: Math.round((leaseDurationMs * 2) / 15),
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const server = await startTestApiServer();
const scenario = await ElectionScenario.create(server, { counters: 12, timing, onLost: 'standby' });
const killedAt = new Map<number, number>();
try {
  let next = 0;
  await Promise.all([0, 1, 2].map(() => scenario.spawn(`r${next++}`)));
  scenario.startChurn();
  const failovers: number[] = [];
  for (let k = 1; k <= kills; k++) {
    let leader: ReplicaProcess | undefined;
    for (let waited = 0; leader === undefined; waited += 100) {
      if (waited > 60_000) throw new Error('no leader within 60 s');
      const holder = await scenario.holder();
      leader = scenario.replicas.find((r) => r.running && r.identity === holder && r.leading);
      if (leader === undefined) await sleep(100);
    }
    await sleep(1_000);
    const at = Date.now();
    killedAt.set(leader.pid, at);
    leader.signal('SIGKILL');
    await leader.exited;
    let first: number | undefined;
    for (let waited = 0; first === undefined; waited += 50) {
      if (waited > 60_000) throw new Error('no reconcile within 60 s of the kill');
      const starts = readRecords(scenario.setup.recordsFile).filter((r) => r.type === 'start' && r.at > at && r.pid !== leader.pid);
      if (starts.length > 0) first = Math.min(...starts.map((r) => r.at));
      else await sleep(50);
    }
    failovers.push(first - at);
    console.log(`kill ${k}: ${leader.identity} killed, first reconcile by the new leader after ${first - at} ms`);
    await scenario.spawn(`r${next++}`);
  }
  await scenario.stopChurn();
  const sorted = [...failovers].sort((a, b) => a - b);
  const median =
    sorted.length % 2 === 1 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
  const found = overlaps(intervals(readRecords(scenario.setup.recordsFile), (pid) => killedAt.get(pid) ?? Date.now()));
  console.log(
    `\nfailover after SIGKILL over ${kills} kills (lease ${timing.leaseDurationMs} ms, renew deadline ${timing.renewDeadlineMs} ms, retry ${timing.retryPeriodMs} ms, ${server.flavor} server): median ${median} ms, max ${sorted.at(-1)} ms; overlapping reconciles: ${found.length}`,
  );
  process.exitCode = found.length === 0 ? 0 : 1;
} finally {
  await scenario.stopChurn();
  for (const r of scenario.replicas) if (r.running) r.signal('SIGTERM');
  await Promise.all(scenario.replicas.map((r) => r.exited));
  await server.stop();
}
