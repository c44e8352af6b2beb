// The command line of `pnpm sample` (samples/job-cluster/src/sample-command-line.ts): --help,
// --version, and a usage error as one line with exit code 2, naming the flag and what it expects;
// a kubeconfig kindex cannot use is one error with its fix, before any request, exit code 1.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const SAMPLE = fileURLToPath(new URL('../../samples/job-cluster/', import.meta.url));

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the sample as `pnpm sample -- ARGS` does (pnpm hands it a literal `--` first). */
function sample(args: readonly string[], userDir: string): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, INIT_CWD: userDir };
  delete env['KUBECONFIG'];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'src/main.ts', '--', ...args],
      { cwd: SAMPLE, env, timeout: 170_000 },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr }),
    );
  });
}

const PLAIN_HTTP_KUBECONFIG = `apiVersion: v1
kind: Config
clusters:
- name: dev
  cluster:
    server: http://127.0.0.1:1
users:
- name: dev
  user:
    token: t
contexts:
- name: dev
  context: {cluster: dev, user: dev}
current-context: dev
`;

describe('the Job/Cluster sample command line', function () {
  this.timeout(180_000);
  let userDir: string;
  const runs = new Map<string, Run>();
  const cases: Record<string, string[]> = {
    help: ['--help'],
    version: ['--version'],
    unknown: ['--frobnicate'],
    replicasX: ['--replicas', 'x'],
    replicasZero: ['--replicas', '0'],
    shardsAlone: ['--shards', '4'],
    shardsBad: ['--replicas', '3', '--shards', '1.5'],
    conflict: ['--replicas', '3', '--kubeconfig', 'my.kubeconfig'],
    plainHttp: ['--kubeconfig', 'http.kubeconfig'],
    context: ['--kubeconfig', 'http.kubeconfig', '--context', 'staging'],
  };

  // Every case at once: each process spends seconds compiling the sample through tsx.
  before(async () => {
    userDir = mkdtempSync(join(tmpdir(), 'kindex-sample-cli-'));
    writeFileSync(join(userDir, 'http.kubeconfig'), PLAIN_HTTP_KUBECONFIG);
    const results = await Promise.all(Object.entries(cases).map(async ([name, args]) => [name, await sample(args, userDir)] as const));
    for (const [name, run] of results) runs.set(name, run);
  });
  after(() => rmSync(userDir, { recursive: true, force: true }));

  const run = (name: keyof typeof cases): Run => runs.get(name)!;
  /** A usage error: exit 2, nothing on stdout, this one line on stderr. */
  const usage = (name: string, line: string): void => {
    expect([run(name).code, run(name).stdout, run(name).stderr], name).to.deep.equal([
      2,
      '',
      `sample: ${line} (see pnpm sample -- --help)\n`,
    ]);
  };

  it('--help prints the usage and the options on stdout, exit 0, and runs nothing', () => {
    const { code, stdout, stderr } = run('help');
    expect([code, stderr]).to.deep.equal([0, '']);
    expect(stdout).to.match(/^Usage: pnpm sample -- \[options\]/);
    for (const flag of [
      '--replicas <n>',
      '--shards <m>',
      '--webpage',
      '--kubeconfig <file>',
      '--context <name>',
      '--in-cluster',
      '--version',
    ]) {
      expect(stdout).to.include(flag);
    }
    expect(stdout, 'the internal --replica flag stays hidden').to.not.match(/--replica\b(?!s)/);
    expect(stdout).to.not.include('embedded API server at');
  });

  it("--version prints the sample's version", () => {
    expect([run('version').code, run('version').stdout]).to.deep.equal([0, '0.0.0\n']);
  });

  it('an unknown flag: exit 2, one line', () => {
    usage('unknown', "unknown option '--frobnicate'");
  });

  it('a bad value: exit 2, one line naming the flag and the value it expects', () => {
    usage(
      'replicasX',
      "option '--replicas <n>' argument 'x' is invalid. expected a whole number of replica processes, at least 1 (for example 3).",
    );
    usage(
      'replicasZero',
      "option '--replicas <n>' argument '0' is invalid. expected a whole number of replica processes, at least 1 (for example 3).",
    );
    usage('shardsBad', "option '--shards <m>' argument '1.5' is invalid. expected a whole number of shards, at least 1 (for example 4).");
    usage('shardsAlone', "option '--shards <m>' needs --replicas <n> (the shards are split among the replica processes)");
    usage('conflict', "option '--replicas <n>' cannot be used with option '--kubeconfig <file>'");
  });

  it('a kubeconfig kindex cannot use: its error and fix before any request, no stack, exit 1', () => {
    const http = run('plainHttp');
    expect(http.code).to.equal(1);
    expect(http.stderr).to.include(
      `cluster "dev" of kubeconfig ${join(userDir, 'http.kubeconfig')} has a plain-HTTP server http://127.0.0.1:1 without insecure-skip-tls-verify`,
    );
    expect(http.stderr).to.include('\nFix: use the server');
    expect(http.stderr).to.not.match(/\n\s+at /);
    const context = run('context');
    expect(context.code).to.equal(1);
    expect(context.stderr).to.include(
      `context "staging" given with --context is not in kubeconfig ${join(userDir, 'http.kubeconfig')}; it has contexts: dev`,
    );
  });
});
