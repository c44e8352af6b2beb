import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { CoreV1Api } from '@kubernetes/client-node';
import { ShardMap } from '@kindex/core';
import { createNamespace, eventually, startTestApiServer, uniqueName, type TestApiServer } from '@kindex/testing';
import { intervals, overlaps, readRecords } from './support/replica-process.js';

const FIXTURE = fileURLToPath(new URL('./support/shard-replica.ts', import.meta.url));
const SHARDS = 4;
const TIMING = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 300 };

interface Replica {
  readonly identity: string;
  readonly child: ChildProcess;
  owned: number[];
  /** The shard map it follows, as it last said. */
  map: string | undefined;
  stderr: string;
  readonly exited: Promise<void>;
}

describe('sharded operator in child processes', function () {
  this.timeout(240_000);
  let server: TestApiServer;
  let dir: string;
  const replicas: Replica[] = [];

  before(async function () {
    this.timeout(180_000);
    server = await startTestApiServer();
    dir = mkdtempSync(path.join(tmpdir(), 'kindex-shards-'));
  });
  after(async () => {
    for (const r of replicas) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
    await Promise.all(replicas.map((r) => r.exited));
    rmSync(dir, { recursive: true, force: true });
    await server.stop();
  });

  it('three replicas split the shards; after a SIGKILL the survivors take them over, and no primary is reconciled by two processes at once', async () => {
    const core = server.kubeConfig.makeApiClient(CoreV1Api);
    const kubeconfigFile = path.join(dir, 'kubeconfig');
    writeFileSync(kubeconfigFile, server.kubeConfig.exportConfig());
    const recordsFile = path.join(dir, 'records.jsonl');
    const label = uniqueName('p');
    const leaseNamespace = await createNamespace(server.kubeConfig);
    const namespaces: string[] = [];
    for (let i = 0; i < 10; i++) {
      const namespace = await createNamespace(server.kubeConfig);
      namespaces.push(namespace);
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'p', labels: { role: label } } } });
    }
    const spawnReplica = (identity: string): Replica => {
      const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
        cwd: path.resolve(path.dirname(FIXTURE), '../..'),
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          KINDEX_KUBECONFIG: kubeconfigFile,
          KINDEX_NAMESPACE: leaseNamespace,
          KINDEX_GROUP: 'shards',
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
        map: undefined,
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
            const parsed = JSON.parse(line) as { event?: string; owned?: number[]; map?: string };
            if (parsed.event === 'owned') {
              replica.owned = parsed.owned ?? [];
              replica.map = parsed.map;
            }
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
    const describeAll = () => replicas.map((r) => `${r.identity}: [${r.owned.join(',')}] ${r.stderr.slice(-300)}`).join('\n');
    await eventually(
      () => {
        expect([a, b, c].flatMap((r) => r.owned).sort(), describeAll()).to.deep.equal([0, 1, 2, 3]);
        for (const r of [a, b, c]) expect(r.owned.length, describeAll()).to.be.within(1, 2);
      },
      { timeoutMs: 90_000 },
    );
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const victim = [a, b, c].find((r) => r.owned.length > 0)!;
    const orphaned = [...victim.owned];
    const killedAt = Date.now();
    victim.child.kill('SIGKILL');
    await victim.exited;
    const survivors = [a, b, c].filter((r) => r !== victim);
    await eventually(() => expect(survivors.flatMap((r) => r.owned).sort(), describeAll()).to.deep.equal([0, 1, 2, 3]), {
      timeoutMs: 60_000,
    });
    // The victim's primaries are reconciled again, by survivors.
    const map = ShardMap.parse(victim.map!);
    const theirs = namespaces.filter((n) => orphaned.includes(map.shardOfValue(n)));
    await eventually(
      () => {
        const records = readRecords(recordsFile);
        for (const n of theirs) {
          expect(
            records.some((r) => r.key === `${n}/p` && r.type === 'end' && r.at > killedAt && r.pid !== victim.child.pid),
            n,
          ).to.equal(true);
        }
      },
      { timeoutMs: 30_000 },
    );
    for (const r of survivors) r.child.kill('SIGTERM');
    await Promise.all(survivors.map((r) => r.exited));
    const all = intervals(readRecords(recordsFile), (pid) => (pid === victim.child.pid ? killedAt : Date.now()));
    expect(all.length).to.be.greaterThan(namespaces.length);
    expect(overlaps(all)).to.deep.equal([]);
  });
});
