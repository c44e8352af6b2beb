import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { CoreV1Api } from '@kubernetes/client-node';
import { ResourceID, shardIndexOf } from '@kindex/core';
import { createNamespace, eventually, startTestApiServer, uniqueName, type TestApiServer } from '@kindex/testing';
import { Kinds, KubeClient, type Lease } from '@kindex/informer';
import { intervals, overlaps, readRecords } from './support/replica-process.js';

const FIXTURE = fileURLToPath(new URL('./support/mixed-replica.ts', import.meta.url));
const SHARDS = 4;
const TIMING = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 300 };

interface Replica {
  readonly identity: string;
  readonly child: ChildProcess;
  owned: number[];
  leading: boolean;
  stderr: string;
  readonly exited: Promise<void>;
}

describe('operator mixing a leader-elected and a sharded controller, in child processes', function () {
  this.timeout(240_000);
  let server: TestApiServer;
  let dir: string;
  const replicas: Replica[] = [];

  before(async function () {
    this.timeout(180_000);
    server = await startTestApiServer();
    dir = mkdtempSync(path.join(tmpdir(), 'kindex-mixed-'));
  });
  after(async () => {
    for (const r of replicas) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
    await Promise.all(replicas.map((r) => r.exited));
    rmSync(dir, { recursive: true, force: true });
    await server.stop();
  });

  it('after a SIGKILL of the leader the singleton moves to another replica and its shards are taken over; no primary is reconciled by two processes at once', async () => {
    const core = server.kubeConfig.makeApiClient(CoreV1Api);
    const kubeconfigFile = path.join(dir, 'kubeconfig');
    writeFileSync(kubeconfigFile, server.kubeConfig.exportConfig());
    const recordsFile = path.join(dir, 'records.jsonl');
    const label = uniqueName('p');
    const leaseNamespace = await createNamespace(server.kubeConfig);
    // Two namespaces per shard (names hash unevenly: pick them by their shard), one sharded primary each.
    const namespaces: string[] = [];
    const perShard = new Array<number>(SHARDS).fill(0);
    const prefix = uniqueName('mx');
    for (let i = 0; namespaces.length < 2 * SHARDS; i++) {
      const name = `${prefix}-${i}`;
      const shard = shardIndexOf('object.metadata.namespace', { metadata: { namespace: name } }, SHARDS);
      if (perShard[shard]! >= 2) continue;
      perShard[shard]!++;
      namespaces.push(await createNamespace(server.kubeConfig, name));
      await core.createNamespacedConfigMap({ namespace: name, body: { metadata: { name: 'p', labels: { role: `${label}-sharded` } } } });
    }
    const singletons = namespaces.slice(0, 2).map((namespace) => `single ${namespace}/one`);
    for (const namespace of namespaces.slice(0, 2)) {
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'one', labels: { role: `${label}-single` } } } });
    }
    const spawnReplica = (identity: string): Replica => {
      const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
        cwd: path.resolve(path.dirname(FIXTURE), '../..'),
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          KINDEX_KUBECONFIG: kubeconfigFile,
          KINDEX_NAMESPACE: leaseNamespace,
          KINDEX_GROUP: 'mixed',
          KINDEX_SHARDS: String(SHARDS),
          KINDEX_LABEL: label,
          KINDEX_IDENTITY: identity,
          KINDEX_RECORDS: recordsFile,
          KINDEX_TIMING: JSON.stringify(TIMING),
        },
      });
      const replica: Replica = {
        identity,
        child,
        owned: [],
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
            const parsed = JSON.parse(line) as { event?: string; owned?: number[] };
            if (parsed.event === 'owned') replica.owned = parsed.owned ?? [];
            if (parsed.event === 'leading' || parsed.event === 'following') replica.leading = parsed.event === 'leading';
          } catch {
            replica.stderr += `${line}\n`;
          }
        }
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (replica.stderr += chunk));
      replicas.push(replica);
      return replica;
    };
    const [a, b, c] = ['a', 'b', 'c'].map(spawnReplica) as [Replica, Replica, Replica];
    const describeAll = () =>
      replicas.map((r) => `${r.identity}${r.leading ? ' (leader)' : ''}: [${r.owned.join(',')}] ${r.stderr.slice(-300)}`).join('\n');
    await eventually(
      () => {
        expect([a, b, c].filter((r) => r.leading).length, describeAll()).to.equal(1);
        expect([a, b, c].flatMap((r) => r.owned).sort(), describeAll()).to.deep.equal([0, 1, 2, 3]);
        for (const r of [a, b, c]) expect(r.owned.length, describeAll()).to.be.within(1, 2);
      },
      { timeoutMs: 90_000 },
    );
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const leader = [a, b, c].find((r) => r.leading)!;
    const orphaned = [...leader.owned];
    // Before the kill: the singleton runs in the leader's process only; the sharded controller in all three.
    const before = readRecords(recordsFile);
    expect(new Set(before.filter((r) => r.key.startsWith('single ')).map((r) => r.pid)), describeAll()).to.deep.equal(
      new Set([leader.child.pid]),
    );
    expect(new Set(before.filter((r) => r.key.startsWith('sharded ') && r.at > Date.now() - 1_000).map((r) => r.pid)).size).to.equal(3);
    const killedAt = Date.now();
    leader.child.kill('SIGKILL');
    await leader.exited;
    const survivors = [a, b, c].filter((r) => r !== leader);
    await eventually(
      () => {
        expect(survivors.filter((r) => r.leading).length, describeAll()).to.equal(1);
        expect(survivors.flatMap((r) => r.owned).sort(), describeAll()).to.deep.equal([0, 1, 2, 3]);
      },
      { timeoutMs: 60_000 },
    );
    const next = survivors.find((r) => r.leading)!;
    // The singleton's primaries are reconciled again, by the new leader; the victim's shards' by survivors.
    const theirs = namespaces.filter((n) =>
      orphaned.includes(shardIndexOf('object.metadata.namespace', { metadata: { namespace: n } }, SHARDS)),
    );
    await eventually(
      () => {
        const records = readRecords(recordsFile).filter((r) => r.type === 'end' && r.at > killedAt);
        for (const key of singletons)
          expect(
            records.some((r) => r.key === key && r.pid === next.child.pid),
            key,
          ).to.equal(true);
        for (const n of theirs) {
          expect(
            records.some((r) => r.key === `sharded ${n}/p` && r.pid !== leader.child.pid),
            n,
          ).to.equal(true);
        }
      },
      { timeoutMs: 30_000 },
    );
    for (const r of survivors) r.child.kill('SIGTERM');
    await Promise.all(survivors.map((r) => r.exited));
    // Graceful shutdown with both on: exit 0, the leader Lease and every shard Lease released.
    expect(
      survivors.map((r) => r.child.exitCode),
      describeAll(),
    ).to.deep.equal([0, 0]);
    const client = new KubeClient(server.kubeConfig);
    const names = ['mixed', ...Array.from({ length: SHARDS }, (_, i) => `mixed-shard-${i}`)];
    const holders: Record<string, string> = {};
    for (const name of names) {
      const lease = await client.get<Lease>(Kinds.Lease, ResourceID.of(name, leaseNamespace));
      holders[name] = lease === undefined ? 'missing' : (lease.spec?.holderIdentity ?? '');
    }
    expect(holders).to.deep.equal({ mixed: '', 'mixed-shard-0': '', 'mixed-shard-1': '', 'mixed-shard-2': '', 'mixed-shard-3': '' });
    const records = readRecords(recordsFile);
    // The singleton never ran in two processes: only the old leader until the kill, then only the new one.
    const singleAfter = new Set(records.filter((r) => r.key.startsWith('single ') && r.at > killedAt).map((r) => r.pid));
    expect(singleAfter).to.deep.equal(new Set([next.child.pid]));
    const all = intervals(records, (pid) => (pid === leader.child.pid ? killedAt : Date.now()));
    expect(all.filter((i) => i.key.startsWith('single ')).length).to.be.greaterThan(singletons.length);
    expect(all.filter((i) => i.key.startsWith('sharded ')).length).to.be.greaterThan(namespaces.length);
    expect(overlaps(all)).to.deep.equal([]);
  });
});
