import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { CoreV1Api } from '@kubernetes/client-node';
import { ShardMap } from '@kindex/core';
import { createNamespace, eventually } from '@kindex/testing';
import { intervals, overlaps, readRecords } from './support/replica-process.js';
import { useShardScenario, type ShardReplica } from './support/shard-replica-process.js';

const FIXTURE = fileURLToPath(new URL('./support/shard-replica.ts', import.meta.url));
const SHARDS = 4;
// Pinned to one core the replicas' event loops stall for up to 5 s. A stall past the renew deadline
// in the middle of a reconcile lets another replica take the shard over while the stalled one has
// not recorded the reconcile's end: an overlap in the records though the fencing did its job. The
// 4.5 s deadline keeps that to stalls a loaded two-core CI machine does not see; the takeover
// after the SIGKILL waits out the 6 s lease.
const TIMING = { leaseDurationMs: 6000, renewDeadlineMs: 4500, retryPeriodMs: 500 };

describe('sharded operator in child processes', function () {
  this.timeout(240_000);
  const scenario = useShardScenario('kindex-shards-');
  const replicas = scenario.replicas;

  it('three replicas split the shards; after a SIGKILL the survivors take them over, and no primary is reconciled by two processes at once', async () => {
    const server = scenario.server();
    const core = server.kubeConfig.makeApiClient(CoreV1Api);
    const { label, recordsFile, spawn } = await scenario.group(FIXTURE, { name: 'shards', shards: SHARDS, timing: TIMING });
    const namespaces: string[] = [];
    for (let i = 0; i < 10; i++) {
      const namespace = await createNamespace(server.kubeConfig);
      namespaces.push(namespace);
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'p', labels: { role: label } } } });
    }
    const [a, b, c] = ['a', 'b', 'c'].map(spawn) as [ShardReplica, ShardReplica, ShardReplica];
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
