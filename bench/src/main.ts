// The benchmark orchestrator (`pnpm bench`): serves the same bytes to each contender in turn, each
// in its own child process, repeats, takes medians, prints markdown tables and writes them with
// SVG charts to bench/results/.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, homedir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  changedObjectsChunk,
  expiredLine,
  ListFixture,
  objectJsonBytes,
  primaryCount,
  sentinelLine,
  watchChunks,
} from './fixture/config-map-fixture.js';
import { E2E_NODE_CONTENDERS } from './e2e/run-e2e.js';
import { RESTART_CONTENDERS } from './restart/restart-contenders.js';
import { checkRatios, readBounds } from './check/ratio-check.js';
import { markdownTable } from './report/markdown-table.js';
import { svgBarChart, type BarGroup } from './report/svg-bar-chart.js';
import type { ChildParams, RunResult } from './run-result.js';
import { StreamServer, type CborFixture, type ProtobufFixture, type WatchScript } from './server/stream-server.js';
import { kubeCbor, kubeCborWatch } from './fixture/kube-cbor-fixture.js';
import { contenderNode, nodeVersion } from './node-runtime.js';

interface Settings {
  sizes: number[];
  watchObjects: number;
  events: number;
  relistObjects: number;
  e2eRate: number;
  e2eSeconds: number;
  e2eObjects: number;
  /** The highest rate the e2e-max search tries (events/s). */
  e2eMaxTop: number;
  /** Restart scenario: primaries listed, of them changed during the initial wave, ms of work per reconcile. */
  restartObjects: number;
  restartChanges: number;
  restartWorkMs: number;
  /** Primaries of the scale-out scenario (`shards`). */
  shardObjects: number;
  /** Requests per row of the admission webhook scenario (`webhooks`). */
  webhookRequests: number;
  roundTrips: number;
  /** Scrapes per row of the secure metrics scenario (`scrapes`). */
  scrapes: number;
  /** Secondary changes per server of the remote-secondary scenario (`remote`). */
  remoteEvents: number;
  reps: number;
  lookups: number;
  contenders: string[];
  scenarios: string[];
  /** Compare kindex's ratios with quick-thresholds.json and fail on a regression; writes no results. */
  check: boolean;
  /** The Node binary of the JS contenders (`--node`): this process's by default. */
  node: string;
}

const distDir = fileURLToPath(new URL('.', import.meta.url));
const benchDir = join(distDir, '..');
const resultsDir = join(benchDir, 'results');
/** The end-to-end run's length unless told (s): its tables are `e2e-latency.*`, another length's `e2e-latency-<s>s.*`. */
const E2E_DEFAULT_SECONDS = 10;
// One binary per checkout: worktrees building their own Go contender at once must not overwrite each other's mid-run.
const goBinary = join(
  homedir(),
  '.cache',
  'kindex',
  'bench',
  `kindex-bench-client-go-${createHash('sha256').update(benchDir).digest('hex').slice(0, 8)}`,
);
const ALL_CONTENDERS = [
  'kindex',
  'kindex-watch-list',
  'kindex-metadata',
  'kindex-cbor',
  'client-node',
  'limit',
  'client-go',
  'client-go-watch-list',
  'client-go-pb',
  'client-go-metadata',
];
/**
 * The Go contenders: client-go reading JSON (paged list, then watch), the same binary reading
 * protobuf (sync and watch only), reading JSON by watch-list (client feature WatchListClient), and
 * a metadata informer.
 */
const GO_CONTENDERS = ['client-go', 'client-go-pb', 'client-go-watch-list', 'client-go-metadata'];
/** The watch-list rows differ from their list rows only until synced: the sync scenario alone runs them. */
const SYNC_ONLY_CONTENDERS = new Set(['kindex-watch-list', 'client-go-watch-list']);
/** Contenders of another wire format than JSON: sync and watch only, where the format changes the work. */
const WIRE_CONTENDERS = new Set(['client-go-pb', 'kindex-cbor']);

function parseSettings(argv: readonly string[]): Settings {
  const flags = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) continue;
    const [name, inline] = arg.slice(2).split('=', 2) as [string, string | undefined];
    if (inline !== undefined) flags.set(name, inline);
    else if (argv[i + 1] !== undefined && !argv[i + 1]!.startsWith('--')) flags.set(name, argv[++i]!);
    else flags.set(name, 'true');
  }
  const check = flags.has('check');
  const quick = check || flags.has('quick') || process.env.BENCH_QUICK === '1';
  const num = (name: string, fallback: number): number =>
    Number(flags.get(name) ?? process.env[`BENCH_${name.toUpperCase().replace(/-/g, '_')}`] ?? fallback);
  const list = (name: string, fallback: string): string[] => (flags.get(name) ?? fallback).split(',').filter((s) => s !== '');
  return {
    sizes: list('sizes', check ? '20000' : quick ? '1000,10000' : '1000,10000,100000').map(Number),
    watchObjects: num('watch-objects', check ? 10_000 : quick ? 2000 : 10_000),
    events: num('events', check ? 100_000 : quick ? 20_000 : 100_000),
    relistObjects: num('relist-objects', quick ? 10_000 : 100_000),
    e2eRate: num('e2e-rate', 1000),
    e2eSeconds: num('e2e-seconds', quick ? 3 : E2E_DEFAULT_SECONDS),
    e2eObjects: num('e2e-objects', 1000),
    e2eMaxTop: num('e2e-max-top', 512_000),
    shardObjects: num('shard-objects', 2000),
    webhookRequests: num('webhook-requests', quick ? 500 : 2000),
    roundTrips: num('round-trips', quick ? 300 : 1000),
    scrapes: num('scrapes', quick ? 500 : 2000),
    remoteEvents: num('remote-events', quick ? 400 : 2000),
    restartObjects: num('restart-objects', quick ? 10_000 : 100_000),
    restartChanges: num('restart-changes', 100),
    restartWorkMs: num('restart-work-ms', 1),
    reps: num('reps', check ? 3 : quick ? 1 : 3),
    lookups: num('lookups', 20_000),
    contenders: list('contenders', check ? 'kindex,kindex-metadata,client-node,limit' : ALL_CONTENDERS.join(',')),
    scenarios: list('scenarios', check ? 'sync,watch,e2e' : 'sync,watch,relist'),
    check,
    node: contenderNode(flags.get('node') ?? process.env.BENCH_NODE),
  };
}

/**
 * One of the informer package's own benches (a script printing a markdown table), on the
 * embedded server and then on the real kube-apiserver when it is built (that row is skipped,
 * with a warning, when it is not).
 */
function informerBenchOnBothServers(scenario: string, script: string, args: readonly string[]): string[] {
  const cwd = join(benchDir, '..', 'packages', 'informer');
  const tables: string[] = [];
  for (const flavor of ['embedded', 'real']) {
    console.error(`  ${scenario}: through the ${flavor} API server`);
    try {
      tables.push(
        execFileSync(process.execPath, ['--import', 'tsx', script, ...args, flavor], {
          cwd,
          encoding: 'utf8',
          maxBuffer: 16 * 2 ** 20,
        }).trim(),
      );
    } catch (error) {
      if (flavor === 'embedded') throw error;
      console.warn(
        `${scenario}: the real kube-apiserver row skipped (${String(error).split('\n')[0]}); build it with scripts/real-apiserver/build.sh`,
      );
    }
  }
  return tables;
}

function buildGo(): boolean {
  try {
    execFileSync('nice', ['-n', '19', 'go', 'build', '-o', goBinary, '.'], { cwd: join(benchDir, 'client-go'), stdio: 'inherit' });
    return true;
  } catch (error) {
    console.warn(`client-go contender skipped: go build failed (${String(error)})`);
    return false;
  }
}

/** Converts JSON fixture bytes to protobuf with the Go contender's converter (`client-go/protobuf.go`). */
function toProtobuf(mode: 'convert-list' | 'convert-events', json: Buffer): Buffer {
  return execFileSync(goBinary, [`-mode=${mode}`], { input: json, maxBuffer: 2 ** 31 - 1 });
}

/** The protobuf fixture of a scenario, when the protobuf contender runs it. */
function protobufFixture(contenders: readonly string[], list: ListFixture, watch: WatchScript): ProtobufFixture {
  if (!contenders.includes('client-go-pb')) return {};
  const frames = watch.type === 'stream' && watch.chunks.length > 0 ? toProtobuf('convert-events', Buffer.concat(watch.chunks)) : undefined;
  const slices: Buffer[] = [];
  if (frames !== undefined) for (let at = 0; at < frames.length; at += 1 << 20) slices.push(frames.subarray(at, at + (1 << 20)));
  return {
    ...(list.sendableWhole ? { list: toProtobuf('convert-list', list.whole()) } : {}),
    ...(frames !== undefined ? { watch: slices } : {}),
  };
}

/** The CBOR fixture of a scenario, when the CBOR contender runs it. */
function cborFixture(contenders: readonly string[], list: ListFixture, watch: WatchScript): CborFixture {
  if (!contenders.includes('kindex-cbor')) return {};
  return {
    ...(list.sendableWhole ? { list: kubeCbor(JSON.parse(list.whole().toString('utf8'))) } : {}),
    ...(watch.type === 'stream' && watch.chunks.length > 0 ? { watch: kubeCborWatch(watch.chunks) } : {}),
  };
}

function runChild(params: ChildParams, node: string): Promise<RunResult> {
  const [command, args, env] = GO_CONTENDERS.includes(params.contender)
    ? [
        goBinary,
        [
          `-kubeconfig=${params.kubeconfigPath}`,
          `-mode=${params.mode}`,
          `-objects=${params.objects}`,
          `-events=${params.events}`,
          `-lookups=${params.lookups}`,
          `-primaries=${params.primaries}`,
          ...(params.contender === 'client-go-pb' ? ['-protobuf'] : []),
          ...(params.contender === 'client-go-metadata' ? ['-metadata'] : []),
        ],
        // client-go's watch-list (sendInitialEvents, on by default since v0.35) only for its watch-list row.
        { ...process.env, KUBE_FEATURE_WatchListClient: String(params.contender === 'client-go-watch-list') },
      ]
    : [
        node,
        [
          '--expose-gc',
          '--max-old-space-size=6144',
          // Profiling aid: BENCH_CHILD_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' profiles each contender's process.
          ...(process.env.BENCH_CHILD_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
          '--import',
          join(distDir, 'register-dist.js'),
          join(distDir, 'child.js'),
          JSON.stringify(params),
        ],
        process.env,
      ];
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (out += text));
    const timer = setTimeout(() => child.kill('SIGKILL'), 600_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      // The last line carrying a result: a contender's own output (an Operator logging at info) may come after it.
      const line =
        out
          .trim()
          .split('\n')
          .findLast((l) => l.includes('"syncMs":')) ?? '';
      if (code !== 0 || line === '') reject(new Error(`${params.contender} ${params.mode} exited with ${code}: ${out}`));
      else resolve(JSON.parse(line) as RunResult);
    });
  });
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A contender's medians by figure. */
type ContenderMedians = Map<keyof RunResult, number>;
type Medians = Map<string, ContenderMedians>;

async function measure(
  settings: Settings,
  mode: ChildParams['mode'],
  objects: number,
  events: number,
  watch: WatchScript,
  contenders = settings.contenders,
): Promise<Medians> {
  const list = new ListFixture(objects);
  const server = await StreamServer.start(list, watch, protobufFixture(contenders, list, watch), cborFixture(contenders, list, watch));
  // Metadata-only bodies converted before any clock runs, as the protobuf ones are.
  if (contenders.some((c) => c.endsWith('-metadata'))) server.prepareMetadata();
  const runs = new Map<string, RunResult[]>();
  try {
    for (let rep = 0; rep < settings.reps; rep++) {
      for (const contender of contenders) {
        server.reset();
        const params: ChildParams = {
          contender,
          mode,
          kubeconfigPath: server.kubeconfigPath,
          objects,
          primaries: primaryCount(objects),
          events,
          lookups: settings.lookups,
          ...(watch.type === 'paced' ? { rate: watch.rate } : {}),
          ...(mode === 'restart' ? { reconcileWorkMs: settings.restartWorkMs } : {}),
        };
        const result = await runChild(params, settings.node);
        const t = server.timings;
        if (mode === 'relist' && t.rewatchAt !== undefined) {
          if (t.relistAt !== undefined) result.relistMs = t.rewatchAt - t.relistAt;
          if (t.expiredAt !== undefined) result.recoveryMs = t.rewatchAt - t.expiredAt;
        }
        if (mode === 'e2e') {
          // First event written at 0 ms, the last one at pacedMs: sent - 1 intervals.
          if (t.pacedSent !== undefined && t.pacedMs !== undefined && t.pacedMs > 0)
            result.sentPerS = ((t.pacedSent - 1) / t.pacedMs) * 1000;
          result.writeRequests = t.writeRequests;
        }
        if (result.kindexModule !== undefined && !result.kindexModule.includes('/dist/'))
          throw new Error(`kindex ran from ${result.kindexModule}, not dist/`);
        process.stderr.write(`  ${mode} n=${objects} rep ${rep + 1}/${settings.reps} ${contender}: ${summary(result)}\n`);
        runs.set(contender, [...(runs.get(contender) ?? []), result]);
      }
    }
  } finally {
    await server.close();
  }
  const medians: Medians = new Map();
  for (const [contender, results] of runs) {
    const m = new Map<keyof RunResult, number>();
    for (const key of Object.keys(results[0]!) as (keyof RunResult)[]) {
      const values = results.map((r) => r[key]).filter((v): v is number => typeof v === 'number');
      if (values.length > 0) m.set(key, median(values));
    }
    medians.set(contender, m);
  }
  return medians;
}

function summary(r: RunResult): string {
  const parts = [`sync ${r.syncMs.toFixed(0)} ms`];
  if (r.retainedHeapBytes !== undefined) parts.push(`heap ${(r.retainedHeapBytes / 2 ** 20).toFixed(1)} MiB`);
  if (r.lookupP99Us !== undefined) parts.push(`lookup p99 ${r.lookupP99Us.toFixed(2)} µs`);
  if (r.eventsPerS !== undefined) parts.push(`${Math.round(r.eventsPerS)} events/s`);
  if (r.latencyP99Ms !== undefined)
    parts.push(
      `latency p50 ${r.latencyP50Ms?.toFixed(2)} ms p99 ${r.latencyP99Ms.toFixed(2)} ms, ${r.reconciles} reconciles, ${Math.round(r.sentPerS ?? 0)} events/s sent, ${r.writeRequests} writes`,
    );
  if (r.changedReconciledMs !== undefined)
    parts.push(
      `${r.events} changed reconciled after ${r.changedReconciledMs.toFixed(0)} ms, ${r.unchangedBefore} unchanged before, wave ${r.waveMs?.toFixed(0)} ms`,
    );
  if (r.eventsAfterRelist !== undefined) parts.push(`${r.eventsAfterRelist} events after relist, relist ${r.relistMs?.toFixed(0)} ms`);
  return parts.join(', ');
}

/** client-go reads built-in kinds as protobuf from a real kube-apiserver: both rows are shown. */
const DISPLAY_NAMES: Record<string, string> = {
  'client-go': 'client-go (JSON)',
  'client-go-pb': 'client-go (protobuf)',
  'client-go-watch-list': 'client-go (watch-list)',
  'kindex-watch-list': 'kindex (watch-list)',
  'client-go-metadata': 'client-go (metadata)',
  'kindex-metadata': 'kindex (metadata)',
  'kindex-cbor': 'kindex (CBOR)',
  'kindex-inspection': 'kindex (inspection on)',
};
const displayName = (contender: string): string => DISPLAY_NAMES[contender] ?? contender;

const fmt = (v: number | undefined, digits = 0): string =>
  v === undefined ? '—' : v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const ratio = (v: number | undefined, base: number | undefined): string =>
  v === undefined || base === undefined || base === 0 ? '—' : `${(v / base).toFixed(2)}x`;
/** A figure for the CI gate: `of`'s median of `key` over `base`'s; NaN when either did not run, which the gate reports as not measured. */
const gateFigure = (of: ContenderMedians | undefined, base: ContenderMedians | undefined, key: keyof RunResult): number =>
  (of?.get(key) ?? NaN) / (base?.get(key) ?? NaN);

interface Section {
  readonly name: string;
  readonly markdown: string;
  readonly svg?: string;
}

function write(section: Section): void {
  writeFileSync(join(resultsDir, `${section.name}.md`), `${section.markdown}\n`);
  if (section.svg !== undefined) writeFileSync(join(resultsDir, `${section.name}.svg`), section.svg);
}

function groups(bySize: ReadonlyMap<number, Medians>, key: keyof RunResult, scale = 1): BarGroup[] {
  return [...bySize].map(([size, medians]) => ({
    label: `${size.toLocaleString('en-US')} objects`,
    values: new Map([...medians].flatMap(([c, m]) => (m.get(key) === undefined ? [] : [[c, m.get(key)! * scale] as [string, number]]))),
  }));
}

async function main(): Promise<void> {
  const settings = parseSettings(process.argv.slice(2));
  if (settings.contenders.some((c) => GO_CONTENDERS.includes(c)) && !buildGo())
    settings.contenders = settings.contenders.filter((c) => !GO_CONTENDERS.includes(c));
  mkdirSync(resultsDir, { recursive: true });
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${nodeVersion(settings.node)}${settings.node === process.execPath ? '' : ' (contenders; --node)'}, ${goVersion()}; shared with other work, so compare ratios within one run`;
  const sections: Section[] = [];
  // kindex's ratios to the baselines of this run, for --check.
  const figures = new Map<string, number>();
  console.error(`kindex bench: ${JSON.stringify(settings)}\n${machine}`);
  const series = settings.contenders;

  if (settings.scenarios.includes('sync')) {
    const bySize = new Map<number, Medians>();
    for (const size of settings.sizes) bySize.set(size, await measure(settings, 'sync', size, 0, { type: 'stream', chunks: [] }));
    const syncRows: string[][] = [];
    const memRows: string[][] = [];
    const lookupRows: string[][] = [];
    for (const [size, medians] of bySize) {
      const jsonBytes = objectJsonBytes(size);
      const k = medians.get('kindex');
      const l = medians.get('limit');
      for (const [c, m] of medians) {
        syncRows.push([
          size.toLocaleString('en-US'),
          displayName(c),
          fmt(m.get('syncMs')),
          ratio(m.get('syncMs'), k?.get('syncMs')),
          ratio(m.get('syncMs'), l?.get('syncMs')),
          fmt(m.get('syncCpuS'), 2),
          fmt((m.get('peakRssBytes') ?? 0) / 2 ** 20),
        ]);
        const perObject = (m.get('retainedHeapBytes') ?? 0) / size;
        memRows.push([
          size.toLocaleString('en-US'),
          displayName(c),
          fmt(perObject),
          fmt(jsonBytes),
          `${(perObject / jsonBytes).toFixed(2)}x`,
          ratio(perObject, (k?.get('retainedHeapBytes') ?? 0) / size),
          ratio(perObject, (l?.get('retainedHeapBytes') ?? 0) / size),
        ]);
        if (m.has('lookupP99Us'))
          lookupRows.push([
            size.toLocaleString('en-US'),
            displayName(c),
            fmt(m.get('lookupP50Us'), 2),
            fmt(m.get('lookupP99Us'), 2),
            ratio(m.get('lookupP99Us'), k?.get('lookupP99Us')),
            fmt((m.get('lookupFound') ?? 0) / settings.lookups, 1),
          ]);
      }
    }
    const [largest, atLargest] = [...bySize].at(-1)!;
    const kindexAt = atLargest.get('kindex');
    const limitAt = atLargest.get('limit');
    const clientNodeAt = atLargest.get('client-node');
    figures.set('sync.kindexVsLimit', gateFigure(kindexAt, limitAt, 'syncMs'));
    figures.set('memory.kindexVsLimit', gateFigure(kindexAt, limitAt, 'retainedHeapBytes'));
    figures.set('lookupP50.kindexVsClientNode', gateFigure(kindexAt, clientNodeAt, 'lookupP50Us'));
    const metadataAt = atLargest.get('kindex-metadata');
    if (metadataAt !== undefined) {
      // Against the limit's whole objects: what a metadata-only cache saves over caching them.
      figures.set('memory.kindexMetadataVsLimit', gateFigure(metadataAt, limitAt, 'retainedHeapBytes'));
    }
    console.error(`ratios at ${largest} objects: ${JSON.stringify(Object.fromEntries(figures))}`);
    sections.push({
      name: 'initial-sync',
      markdown: `### Initial sync: list and index N objects (median of ${settings.reps})\n\n${markdownTable(['objects', 'contender', 'wall ms', 'vs kindex', 'vs limit', 'CPU s', 'peak RSS MiB'], syncRows)}`,
      svg: svgBarChart('Initial sync: list + index', 'wall time, ms (lower is better)', series, groups(bySize, 'syncMs')),
    });
    sections.push({
      name: 'memory',
      markdown: `### Memory: retained heap per cached object after GC (median of ${settings.reps})\n\n${markdownTable(['objects', 'contender', 'bytes/object', 'JSON bytes/object', 'vs JSON', 'vs kindex', 'vs limit'], memRows)}\n\nclient-go's figure is Go heap (runtime.MemStats.HeapAlloc) after GC; the others are V8 heapUsed after GC.`,
      svg: svgBarChart(
        'Retained heap per cached object',
        'bytes per object after GC (lower is better)',
        series,
        [...bySize].map(([size, medians]) => ({
          label: `${size.toLocaleString('en-US')} objects`,
          values: new Map([...medians].map(([c, m]) => [c, (m.get('retainedHeapBytes') ?? 0) / size])),
        })),
      ),
    });
    sections.push({
      name: 'lookup',
      markdown: `### Lookup: secondaries of one primary (${settings.lookups.toLocaleString('en-US')} random primaries, each owning 5; median of ${settings.reps} runs)\n\n${markdownTable(['secondaries', 'contender', 'p50 µs', 'p99 µs', 'p99 vs kindex', 'found per lookup'], lookupRows)}\n\nIncludes the clock read around each call (process.hrtime.bigint in Node, time.Now in Go). The limit has no index.`,
      svg: svgBarChart(
        'Lookup p99 (getSecondaryResources / ByIndex / hand index)',
        'µs (lower is better)',
        series.filter((c) => c !== 'limit'),
        groups(bySize, 'lookupP99Us'),
      ),
    });
  }

  if (settings.scenarios.includes('watch')) {
    const medians = await measure(
      settings,
      'watch',
      settings.watchObjects,
      settings.events,
      { type: 'stream', chunks: watchChunks(settings.watchObjects, settings.events) },
      settings.contenders.filter((c) => !SYNC_ONLY_CONTENDERS.has(c)),
    );
    const k = medians.get('kindex');
    const l = medians.get('limit');
    figures.set('watch.kindexVsLimit', gateFigure(k, l, 'eventsPerS'));
    figures.set('watch.kindexVsClientNode', gateFigure(k, medians.get('client-node'), 'eventsPerS'));
    const rows = [...medians].map(([c, m]) => [
      displayName(c),
      fmt(m.get('eventsPerS')),
      ratio(m.get('eventsPerS'), k?.get('eventsPerS')),
      ratio(m.get('eventsPerS'), l?.get('eventsPerS')),
      fmt(m.get('cpuSPer1000'), 4),
    ]);
    sections.push({
      name: 'watch-throughput',
      markdown: `### Watch throughput: ${settings.events.toLocaleString('en-US')} MODIFIED events over ${settings.watchObjects.toLocaleString('en-US')} objects (median of ${settings.reps})\n\n${markdownTable(['contender', 'events/s', 'vs kindex', 'vs limit', 'CPU s per 1,000 events'], rows)}\n\nkindex: store + owner-reference mapper + reverse index + update filter + WorkQueue.add; client-node: ListWatch + hand index + Set queue; client-go: SharedIndexInformer + owner index + workqueue; limit: JSON.parse + Map.`,
      svg: svgBarChart('Watch throughput', 'events/s (higher is better)', series, [
        {
          label: `${settings.events.toLocaleString('en-US')} events`,
          values: new Map([...medians].map(([c, m]) => [c, m.get('eventsPerS') ?? 0])),
        },
      ]),
    });
  }

  if (settings.scenarios.includes('relist')) {
    const n = settings.relistObjects;
    // Protobuf only where it changes the work: the relist's 410 and sentinel stay JSON.
    const medians = await measure(
      settings,
      'relist',
      n,
      0,
      { type: 'expire', expired: expiredLine(), after: sentinelLine(n) },
      settings.contenders.filter((c) => !WIRE_CONTENDERS.has(c) && !SYNC_ONLY_CONTENDERS.has(c)),
    );
    const k = medians.get('kindex');
    const l = medians.get('limit');
    const rows = [...medians].map(([c, m]) => [
      displayName(c),
      fmt(m.get('relistMs')),
      ratio(m.get('relistMs'), k?.get('relistMs')),
      ratio(m.get('relistMs'), l?.get('relistMs')),
      fmt(m.get('recoveryMs')),
      fmt(m.get('eventsAfterRelist')),
    ]);
    sections.push({
      name: 'relist',
      markdown: `### Relist after 410 Gone of ${n.toLocaleString('en-US')} unchanged objects (median of ${settings.reps})\n\n${markdownTable(['contender', 'relist ms', 'vs kindex', 'vs limit', '410 → new watch ms', 'events emitted'], rows)}\n\nrelist ms: from the relist request to the next watch request, at the server; 410 → new watch includes the client's backoff. Events emitted: delivered to handlers, before any filter (must be 0).`,
      svg: svgBarChart(
        'Relist after 410 of unchanged objects',
        'ms from list request to the next watch (lower is better)',
        series.filter((c) => !WIRE_CONTENDERS.has(c) && !SYNC_ONLY_CONTENDERS.has(c)),
        [{ label: `${n.toLocaleString('en-US')} objects`, values: new Map([...medians].map(([c, m]) => [c, m.get('relistMs') ?? 0])) }],
      ),
    });
  }

  if (settings.scenarios.includes('e2e')) {
    const { e2eRate: rate, e2eSeconds: seconds, e2eObjects: n } = settings;
    const events = Math.round(rate * seconds);
    // kindex runs as in production (inspection off, its default); the row beside it shows what
    // keeping describePrimary's records costs (left out of the CI gate, which does not bound it).
    const contenders = settings.contenders
      .flatMap((c) =>
        c === 'kindex' && !settings.check && !settings.contenders.includes('kindex-inspection') ? [c, 'kindex-inspection'] : [c],
      )
      .filter((c) => E2E_NODE_CONTENDERS.includes(c) || c === 'client-go');
    const medians = await measure(settings, 'e2e', n, events, { type: 'paced', objects: n, rate, seconds }, contenders);
    const k = medians.get('kindex');
    const cn = medians.get('client-node');
    figures.set('e2eCpu.kindexVsClientNode', gateFigure(k, cn, 'cpuSPer1000'));
    const rows = [...medians].map(([c, m]) => [
      displayName(c),
      fmt(m.get('latencyP50Ms'), 2),
      fmt(m.get('latencyP99Ms'), 2),
      ratio(m.get('latencyP99Ms'), k?.get('latencyP99Ms')),
      fmt(m.get('latencyP99WarmMs'), 2),
      fmt(m.get('latencyMaxMs'), 1),
      fmt(m.get('sentPerS')),
      fmt(m.get('reconciles')),
      fmt(m.get('cpuSPer1000'), 4),
      ratio(m.get('cpuSPer1000'), cn?.get('cpuSPer1000')),
      fmt(m.get('cpuSPer1000Warm'), 4),
      ratio(m.get('cpuSPer1000Warm'), cn?.get('cpuSPer1000Warm')),
      fmt(m.get('cpuSPer1000SecondHalf'), 4),
      ratio(m.get('cpuSPer1000SecondHalf'), cn?.get('cpuSPer1000SecondHalf')),
      fmt(m.get('writeRequests')),
    ]);
    sections.push({
      // A run of another length is kept beside the default one's, not over it.
      name: seconds === E2E_DEFAULT_SECONDS ? 'e2e-latency' : `e2e-latency-${seconds}s`,
      markdown: `### End to end: event to reconcile start at a steady ${rate.toLocaleString('en-US')} events/s for ${seconds} s over ${n.toLocaleString('en-US')} ConfigMaps (median of ${settings.reps})\n\n${markdownTable(['contender', 'p50 ms', 'p99 ms', 'p99 vs kindex', 'p99 after warm-up ms', 'max ms', 'events/s sent', 'reconciles', 'CPU s per 1,000 events', 'vs client-node', 'CPU after warm-up', 'vs client-node', 'CPU in the second half', 'vs client-node', 'writes'], rows)}\n\nLatency: from the stream server writing a MODIFIED event (its wall-clock time in µs, \`performance.timeOrigin + performance.now()\`, in the object's \`bench.kindex.dev/sent-at\` annotation) to the start of the reconcile that sees that object, read with the same wall clock in the contender's process (two processes on one machine: a process-local clock could not be compared). Events written to a socket the client does not drain count their wait. p99 after warm-up leaves out the first fifth of each run's reconciles (the first 2 s at the default rate), when the Node contenders compile their hot paths; CPU after warm-up is the CPU from reconcile number events / 5 (the one ending that fifth when no events coalesce) to the last, per 1,000 events sent after the newest one it had seen; CPU in the second half the same from reconcile number events / 2 (on a long run, the steady state: a contender with more code on its path spends the first seconds compiling it). A reconcile sees the latest state of its object: events for an object still queued coalesce into one reconcile, measured from the newest (reconciles < events then). kindex: \`Operator\` as run in production (logs at info, metrics, \`/debug/controllers\` served, \`inspection\` off: its default) + \`Controller\` on the ConfigMap itself, concurrency 10, \`generationAware: false\`, \`UpdateControl.noUpdate()\`; kindex (inspection on): the same with \`inspection: true\` (each primary's causes and last reconcile kept for \`describePrimary\`, as in tests); client-node: \`ListWatch\` + a Set queue + one async worker loop; client-go: a \`SharedInformer\` whose handlers add keys to a rate-limited \`workqueue\`, 10 workers reading the indexer. Writes: requests other than GET the server received (answered 405; must be 0).`,
      svg: svgBarChart('End to end: event to reconcile start', 'ms (lower is better)', contenders, [
        { label: 'p50', values: new Map([...medians].map(([c, m]) => [c, m.get('latencyP50Ms') ?? 0])) },
        { label: 'p99', values: new Map([...medians].map(([c, m]) => [c, m.get('latencyP99Ms') ?? 0])) },
      ]),
    });
  }

  if (settings.scenarios.includes('restart')) {
    // Restart over N primaries, change some during the initial wave; how long
    // until the changed ones are reconciled, FIFO against priority queue.
    const { restartObjects: n, restartChanges: changes, restartWorkMs: workMs } = settings;
    const contenders = Object.keys(RESTART_CONTENDERS);
    const medians = await measure(
      settings,
      'restart',
      n,
      changes,
      { type: 'stream', chunks: [changedObjectsChunk(n, changes)] },
      contenders,
    );
    const fifo = medians.get('kindex-fifo');
    const rows = [...medians].map(([c, m]) => [
      `kindex, queue: '${RESTART_CONTENDERS[c]}'`,
      fmt(m.get('changedReconciledMs')),
      ratio(fifo?.get('changedReconciledMs'), m.get('changedReconciledMs')),
      fmt(m.get('unchangedBefore')),
      fmt(m.get('waveMs')),
      fmt(m.get('syncMs')),
    ]);
    sections.push({
      name: 'restart-priority',
      markdown: `### Restart over ${n.toLocaleString('en-US')} primaries, ${changes} changed during the initial wave: FIFO against priority queue (median of ${settings.reps})

${markdownTable(['queue', `ms until the ${changes} changed are reconciled`, 'FIFO time / this', 'unchanged reconciled before them', 'whole wave ms', 'sync ms'], rows)}

An \`Operator\` whose primary is the ConfigMap starts over ${n.toLocaleString('en-US')} listed ones (a restart: each is reconciled once in the initial wave); once its cache synced, the stream server sends ${changes} MODIFIED events of listed objects spread evenly over the list. Times run from that moment to the start of the reconcile of the last changed object, and to the end of the wave. Concurrency 10 (the default), ${workMs} ms of I/O wait per reconcile (\`--restart-work-ms\`), \`generationAware: false\`, \`UpdateControl.noUpdate()\`. With \`queue: 'priority'\` the list's events come at \`LOW_PRIORITY\` and a change raises its object to the default priority, so it goes before the rest of the wave; FIFO reconciles it at its place in the list.`,
      svg: svgBarChart('Restart: changed objects reconciled', 'ms (lower is better)', contenders, [
        { label: `${changes} changed`, values: new Map([...medians].map(([c, m]) => [c, m.get('changedReconciledMs') ?? 0])) },
        { label: 'whole wave', values: new Map([...medians].map(([c, m]) => [c, m.get('waveMs') ?? 0])) },
      ]),
    });
  }

  if (settings.scenarios.includes('shards')) {
    // Scale-out needs an API server (Leases, shard selectors), not the stream server: the
    // integration suite's scale-out benchmark runs on the embedded server, with the
    // ShardedListAndWatch gate (the server filters) and without it (each replica filters).
    const cwd = join(benchDir, '..', 'integration-tests');
    const tables: string[] = [];
    for (const gate of [true, false]) {
      console.error(`  shards: ${settings.shardObjects} primaries, server ${gate ? 'with' : 'without'} ShardedListAndWatch`);
      const args = [
        '--expose-gc',
        '--import',
        'tsx',
        'src/sharding-benchmark.ts',
        '--objects',
        String(settings.shardObjects),
        '--namespaces',
        '64',
      ];
      tables.push(
        execFileSync(process.execPath, gate ? args : [...args, '--no-gate'], { cwd, encoding: 'utf8', maxBuffer: 64 * 2 ** 20 }).trim(),
      );
    }
    sections.push({
      name: 'sharding',
      markdown: `### Scale-out by shards: 1, 2 and 4 replicas of one operator, 8 shards by namespace (one run)\n\n${tables.join('\n\n')}\n\nReplicas run in one process, each with its own client and informers, against the embedded API server (lease 4 s, retry 0.5 s); a "kill" stops renewing without releasing, as SIGKILL would. Objects received are counted on the wire, before any client-side filter.`,
    });
  }

  if (settings.scenarios.includes('webhooks')) {
    // Admission round trip through an API server, as for the shards.
    const tables = informerBenchOnBothServers('webhooks', 'src/webhook/webhook-roundtrip.bench.ts', [
      String(settings.webhookRequests),
      '16',
    ]);
    sections.push({
      name: 'webhooks',
      markdown: `### Admission webhooks: a dry-run create with and without one validating webhook (one run per server)\n\n${tables.join('\n\n')}\n\nLatencies are sequential requests over one keep-alive TLS connection; req/s has 16 requests in flight. The webhook is the informer's WebhookServer on 127.0.0.1, reached by url and verified against its caBundle.`,
    });
  }

  if (settings.scenarios.includes('requests')) {
    const tables = informerBenchOnBothServers('requests', 'src/client/request-roundtrip.bench.ts', [String(settings.roundTrips)]);
    sections.push({
      name: 'requests',
      markdown: `### Request round trips over TLS: one read, one write (one run per server)\n\n${tables.join('\n\n')}\n\nkindex's KubeClient keeps its connections (keep-alive, one pool per TLS identity); client-node 1.4's generated API, as a hand-rolled loop calls it, opens a TLS connection per request. Merge patches of one ConfigMap, each a real write.`,
    });
  }

  if (settings.scenarios.includes('scrapes')) {
    const tables = informerBenchOnBothServers('scrapes', 'src/server/secure/secure-scrape.bench.ts', [String(settings.scrapes)]);
    sections.push({
      name: 'scrapes',
      markdown: `### /metrics scrapes: plain against secure (TokenReview + SubjectAccessReview), one run per server\n\n${tables.join('\n\n')}\n\nThe operator's OperatorServer on 127.0.0.1, one registry for every row; a ServiceAccount bound to get on /metrics scrapes with its TokenRequest token. "Cached" is the steady state (reviews kept 1 and 5 minutes); "no cache" is what one scrape per TTL costs. Target: a cached scrape within 1 ms of the plain one.`,
    });
  }

  if (settings.scenarios.includes('remote')) {
    const tables = informerBenchOnBothServers('remote', 'src/source/remote-secondary.bench.ts', [String(settings.remoteEvents)]);
    sections.push({
      name: 'remote',
      markdown: `### Remote secondaries: event to reconcile start, a secondary in the operator's cluster against one in a remote cluster (one run per server)\n\n${tables.join('\n\n')}\n\nOne Operator, two event sources of Secrets mapped to their ConfigMap primary by annotations: \`local\` on the operator's cluster, \`remote\` (\`withRemoteCluster\`) on a second embedded server, or, on the real server, on the same server through a KubeConfig of its own. One change at a time, alternately local and remote, timed from just before its patch is sent. Target: remote p99 at most 1.2x local.`,
    });
  }

  if (settings.scenarios.includes('e2e-max')) {
    // The highest paced rate each contender sustains end to end: p99 event-to-reconcile under
    // 100 ms and the server able to send at the rate (a client that stops draining its socket
    // slows the sender). Doubling from 1,000 events/s, then bisecting between the last rate
    // sustained and the first that failed until they are within 5% of each other.
    const seconds = Math.min(settings.e2eSeconds, 5);
    const n = settings.e2eObjects;
    const contenders = settings.contenders.filter((c) => E2E_NODE_CONTENDERS.includes(c) || c === 'client-go');
    const once = { ...settings, reps: 1 };
    const sustainsOnce = async (contender: string, rate: number): Promise<boolean> => {
      let m: Map<string, number> | undefined;
      try {
        m = (await measure(once, 'e2e', n, Math.round(rate * seconds), { type: 'paced', objects: n, rate, seconds }, [contender])).get(
          contender,
        );
      } catch (error) {
        // A contender that falls over at a rate (its watch broke, the last event never came)
        // did not sustain it: the search goes on, for it and for the others.
        console.error(
          `  e2e-max: ${contender} did not complete at ${rate} events/s: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
        );
        return false;
      }
      const p99 = m?.get('latencyP99Ms');
      const sent = m?.get('sentPerS');
      return p99 !== undefined && p99 < 100 && sent !== undefined && sent >= rate * 0.9;
    };
    // A rate fails only when two runs in a row fail it: on a shared machine one stall of 100 ms
    // in a 5 s run puts a percent of the events over the bound, at any rate.
    const sustains = async (contender: string, rate: number): Promise<boolean> =>
      (await sustainsOnce(contender, rate)) || (await sustainsOnce(contender, rate));
    const rows: string[][] = [];
    const best = new Map<string, number>();
    for (const contender of contenders) {
      let pass = 0;
      let fail: number | undefined;
      for (let rate = 1000; rate <= settings.e2eMaxTop; rate *= 2) {
        if (await sustains(contender, rate)) pass = rate;
        else {
          fail = rate;
          break;
        }
      }
      while (fail !== undefined && pass > 0 && fail - pass > pass * 0.05) {
        const mid = Math.round((pass + fail) / 2);
        if (await sustains(contender, mid)) pass = mid;
        else fail = mid;
      }
      best.set(contender, pass);
      rows.push([displayName(contender), fmt(pass), fail === undefined ? `none up to ${fmt(pass)}` : fmt(fail)]);
    }
    const k = best.get('kindex');
    rows.forEach((row, i) => row.push(ratio(best.get(contenders[i]!), k), ratio(best.get(contenders[i]!), best.get('client-node'))));
    sections.push({
      name: 'e2e-max-rate',
      markdown: `### End to end: highest sustained event rate with p99 under 100 ms (${n.toLocaleString('en-US')} ConfigMaps, ${seconds} s per step)\n\n${markdownTable(['contender', 'sustained events/s', 'first rate that failed', 'vs kindex', 'vs client-node'], rows)}\n\nEach step runs the end-to-end scenario at a paced rate (a second time when the first run fails: one stall of the shared machine fails a run at any rate): doubling from 1,000 events/s until p99 event-to-reconcile reaches 100 ms or the server cannot send at the rate (the client stopped draining), then bisection between the last rate sustained and the first that failed until they are within 5% of each other (a figure near a contender's limit moves by a step or two between runs, more on a busy machine).`,
      svg: svgBarChart('Highest sustained end-to-end rate (p99 < 100 ms)', 'events/s (higher is better)', contenders, [
        { label: 'sustained', values: new Map([...best].map(([c, v]) => [c, v])) },
      ]),
    });
  }

  if (settings.check) {
    for (const section of sections) console.log(`\n${section.markdown}`);
    const boundsPath = join(benchDir, 'quick-thresholds.json');
    const failures = checkRatios(figures, readBounds(boundsPath), boundsPath);
    const measured = [...figures].map(([figure, value]) => `${figure} ${value.toFixed(2)}x`).join(', ');
    if (failures.length > 0) {
      console.error(`\nbench check FAILED (${measured}):\n- ${failures.join('\n- ')}`);
      process.exit(1);
    }
    console.log(`\nbench check passed: ${measured}`);
    return;
  }
  for (const section of sections) {
    write(section);
    console.log(`\n${section.markdown}`);
  }
  const summaryText = `## kindex benchmarks\n\nMachine: ${machine}.\n\nSettings: ${JSON.stringify(settings)}\n\nclient-go (JSON): client-go decoding the JSON this stream server sends. client-go (protobuf): the same binary reading the same objects as protobuf (\`-protobuf\`; list and watch bytes converted once with the apiserver's serializers), as it reads built-in kinds such as ConfigMaps from a real kube-apiserver; sync and watch only. Custom resources are JSON for every client.\n\n${sections.map((s) => `${s.markdown}\n\n${s.svg !== undefined ? `![${s.name}](${s.name}.svg)\n` : ''}`).join('\n')}`;
  writeFileSync(join(resultsDir, 'summary.md'), summaryText);
  console.log(`\nwritten to ${resultsDir}`);
}

function goVersion(): string {
  try {
    return execFileSync('go', ['version'], { encoding: 'utf8' })
      .trim()
      .replace(/^go version /, 'Go ');
  } catch {
    return 'no Go';
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
