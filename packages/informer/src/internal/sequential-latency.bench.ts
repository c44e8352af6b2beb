// The measuring loop of the informer benches that time one call after another (request round
// trips, /metrics scrapes): a warm-up, then latencies and this process's CPU per call. Not a
// test and not shipped (the package leaves out *.bench.ts).

/** One measured call: p50 and p99 latency in ms, and this process's CPU in ms per call. */
export interface LatencyRow {
  readonly name: string;
  readonly p50: number;
  readonly p99: number;
  readonly cpuMs: number;
}

/** Calls `call` `warmUp` times (connections, JIT), then `count` times in sequence, timing each. */
export async function measureSequential(
  name: string,
  count: number,
  warmUp: number,
  call: (i: number) => Promise<void>,
): Promise<LatencyRow> {
  for (let i = 0; i < warmUp; i++) await call(i);
  const latencies: number[] = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < count; i++) {
    const t = process.hrtime.bigint();
    await call(i);
    latencies.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  const used = process.cpuUsage(cpu);
  latencies.sort((a, b) => a - b);
  const at = (q: number): number => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!;
  return { name, p50: at(0.5), p99: at(0.99), cpuMs: (used.user + used.system) / 1000 / count };
}
