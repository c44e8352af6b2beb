// `pnpm sample --kubeconfig my.kubeconfig`: pnpm runs the sample in
// samples/job-cluster/ and puts the directory the user typed the command in into INIT_CWD; a
// relative kubeconfig path means a path from there. A missing file gets one line, no stack trace.
// Runs the sample as a child process against the test server of the run (embedded, or real with
// KINDEX_APISERVER=real), through the server's kubeconfigYaml.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { useTestApiServer } from '@kindex/testing';

const SAMPLE = fileURLToPath(new URL('../../samples/job-cluster/', import.meta.url));

/** Starts the sample as `pnpm sample ARGS` would, typed in `userDir`. */
function startSample(args: string[], userDir: string): { child: ChildProcess; output: () => string } {
  const env: NodeJS.ProcessEnv = { ...process.env, INIT_CWD: userDir };
  delete env['KUBECONFIG'];
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    cwd: SAMPLE,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return { child, output: () => out };
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((r) => child.once('exit', (code) => r(code)));
}

describe('the Job/Cluster sample with --kubeconfig', function () {
  this.timeout(120_000);
  const server = useTestApiServer();
  let userDir: string;
  let child: ChildProcess | undefined;

  beforeEach(() => {
    userDir = mkdtempSync(join(tmpdir(), 'kindex-sample-user-'));
  });

  afterEach(async () => {
    if (child !== undefined && child.exitCode === null) {
      child.kill('SIGKILL');
      await exitOf(child);
    }
    child = undefined;
    rmSync(userDir, { recursive: true, force: true });
  });

  it('reads a relative --kubeconfig from the directory the command ran from, runs against that server, and stops on SIGTERM', async () => {
    writeFileSync(join(userDir, 'my.kubeconfig'), server().kubeconfigYaml, { mode: 0o600 });
    const run = startSample(['--kubeconfig', 'my.kubeconfig'], userDir);
    child = run.child;
    const deadline = Date.now() + 90_000;
    while (!run.output().includes('operator running against')) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the sample did not start:\n${run.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(run.output()).to.include(`operator running against ${server().url}`);
    child.kill('SIGTERM');
    expect(await exitOf(child), run.output()).to.equal(0);
  });

  it('says in one line, and exits 1, when the kubeconfig file does not exist', async () => {
    const run = startSample(['--kubeconfig', 'my.kubeconfig'], userDir);
    child = run.child;
    expect(await exitOf(child)).to.equal(1);
    expect(run.output().trim().split('\n'), run.output()).to.deep.equal([
      `sample: --kubeconfig my.kubeconfig: no such file (${join(userDir, 'my.kubeconfig')})`,
    ]);
  });
});
