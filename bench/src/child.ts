// One contender run, in its own process (started by main.ts with --expose-gc): prints one JSON
// line of measurements on stdout.
import { readFileSync } from 'node:fs';
import { cpuSeconds } from './measure/cpu-seconds.js';
import { percentile } from './measure/percentile.js';
import { timedStart } from './measure/timed-start.js';
import type { Contender, ContenderOptions, PrimaryRef } from './contenders/contender.js';
import { NAMESPACE, PRIMARY_API_VERSION, PRIMARY_KIND, SENTINEL } from './fixture/config-map-fixture.js';
import type { ChildParams } from './run-result.js';
import { signalStart } from './server/start-signal.js';

// Loaded on demand: a contender's heap and peak RSS must not include the others' modules.
const factories: Record<string, () => Promise<(options: ContenderOptions) => Contender>> = {
  kindex: async () => (await import('./contenders/kindex-contender.js')).kindexContender,
  'kindex-watch-list': async () => {
    const { kindexContender } = await import('./contenders/kindex-contender.js');
    return (options) => kindexContender(options, 'watch-list');
  },
  'kindex-metadata': async () => (await import('./contenders/kindex-metadata-contender.js')).kindexMetadataContender,
  'kindex-cbor': async () => {
    const { kindexContender } = await import('./contenders/kindex-contender.js');
    return (options) => kindexContender(options, 'list', undefined, 'cbor');
  },
  'client-node': async () => (await import('./contenders/client-node-contender.js')).clientNodeContender,
  limit: async () => (await import('./contenders/limit-contender.js')).limitContender,
};

function gc(): void {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (collect === undefined) throw new Error('run with --expose-gc');
  for (let i = 0; i < 4; i++) collect();
}

function vmHwmBytes(): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return match === null ? 0 : Number(match[1]) * 1024;
}

async function main(): Promise<void> {
  const params = JSON.parse(process.argv[2]!) as ChildParams;
  if (params.mode === 'restart') {
    const result = await (await import('./restart/run-restart.js')).runRestart(params);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    process.exit(0);
  }
  if (params.mode === 'e2e') {
    const result = await (await import('./e2e/run-e2e.js')).runE2e(params);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    process.exit(0);
  }
  const factory = factories[params.contender];
  if (factory === undefined) throw new Error(`unknown contender ${params.contender}`);
  const contender = (await factory())({ kubeconfigPath: params.kubeconfigPath, namespace: NAMESPACE });
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const result = await timedStart(contender, params);

  if (params.mode === 'sync') {
    result.peakRssBytes = vmHwmBytes();
    gc();
    result.retainedHeapBytes = process.memoryUsage().heapUsed - heapBefore;
    const lookup = contender.lookup;
    if (lookup !== undefined) {
      let seed = 42;
      const primaries: PrimaryRef[] = [];
      for (let i = 0; i < params.lookups; i++) {
        seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
        primaries.push({
          apiVersion: PRIMARY_API_VERSION,
          kind: PRIMARY_KIND,
          metadata: { name: `cluster-${seed % params.primaries}`, namespace: NAMESPACE },
        });
      }
      for (let i = 0; i < Math.min(1000, primaries.length); i++) lookup(primaries[i]!);
      const latencies = new Float64Array(primaries.length);
      let found = 0;
      for (let i = 0; i < primaries.length; i++) {
        const start = process.hrtime.bigint();
        found += lookup(primaries[i]!);
        latencies[i] = Number(process.hrtime.bigint() - start) / 1000;
      }
      const sorted = Array.from(latencies).sort((a, b) => a - b);
      result.lookupP50Us = percentile(sorted, 0.5);
      result.lookupP99Us = percentile(sorted, 0.99);
      result.lookupFound = found;
    }
  } else if (params.mode === 'watch') {
    let count = 0;
    const done = new Promise<void>((resolve) => {
      contender.onEvent(() => {
        if (++count === params.events) resolve();
      });
    });
    const t1 = performance.now();
    const cpu1 = cpuSeconds();
    await signalStart(params.kubeconfigPath);
    await done;
    const seconds = (performance.now() - t1) / 1000;
    result.events = params.events;
    result.watchS = seconds;
    result.eventsPerS = params.events / seconds;
    result.cpuSPer1000 = ((cpuSeconds() - cpu1) / params.events) * 1000;
  } else {
    let count = 0;
    await new Promise<void>((resolve) => {
      contender.onEvent((name) => {
        count++;
        if (name === SENTINEL) resolve();
      });
    });
    result.eventsAfterRelist = count - 1;
  }
  await contender.stop();
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
