import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { ResourceID, type KubernetesObject } from '@kindex/core';
import { KubeClient, Kinds } from '@kindex/informer';
import { createNamespace, eventually, startTestApiServer, uniqueName, type TestApiServer } from '@kindex/testing';
import { ReplicaProcess, readRecords, type ReplicaSetup } from './support/replica-process.js';

const FIXTURE = fileURLToPath(new URL('./support/fence-replica.ts', import.meta.url));
// The frozen reconcile's wait (0.7 s) ends before its shard's renew deadline (2 s after the last
// renewal, about 0.3 s before the reconcile started) would fire a timer: on SIGCONT the
// reconcile resumes first, finds its signal not aborted, and tries its write. That is the
// stale-write window; only a check of the clock at the write itself closes it.
const TIMING = { leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 300 };
const SLOW_MS = 700;
const RUNS = 5;

interface ConfigMap extends KubernetesObject {
  data?: Record<string, string>;
}

/** What one freeze-and-resume run saw. */
interface Run {
  readonly run: number;
  /** The value the frozen replica was reconciling, and the newer one written meanwhile. */
  readonly stale: number;
  readonly newer: number;
  /** Writes of the stale value the server accepted after the takeover's write of the newer one. */
  readonly staleWrites: number;
  /** The secondary's value as soon as the frozen reconcile ended, and once both replicas went quiet (both must be `newer`). */
  readonly afterResume: number;
  readonly final: number;
  /** How the frozen reconcile ended after SIGCONT (`ShardLostError` when refused). */
  readonly frozenOutcome: string;
}

describe('sharded operator: a shard owner frozen past its renew deadline (child processes)', function () {
  this.timeout(600_000);
  let server: TestApiServer;
  let dir: string;
  const replicas: ReplicaProcess[] = [];

  before(async function () {
    this.timeout(180_000);
    server = await startTestApiServer();
    dir = mkdtempSync(path.join(tmpdir(), 'kindex-fence-'));
  });
  after(async () => {
    for (const r of replicas) {
      if (!r.running) continue;
      r.signal('SIGCONT');
      r.signal('SIGKILL');
    }
    await Promise.all(replicas.map((r) => r.exited));
    rmSync(dir, { recursive: true, force: true });
    await server?.stop();
  });

  it(`writes nothing once resumed: ${RUNS} runs, 0 stale writes and 0 lost updates`, async () => {
    const client = new KubeClient(server.kubeConfig);
    const kubeconfigFile = path.join(dir, 'kubeconfig');
    writeFileSync(kubeconfigFile, server.kubeConfig.exportConfig());
    const label = uniqueName('fence');
    const leaseNamespace = await createNamespace(server.kubeConfig);
    const namespace = await createNamespace(server.kubeConfig);
    const primary = ResourceID.of('p', namespace);
    const secondary = ResourceID.of('p-out', namespace);
    await client.create<ConfigMap>(Kinds.ConfigMap, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: primary.name, namespace, labels: { role: label } },
      data: { value: '0' },
    });
    const setup: ReplicaSetup = {
      kubeconfigFile,
      namespace: leaseNamespace,
      group: uniqueName('fence'),
      recordsFile: path.join(dir, 'records.jsonl'),
      timing: TIMING,
      fixture: FIXTURE,
      env: { KINDEX_LABEL: label, KINDEX_SLOW_MS: String(SLOW_MS) },
    };
    const pair = ['a', 'b'].map((identity) => new ReplicaProcess(identity, setup));
    replicas.push(...pair);
    const describeAll = (): string =>
      pair.map((r) => `${r.identity}: ${JSON.stringify(r.lines.slice(-4))} ${r.stderr.slice(-400)}`).join('\n');
    const lastOwned = (r: ReplicaProcess): unknown => r.lines.filter((l) => l.event === 'owned').at(-1)?.['owned'];
    const secondaryValue = async (): Promise<number | undefined> => {
      const value = (await client.get<ConfigMap>(Kinds.ConfigMap, secondary))?.data?.['value'];
      return value === undefined ? undefined : Number(value);
    };
    /** Waits until one replica owns the shard and the ownership has not changed for 2 s (rebalances done). */
    const settled = async (): Promise<void> => {
      await eventually(
        () => {
          const owners = pair.filter((r) => JSON.stringify(lastOwned(r)) === '[0]');
          expect(owners, describeAll()).to.have.length(1);
          expect(
            pair.map(lastOwned).filter((o) => o === undefined),
            describeAll(),
          ).to.deep.equal([]);
          const lastChange = Math.max(...pair.flatMap((r) => r.lines.filter((l) => l.event === 'owned').map((l) => l.at)));
          expect(Date.now() - lastChange, 'ownership unchanged for 2 s').to.be.greaterThan(2_000);
        },
        { timeoutMs: 90_000, intervalMs: 200 },
      );
    };
    const runs: Run[] = [];
    for (let run = 1; run <= RUNS; run++) {
      await settled();
      const stale = run * 10 + 1;
      const newer = run * 10 + 2;
      // Values are unique per run, so a line's value says which run it belongs to.
      // A slow reconcile of `stale` starts on the owner; freeze it in there.
      await client.patch(Kinds.ConfigMap, primary, { data: { value: String(stale), slow: 'yes' } });
      const frozen = await Promise.any(
        pair.map((r) => r.waitFor((l) => l.event === 'reconciling' && l['value'] === String(stale), 30_000, 'reconcile').then(() => r)),
      );
      frozen.signal('SIGSTOP');
      const taking = pair.find((r) => r !== frozen)!;
      // Meanwhile the primary changes; the other replica takes the shard over and writes the newer value.
      await client.patch(Kinds.ConfigMap, primary, { data: { value: String(newer), slow: null } });
      await eventually(
        () =>
          expect(
            readRecords(setup.recordsFile).some((w) => w.pid === taking.pid && w.value === newer),
            describeAll(),
          ).to.equal(true),
        { timeoutMs: 60_000, intervalMs: 100 },
      );
      frozen.signal('SIGCONT');
      const ended = await frozen.waitFor((l) => l.event === 'attempt' && l['value'] === String(stale), 30_000, 'the frozen attempt to end');
      const afterResume = (await secondaryValue()) ?? -1;
      // Anything late (a retry, a write in flight) has time to land.
      await sleep(1_500);
      const writes = readRecords(setup.recordsFile);
      const takeoverRv = BigInt(writes.find((w) => w.pid === taking.pid && w.value === newer)!.rv!);
      runs.push({
        run,
        stale,
        newer,
        staleWrites: writes.filter((w) => w.pid === frozen.pid && w.value === stale && BigInt(w.rv!) > takeoverRv).length,
        afterResume,
        final: (await secondaryValue()) ?? -1,
        frozenOutcome: typeof ended['error'] === 'string' ? ended['error'] : 'wrote',
      });
    }
    console.log(`      runs: ${JSON.stringify(runs)}`);
    expect(
      runs.reduce((n, r) => n + r.staleWrites, 0),
      `stale writes: ${JSON.stringify(runs)}`,
    ).to.equal(0);
    expect(
      runs.filter((r) => r.afterResume !== r.newer || r.final !== r.newer),
      'lost updates',
    ).to.deep.equal([]);
    // Every frozen reconcile reached its write and was refused there (not silently skipped).
    expect(runs.map((r) => r.frozenOutcome)).to.deep.equal(runs.map(() => 'ShardLostError'));
    for (const r of pair) r.signal('SIGTERM');
    for (const r of pair) expect(await r.exited, describeAll()).to.deep.equal({ code: 0, signal: null });
  });
});
