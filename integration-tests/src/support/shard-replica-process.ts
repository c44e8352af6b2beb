import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createNamespace, startTestApiServer, uniqueName, type TestApiServer } from '@kindex/testing';

/** One operator replica of a sharding scenario running as a child process, as its stdout lines tell it. */
export interface ShardReplica {
  readonly identity: string;
  readonly child: ChildProcess;
  /** The shards it said it owns last (`{ event: 'owned', owned }` lines). */
  owned: number[];
  /** The shard map it follows, as it last said (`map` of its `owned` lines, serialized). */
  map: string | undefined;
  /** Whether the last change of that map had settled (every shard holder switched), when it says so. */
  settled: boolean | undefined;
  /** Whether it said it leads (`{ event: 'leading' | 'following' }` lines, when it runs leader election). */
  leading: boolean;
  /** What it printed on stderr, and stdout lines that are not JSON. */
  stderr: string;
  readonly exited: Promise<void>;
}

/**
 * Starts `fixture` (`node --import tsx <fixture>`, from the integration-tests package) with
 * `env` added to this process's environment, and follows what it prints.
 */
export function spawnShardReplica(fixture: string, identity: string, env: Readonly<Record<string, string>>): ShardReplica {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture], {
    cwd: path.resolve(path.dirname(fixture), '../..'),
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env, KINDEX_IDENTITY: identity },
  });
  const replica: ShardReplica = {
    identity,
    child,
    owned: [],
    map: undefined,
    settled: undefined,
    leading: false,
    stderr: '',
    exited: new Promise((resolve) => child.once('exit', () => resolve())),
  };
  let buffered = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
      const line = buffered.slice(0, i);
      buffered = buffered.slice(i + 1);
      try {
        const parsed = JSON.parse(line) as { event?: string; owned?: number[]; map?: string; settled?: boolean };
        if (parsed.event === 'owned') {
          replica.owned = parsed.owned ?? [];
          replica.map = parsed.map;
          replica.settled = parsed.settled;
        }
        if (parsed.event === 'leading' || parsed.event === 'following') replica.leading = parsed.event === 'leading';
      } catch {
        replica.stderr += `${line}\n`;
      }
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (replica.stderr += chunk));
  return replica;
}

/** Options of {@link ShardScenario.group}: what the replicas of one group are told (`KINDEX_*` variables). */
export interface ShardGroupOptions {
  /** The group's name (`KINDEX_GROUP`): its leader Lease, and its shard Leases `<name>-shard-<i>`. */
  readonly name: string;
  /** How many shards (`KINDEX_SHARDS`). */
  readonly shards: number;
  /** The leader-election timings (`KINDEX_TIMING`). */
  readonly timing: { readonly leaseDurationMs: number; readonly renewDeadlineMs: number; readonly retryPeriodMs: number };
}

/** One group of replicas of a fixture: what they share, and how to start one more. */
export interface ShardGroup {
  /** The namespace of the group's Leases, fresh per group. */
  readonly leaseNamespace: string;
  /** A fresh label value: the replicas reconcile the ConfigMaps whose `role` label starts with it. */
  readonly label: string;
  /** The JSON-lines file the replicas record their reconciles in. */
  readonly recordsFile: string;
  /** Starts the replica `identity` and adds it to the scenario's replicas. */
  readonly spawn: (identity: string) => ShardReplica;
}

/** What {@link useShardScenario} gives a test: the server, the files the replicas share, the replicas. */
export interface ShardScenario {
  readonly server: () => TestApiServer;
  /** A kubeconfig file of the server, for the child processes. */
  readonly kubeconfigFile: () => string;
  /** A path in the scenario's scratch folder. */
  readonly file: (name: string) => string;
  /** The replicas started; those still running are SIGKILLed after the suite. */
  readonly replicas: ShardReplica[];
  /** Creates the lease namespace of a group of replicas of `fixture` (a file path), which `spawn` then starts. */
  readonly group: (fixture: string, options: ShardGroupOptions) => Promise<ShardGroup>;
}

/**
 * Mocha hooks of a multi-process scenario: a test server and a scratch folder (with the server's
 * kubeconfig) before the suite; after it, every replica still running killed, the folder and the
 * server gone.
 */
export function useShardScenario(folderPrefix: string): ShardScenario {
  let server: TestApiServer | undefined;
  let dir: string | undefined;
  const replicas: ShardReplica[] = [];
  before(async function () {
    this.timeout(180_000);
    server = await startTestApiServer();
    dir = mkdtempSync(path.join(tmpdir(), folderPrefix));
    writeFileSync(path.join(dir, 'kubeconfig'), server.kubeConfig.exportConfig());
  });
  after(async () => {
    for (const r of replicas) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
    await Promise.all(replicas.map((r) => r.exited));
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
    await server?.stop();
  });
  const file = (name: string): string => path.join(dir!, name);
  const group = async (fixture: string, options: ShardGroupOptions): Promise<ShardGroup> => {
    const label = uniqueName('p');
    const recordsFile = file('records.jsonl');
    const leaseNamespace = await createNamespace(server!.kubeConfig);
    const spawn = (identity: string): ShardReplica => {
      const replica = spawnShardReplica(fixture, identity, {
        KINDEX_KUBECONFIG: file('kubeconfig'),
        KINDEX_NAMESPACE: leaseNamespace,
        KINDEX_GROUP: options.name,
        KINDEX_SHARDS: String(options.shards),
        KINDEX_LABEL: label,
        KINDEX_RECORDS: recordsFile,
        KINDEX_TIMING: JSON.stringify(options.timing),
      });
      replicas.push(replica);
      return replica;
    };
    return { leaseNamespace, label, recordsFile, spawn };
  };
  return { server: () => server!, kubeconfigFile: () => file('kubeconfig'), file, replicas, group };
}
