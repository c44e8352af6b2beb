// `pnpm sample -- --replicas 3`: three sample replica processes under leader
// election on the embedded server, a SIGKILLed leader and a failover, then a clean SIGTERM exit;
// with `--shards 4` the replicas split the primaries and survivors take over a killed
// replica's shards.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { skipWithReason } from '@kindex/testing/internal';

const SAMPLE = fileURLToPath(new URL('../../samples/job-cluster/', import.meta.url));

describe('the Job/Cluster sample with --replicas 3', function () {
  this.timeout(180_000);

  it('prints who leads, fails over when the leader is killed, and exits 0', async function () {
    if (process.env['KINDEX_APISERVER'] === 'real') {
      skipWithReason(this, 'the sample starts its own embedded API server; the real tier would run the same thing again');
    }
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/main.ts', '--replicas', '3'], {
      cwd: SAMPLE,
      timeout: 170_000,
    });
    const leads = [...stdout.matchAll(/── (replica-\d) leads/g)].map((m) => m[1]);
    expect(leads, stdout).to.have.length(2);
    const killed = /SIGKILL (replica-\d) \(the leader\)/.exec(stdout)?.[1];
    expect(killed, stdout).to.equal(leads[0]);
    expect(stdout).to.match(new RegExp(`failover: ${leads[1]} led \\d+ ms after the kill`));
    expect(leads[1]).to.not.equal(killed);
    expect(stdout).to.include('all replicas exited 0; lease holder now: (none, released)');
    expect(stdout).to.match(/build\s+alpha\s+a-2/);
    expect(stdout).to.match(/test\s+beta\s+\(none\)/);
  });

  it("with --shards 4 splits the shards, and the survivors take over a killed replica's shards", async function () {
    if (process.env['KINDEX_APISERVER'] === 'real') {
      skipWithReason(this, 'the sample starts its own embedded API server; the real tier would run the same thing again');
    }
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/main.ts', '--replicas', '3', '--shards', '4'], {
      cwd: SAMPLE,
      timeout: 170_000,
    });
    const shardsOf = (line: string): Map<string, number[]> =>
      new Map([...line.matchAll(/(replica-\d) \[([\d, ]*)\]/g)].map((m) => [m[1]!, m[2]!.split(', ').filter(Boolean).map(Number)]));
    const settledLine = /shards settled: (.*)/.exec(stdout)?.[1];
    expect(settledLine, stdout).to.not.equal(undefined);
    const before = shardsOf(settledLine!);
    expect([...before.values()].flat().sort(), 'every shard owned once').to.deep.equal([0, 1, 2, 3]);
    expect(
      [...before.values()].every((o) => o.length <= 2),
      'no replica above its fair share',
    ).to.equal(true);
    const killed = /SIGKILL (replica-\d) \(shards/.exec(stdout)?.[1];
    expect(killed, stdout).to.not.equal(undefined);
    const after = shardsOf(/takeover: (.*) own all 4 shards, \d+ ms after the kill/.exec(stdout)?.[1] ?? '');
    expect(after.has(killed!), 'the killed replica owns nothing').to.equal(false);
    expect([...after.values()].flat().sort(), stdout).to.deep.equal([0, 1, 2, 3]);
    expect(stdout).to.include('all replicas exited 0');
    expect(stdout).to.match(/build\s+alpha\s+a-2/);
    expect(stdout).to.match(/test\s+beta\s+\(none\)/);
    // Wording: a sharded replica is no follower, and each replica's ownership
    // is printed when it changes, once.
    expect(stdout).to.not.include('follower');
    expect(stdout).to.match(/replica-\d started, caches synced \(reconciles the shards it owns\)/);
    const owns = [...stdout.matchAll(/── (replica-\d) (owns shards \[[\d, ]*\]|owns no shards)/g)].map((m) => [m[1]!, m[2]!] as const);
    for (const identity of new Set(owns.map(([who]) => who))) {
      const said = owns.filter(([who]) => who === identity).map(([, what]) => what);
      expect(said[0], `${identity} first reports shards it owns`).to.not.equal('owns no shards');
      said.slice(1).forEach((what, i) => expect(what, `${identity} repeats "${what}"\n${stdout}`).to.not.equal(said[i]));
    }
    expect(stdout).to.not.include('owns shards []');
  });
});
