/**
 * `pnpm sample -- --replicas 3`: the sample as a Deployment runs it, on the embedded API server.
 *
 * The parent starts the server, installs the CRDs and spawns N replica processes (this program
 * with `--replica`), each its own operator under leader election on one Lease. It prints who
 * leads as the scenario plays, SIGKILLs the leader halfway, prints the failover (a follower with
 * warm caches takes over after the lease duration), finishes the scenario, then SIGTERMs the
 * replicas: each drains, releases the lease and exits 0.
 *
 * `pnpm sample -- --replicas 3 --shards 4`: the replicas split the primaries instead (sharding by
 * uid on one Lease per shard): the parent prints which replica owns which shards as they settle,
 * SIGKILLs one replica mid-scenario and shows the survivors take its shards over.
 *
 * @module
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ResourceID } from '@kindex/core';
import { KubeClient, Kinds, loadKubeConfig, type Lease } from '@kindex/informer';
import { startEmbeddedApiServer } from '@kindex/testing';
import { installCrds } from './install-crds.js';
import { createSampleOperator } from './sample-operator.js';
import { jobTable, playScenario, serverView } from './scenario.js';
import { Timeline } from './timeline.js';

const LEASE = 'job-cluster-operator';
/** Short timings so the failover shows in seconds; client-go's ratios (defaults 15 s / 10 s / 2 s). */
const TIMING = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 400 } as const;
const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));

interface ReplicaLine {
  readonly identity: string;
  readonly event: 'loaded' | 'started' | 'leading' | 'following' | 'owns';
  readonly at: number;
  /** The shards the replica owns (on `owns`). */
  readonly shards?: readonly number[];
  /** The replica's /metrics, /healthz and /readyz server (on `started`). */
  readonly url?: string;
}

/** A replica process and what it printed. */
class Replica {
  readonly lines: ReplicaLine[] = [];
  readonly exited: Promise<number | null>;
  readonly #child: ChildProcess;
  #stderr = '';

  constructor(
    readonly identity: string,
    args: readonly string[],
    onLine: (line: ReplicaLine) => void,
  ) {
    this.#child = spawn(process.execPath, ['--import', 'tsx', MAIN, '--replica', '--identity', identity, ...args], {
      cwd: path.resolve(path.dirname(MAIN), '..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let buffered = '';
    this.#child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
        const line = JSON.parse(buffered.slice(0, i)) as ReplicaLine;
        buffered = buffered.slice(i + 1);
        this.lines.push(line);
        onLine(line);
      }
    });
    this.#child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (this.#stderr += chunk));
    this.exited = new Promise((resolve) => this.#child.once('exit', (code) => resolve(code)));
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  get stderr(): string {
    return this.#stderr;
  }

  signal(signal: NodeJS.Signals): void {
    this.#child.kill(signal);
  }

  /** Resolves once the replica's caches synced; loading the sample through tsx takes a while on a busy machine. */
  async started(timeoutMs = 120_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.lines.some((l) => l.event === 'started')) {
      if (this.#child.exitCode !== null)
        throw new Error(`replica ${this.identity} exited with ${this.#child.exitCode} before it started:\n${this.#stderr}`);
      if (Date.now() > deadline) {
        const phase = this.lines.some((l) => l.event === 'loaded') ? 'syncing its caches' : 'loading';
        throw new Error(
          `replica ${this.identity} did not start within ${timeoutMs} ms (still ${phase})${this.#stderr ? `:\n${this.#stderr}` : ''}`,
        );
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** The parent: server, replicas, scenario, failover (or shard takeover), shutdown. */
export async function runReplicas(count: number, shards?: number): Promise<void> {
  if (!Number.isInteger(count) || count < 1) throw new Error(`--replicas must be a positive integer, got ${count}`);
  if (shards !== undefined && (!Number.isInteger(shards) || shards < 1))
    throw new Error(`--shards must be a positive integer, got ${shards}`);
  const server = await startEmbeddedApiServer();
  const replicas: Replica[] = [];
  try {
    const client = new KubeClient(server.kubeConfig);
    await installCrds(client);
    const namespace = 'sample';
    await client.create(Kinds.Namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
    const kubeconfig = path.join(mkdtempSync(path.join(tmpdir(), 'kindex-sample-')), 'kubeconfig');
    writeFileSync(kubeconfig, server.kubeConfig.exportConfig());
    console.log(
      shards === undefined
        ? `kindex Job/Cluster sample: ${count} replicas on the embedded API server at ${server.url}, leader election on Lease ${namespace}/${LEASE}\n`
        : `kindex Job/Cluster sample: ${count} replicas on the embedded API server at ${server.url}, ${shards} shards by uid on Leases ${namespace}/${LEASE}-shard-*\n`,
    );
    const timeline = new Timeline();
    // Ownership is reported on every lease round; print it when it changes, once. A replica
    // starts owning nothing, so "no shards" is news only once it owned some.
    const printedOwnership = new Map<string, string>();
    const onLine = (line: ReplicaLine): void => {
      if (line.event === 'leading') timeline.note(`${line.identity} leads`);
      else if (line.event === 'owns') {
        const owned = line.shards ?? [];
        const text = owned.length ? `owns shards [${owned.join(', ')}]` : 'owns no shards';
        if ((printedOwnership.get(line.identity) ?? 'owns no shards') !== text) timeline.note(`${line.identity} ${text}`);
        printedOwnership.set(line.identity, text);
      } else if (line.event === 'loaded') {
        timeline.note(`${line.identity} loaded, syncing its caches`);
      } else if (line.event === 'started') {
        // A sharded replica is no follower: it reconciles the shards it owns, none waits for a leader.
        const role =
          shards !== undefined
            ? 'reconciles the shards it owns'
            : replicas.find((r) => r.identity === line.identity)?.lines.some((l) => l.event === 'leading')
              ? 'leading'
              : 'warm follower';
        timeline.note(`${line.identity} started, caches synced (${role})`);
      }
    };
    for (let i = 1; i <= count; i++) {
      const args = ['--kubeconfig', kubeconfig, '--namespace', namespace, ...(shards === undefined ? [] : ['--shards', String(shards)])];
      const replica = new Replica(`replica-${i}`, args, onLine);
      replicas.push(replica);
      // Loading TypeScript and syncing caches takes seconds per process: say what is under way.
      timeline.note(`${replica.identity} process started (pid ${replica.pid}), loading the operator`);
    }
    await withProgress(replicas, timeline, Promise.all(replicas.map((r) => r.started())));
    if (shards !== undefined) {
      await runSharded(client, namespace, replicas, shards, timeline);
      return;
    }

    const holder = async (): Promise<string | undefined> =>
      (await client.get<Lease>(Kinds.Lease, ResourceID.of(LEASE, namespace)))?.spec?.holderIdentity || undefined;
    let killedAt = 0;
    const jobs = await playScenario(client, serverView(client), namespace, timeline, async () => {
      const leaderIdentity = await holder();
      const leader = replicas.find((r) => r.identity === leaderIdentity);
      if (leader === undefined || count < 2) return;
      timeline.note(
        `SIGKILL ${leader.identity} (the leader): the others wait out its lease (${TIMING.leaseDurationMs} ms) and one takes over`,
      );
      killedAt = Date.now();
      leader.signal('SIGKILL');
      await leader.exited;
      replicas.splice(replicas.indexOf(leader), 1);
    });
    if (killedAt > 0) {
      const next = replicas.flatMap((r) => r.lines.filter((l) => l.event === 'leading' && l.at > killedAt)).sort((a, b) => a.at - b.at)[0];
      if (next !== undefined) timeline.note(`failover: ${next.identity} led ${next.at - killedAt} ms after the kill`);
    }
    await printScrape(replicas, await holder(), timeline);
    timeline.note(`SIGTERM the ${replicas.length} remaining replicas: each drains, releases the lease, exits 0`);
    for (const r of replicas) r.signal('SIGTERM');
    const codes = await Promise.all(replicas.map((r) => r.exited));
    for (const [i, r] of replicas.entries()) {
      if (codes[i] !== 0) throw new Error(`replica ${r.identity} exited with ${codes[i]}:\n${r.stderr}`);
    }
    timeline.note(`all replicas exited 0; lease holder now: ${(await holder()) ?? '(none, released)'}`);
    console.log(`\n${jobTable(jobs)}`);
  } finally {
    for (const r of replicas) r.signal('SIGKILL');
    await server.stop();
  }
}

/** Notes every 5 s which replicas are still loading or syncing until `done` settles: on a busy machine it takes a while. */
async function withProgress(replicas: readonly Replica[], timeline: Timeline, done: Promise<unknown>): Promise<void> {
  const started = Date.now();
  const timer = setInterval(() => {
    const waiting = replicas
      .filter((r) => !r.lines.some((l) => l.event === 'started'))
      .map((r) => `${r.identity} (${r.lines.some((l) => l.event === 'loaded') ? 'syncing caches' : 'loading'})`);
    if (waiting.length > 0) timeline.note(`waiting ${Math.round((Date.now() - started) / 1000)} s for ${waiting.join(', ')}`);
  }, 5_000);
  try {
    await done;
  } finally {
    clearInterval(timer);
  }
}

/** What each replica last said it owns. */
function ownership(replicas: readonly Replica[]): Map<string, readonly number[]> {
  return new Map(replicas.map((r) => [r.identity, r.lines.filter((l) => l.event === 'owns').at(-1)?.shards ?? []]));
}

/** Every shard owned by exactly one of these replicas, none holding more than its fair share. */
function settled(replicas: readonly Replica[], shards: number): boolean {
  const owned = [...ownership(replicas).values()];
  const all = owned.flat().sort((a, b) => a - b);
  const fair = Math.ceil(shards / replicas.length);
  return all.length === shards && all.every((s, i) => s === i) && owned.every((o) => o.length <= fair);
}

async function untilSettled(replicas: readonly Replica[], shards: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!settled(replicas, shards)) {
    if (Date.now() > deadline) throw new Error(`shards did not settle: ${JSON.stringify([...ownership(replicas)])}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The sharded run: ownership settles, the scenario plays, one replica is killed, the others take over. */
async function runSharded(client: KubeClient, namespace: string, replicas: Replica[], shards: number, timeline: Timeline): Promise<void> {
  await untilSettled(replicas, shards);
  const table = (): string => [...ownership(replicas)].map(([identity, owned]) => `${identity} [${owned.join(', ')}]`).join(', ');
  timeline.note(`shards settled: ${table()}`);
  let killedAt = 0;
  const jobs = await playScenario(client, serverView(client), namespace, timeline, async () => {
    if (replicas.length < 2) return;
    // The replica holding the most shards: its primaries go unreconciled until others take over.
    const victim = [...replicas].sort(
      (a, b) => (ownership([b]).get(b.identity)?.length ?? 0) - (ownership([a]).get(a.identity)?.length ?? 0),
    )[0]!;
    timeline.note(
      `SIGKILL ${victim.identity} (shards [${ownership([victim]).get(victim.identity)?.join(', ')}]): the others wait out its leases and take them over`,
    );
    killedAt = Date.now();
    victim.signal('SIGKILL');
    await victim.exited;
    replicas.splice(replicas.indexOf(victim), 1);
  });
  if (killedAt > 0) {
    await untilSettled(replicas, shards);
    const last = Math.max(...replicas.flatMap((r) => r.lines.filter((l) => l.event === 'owns').map((l) => l.at)));
    timeline.note(`takeover: ${table()} own all ${shards} shards, ${last - killedAt} ms after the kill`);
  }
  await printScrape(replicas, undefined, timeline);
  timeline.note(`SIGTERM the ${replicas.length} remaining replicas: each drains, releases its shards, exits 0`);
  for (const r of replicas) r.signal('SIGTERM');
  const codes = await Promise.all(replicas.map((r) => r.exited));
  for (const [i, r] of replicas.entries()) {
    if (codes[i] !== 0) throw new Error(`replica ${r.identity} exited with ${codes[i]}:\n${r.stderr}`);
  }
  timeline.note('all replicas exited 0');
  console.log(`\n${jobTable(jobs)}`);
}

/** The series a dashboard shows first, as scraped from each replica: who leads, what it reconciled, what it caches. */
const SHOWN_SERIES =
  /^(leader_election_master_status|controller_runtime_reconcile_total|controller_runtime_active_workers|workqueue_depth|kindex_informer_objects)\{/;

async function printScrape(replicas: readonly Replica[], leader: string | undefined, timeline: Timeline): Promise<void> {
  for (const r of replicas) {
    const url = r.lines.find((l) => l.event === 'started')?.url;
    if (url === undefined) continue;
    const [metrics, ready] = await Promise.all([
      fetch(`${url}/metrics`).then((res) => res.text()),
      fetch(`${url}/readyz`).then((res) => res.status),
    ]);
    const shown = metrics.split('\n').filter((line) => SHOWN_SERIES.test(line) && !line.endsWith(' 0'));
    const role = leader === undefined ? '' : r.identity === leader ? ' (leader)' : ' (warm follower)';
    timeline.note(`scrape of ${r.identity}${role}: GET /readyz ${ready}, ${shown.length} non-zero series of interest`);
    for (const line of shown) console.log(`      ${line}`);
  }
}

/** What the parent passes a replica process (`--replica --identity ... --namespace ... --kubeconfig ...`). */
export interface ReplicaOptions {
  readonly identity: string;
  readonly namespace: string;
  /** The embedded server's kubeconfig, written by the parent. */
  readonly kubeconfig: string;
  readonly shards?: number | undefined;
}

/** A child: one operator replica under leader election, reporting its leadership on stdout. */
export async function runReplica({ identity, namespace, kubeconfig, shards }: ReplicaOptions): Promise<void> {
  const kubeConfig = loadKubeConfig({ kubeconfig });
  const say = (event: ReplicaLine['event'], extra: Partial<ReplicaLine> = {}): void =>
    void process.stdout.write(`${JSON.stringify({ identity, event, at: Date.now(), ...extra })}\n`);
  const sample = createSampleOperator({
    kubeConfig,
    namespaces: [namespace],
    // The sample's primaries share one namespace, so they are sharded by uid.
    ...(shards === undefined
      ? { leaderElection: { leaseName: LEASE, leaseNamespace: namespace, identity, ...TIMING } }
      : { sharding: { group: LEASE, namespace, shards, field: 'object.metadata.uid' as const, identity, ...TIMING } }),
    server: { port: 0, host: '127.0.0.1' },
  });
  sample.operator.shardCoordinator?.ownership$.subscribe(({ owned }) => say('owns', { shards: owned }));
  sample.operator.leaderElector?.isLeader$.subscribe((leading) => {
    if (leading) say('leading');
  });
  const url = (): string | undefined => {
    const address = sample.operator.server?.address;
    return address ? `http://127.0.0.1:${address.port}` : undefined;
  };
  say('loaded');
  await sample.operator.run({
    gracefulShutdownTimeoutMs: 10_000,
    onStarted: () => void process.stdout.write(`${JSON.stringify({ identity, event: 'started', at: Date.now(), url: url() })}\n`),
  });
}
