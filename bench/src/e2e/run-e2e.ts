import type { ChildParams, RunResult } from '../run-result.js';
import { cpuSeconds } from '../measure/cpu-seconds.js';
import { percentile } from '../measure/percentile.js';
import { timedStart } from '../measure/timed-start.js';
import { NAMESPACE } from '../fixture/config-map-fixture.js';
import { signalStart } from '../server/start-signal.js';
import type { E2eContender, E2eContenderOptions } from './e2e-contender.js';
import { LatencyRecorder } from './latency-recorder.js';

// Loaded on demand: a contender's process must not load the others' modules.
const factories: Record<string, () => Promise<(options: E2eContenderOptions) => E2eContender>> = {
  kindex: async () => (await import('./kindex-operator-contender.js')).kindexOperatorContender,
  'kindex-inspection': async () => {
    const { kindexOperatorContender } = await import('./kindex-operator-contender.js');
    return (options) => kindexOperatorContender(options, true);
  },
  'client-node': async () => (await import('./client-node-queue-contender.js')).clientNodeQueueContender,
};

/** The process's CPU seconds when a given reconcile started, and the newest event seen then. */
interface CpuMark {
  cpu: number;
  seq: number;
}

/** Contenders that have an end-to-end implementation in Node. */
export const E2E_NODE_CONTENDERS: readonly string[] = Object.keys(factories);

/**
 * One end-to-end run in this child process: sync, wait for the initial reconciles of the list,
 * start the paced events, and record event-to-reconcile-start latency until the reconcile of the
 * last event started.
 */
export async function runE2e(params: ChildParams): Promise<RunResult> {
  const factory = factories[params.contender];
  if (factory === undefined) throw new Error(`no end-to-end contender ${params.contender}`);
  const recorder = new LatencyRecorder(params.events - 1);
  const contender = (await factory())({ kubeconfigPath: params.kubeconfigPath, namespace: NAMESPACE, reconcile: recorder.record });
  const result = await timedStart(contender, params);
  // The list's own reconciles must be over before the clock starts, or they queue ahead of events.
  await recorder.when(() => recorder.initial >= params.objects, 120_000, `${params.objects} initial reconciles`);
  const rate = params.rate ?? 1000;
  const runTimeoutMs = 60_000 + (params.events / rate) * 3000;
  const cpu1 = cpuSeconds();
  // After warm-up, as the p99: from reconcile number events / 5 (read a microtask after it started:
  // the recorder resolves its waiters synchronously), per event sent after the newest one seen then.
  // The p99 cuts at a fifth of the reconciles, known only at the end; the two are one reconcile
  // unless events coalesce, which none did at the bench's rates (reconciles = events). The second
  // half the same from reconcile number events / 2: on a long run, the steady state alone (a
  // contender with more code on its path compiles it over more of the run's first seconds).
  const markAt = (reconciles: number, what: string): CpuMark => {
    const mark = { cpu: Number.NaN, seq: -1 };
    void recorder
      .when(() => recorder.latenciesUs.length >= reconciles, runTimeoutMs, what)
      .then(() => ((mark.cpu = cpuSeconds()), (mark.seq = recorder.lastSeenSeq)))
      .catch(() => undefined);
    return mark;
  };
  const warmMark = markAt(Math.max(1, Math.floor(params.events / 5)), 'the end of warm-up');
  const halfMark = markAt(Math.max(1, Math.floor(params.events / 2)), 'the second half');
  await signalStart(params.kubeconfigPath);
  await recorder.when(() => recorder.lastSeen, runTimeoutMs, 'the reconcile of the last event');
  const cpuEnd = cpuSeconds();
  const cpu = cpuEnd - cpu1;
  await contender.stop();
  const sorted = [...recorder.latenciesUs].sort((a, b) => a - b);
  const warmLatencies = recorder.latenciesUs.slice(Math.floor(recorder.latenciesUs.length / 5)).sort((a, b) => a - b);
  result.events = params.events;
  result.reconciles = sorted.length;
  result.latencyP50Ms = percentile(sorted, 0.5) / 1000;
  result.latencyP99Ms = percentile(sorted, 0.99) / 1000;
  result.latencyP99WarmMs = percentile(warmLatencies, 0.99) / 1000;
  result.latencyMaxMs = (sorted[sorted.length - 1] ?? 0) / 1000;
  result.cpuSPer1000 = (cpu / params.events) * 1000;
  // Per event sent after the newest one the mark saw; no figure when the mark never came.
  const perThousandSince = (mark: CpuMark): number | undefined => {
    const events = mark.seq < 0 ? 0 : params.events - 1 - mark.seq;
    return events > 0 ? ((cpuEnd - mark.cpu) / events) * 1000 : undefined;
  };
  const warm = perThousandSince(warmMark);
  if (warm !== undefined) result.cpuSPer1000Warm = warm;
  const secondHalf = perThousandSince(halfMark);
  if (secondHalf !== undefined) result.cpuSPer1000SecondHalf = secondHalf;
  return result;
}
