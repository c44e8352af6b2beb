import { expect } from 'chai';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { createServiceAccount } from '../helpers/create-service-account.js';

const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'kindex-apiserver.js');

function findKubectl(): string | undefined {
  const r = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8', timeout: 60_000 });
  return r.status === 0 ? 'kubectl' : undefined;
}

// Resolves with the lines the CLI printed once it reported the kubeconfig.
function waitForStartup(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('kubeconfig written to')) resolve(out);
    });
    child.stderr!.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.once('exit', (code) => reject(new Error(`kindex-apiserver exited with ${code} before starting:\n${out}`)));
  });
}

/** SIGTERMs a CLI process that still runs, and waits for it to exit. */
async function stopCli(child: ChildProcess | undefined): Promise<void> {
  if (child === undefined || child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/** A fresh directory per test, and the CLI a test started; both cleaned up after each test. */
function useCliScratch(prefix: string): { dir: string; child: ChildProcess | undefined } {
  const scratch: { dir: string; child: ChildProcess | undefined } = { dir: '', child: undefined };
  beforeEach(() => {
    scratch.dir = mkdtempSync(join(tmpdir(), prefix));
  });
  afterEach(async () => {
    await stopCli(scratch.child);
    scratch.child = undefined;
    rmSync(scratch.dir, { recursive: true, force: true });
  });
  return scratch;
}

describe('kindex-apiserver (CLI)', function () {
  this.timeout(240_000);
  const scratch = useCliScratch('kindex-cli-');
  let kubectl: string | undefined;

  before(function () {
    kubectl = findKubectl();
    if (kubectl === undefined) {
      if (process.env['CI']) throw new Error('kubectl is required in CI for the kindex-apiserver round trip, and was not found on PATH');
      console.log('    (kubectl not found on PATH: skipping the kubectl round trip)');
      this.skip();
    }
  });

  const run = (...args: string[]): { status: number | null; stdout: string; stderr: string } => {
    const r = spawnSync(kubectl!, ['--kubeconfig', join(scratch.dir, 'kubeconfig'), ...args], { encoding: 'utf8', timeout: 120_000 });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };

  it('serves kubectl apply, get, get --watch and delete, and stops on SIGTERM', async () => {
    scratch.child = spawn(process.execPath, [BIN, '--port', '0', '--kubeconfig', join(scratch.dir, 'kubeconfig')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const banner = await waitForStartup(scratch.child);
    expect(banner).to.match(/listening on https:\/\/127\.0\.0\.1:\d+/);

    writeFileSync(
      join(scratch.dir, 'cm.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-kubectl\n  namespace: default\ndata:\n  hello: world\n',
    );
    const applied = run('apply', '--validate=false', '-f', join(scratch.dir, 'cm.yaml'));
    expect(applied.status, applied.stderr).to.equal(0);
    expect(applied.stdout).to.contain('configmap/from-kubectl created');

    const got = run('get', 'configmaps', '-n', 'default', '-o', 'json');
    expect(got.status, got.stderr).to.equal(0);
    const list = JSON.parse(got.stdout) as { items: { metadata: { name: string }; data: Record<string, string> }[] };
    expect(list.items.map((i) => i.metadata.name)).to.deep.equal(['from-kubectl']);
    expect(list.items[0]!.data).to.deep.equal({ hello: 'world' });

    const watcher = spawn(
      kubectl!,
      ['--kubeconfig', join(scratch.dir, 'kubeconfig'), 'get', 'configmaps', '-n', 'default', '--watch', '-o', 'name'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const firstLine = await new Promise<string>((resolve, reject) => {
      let out = '';
      watcher.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) resolve(out.split('\n')[0]!);
      });
      watcher.once('exit', (code) => reject(new Error(`kubectl get --watch exited with ${code}`)));
    });
    watcher.kill('SIGKILL');
    expect(firstLine).to.equal('configmap/from-kubectl');

    // Without -o, kubectl watches for server-side Table rows and prints them under one header.
    const tableWatcher = spawn(
      kubectl!,
      ['--kubeconfig', join(scratch.dir, 'kubeconfig'), 'get', 'configmaps', '-n', 'default', '--watch'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const tableLines = await new Promise<string[]>((resolve, reject) => {
      let out = '';
      tableWatcher.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const lines = out.split('\n');
        if (lines.length > 2) resolve(lines.slice(0, 2));
      });
      tableWatcher.once('exit', (code) => reject(new Error(`kubectl get --watch exited with ${code}`)));
    });
    tableWatcher.kill('SIGKILL');
    expect(tableLines[0]!.split(/\s+/)).to.deep.equal(['NAME', 'DATA', 'AGE']);
    expect(tableLines[1]!.split(/\s+/).slice(0, 2)).to.deep.equal(['from-kubectl', '1']);

    const deleted = run('delete', 'configmap', 'from-kubectl', '-n', 'default');
    expect(deleted.status, deleted.stderr).to.equal(0);
    expect(deleted.stdout).to.contain('"from-kubectl" deleted');
    const after = run('get', 'configmaps', '-n', 'default', '-o', 'json');
    expect(JSON.parse(after.stdout).items).to.deep.equal([]);

    const exited = new Promise<number | null>((r) => scratch.child!.once('exit', (code) => r(code)));
    scratch.child.kill('SIGTERM');
    expect(await exited).to.equal(0);
  });

  it('serves kubectl apply --server-side (conflicts included) and prints kubectl get as a server-side Table', async () => {
    scratch.child = spawn(process.execPath, [BIN, '--port', '0', '--kubeconfig', join(scratch.dir, 'kubeconfig')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await waitForStartup(scratch.child);
    const manifest = (value: string) =>
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\n  namespace: default\ndata:\n  hello: ${value}\n  other: x\n`;
    writeFileSync(join(scratch.dir, 'a.yaml'), manifest('world'));
    writeFileSync(join(scratch.dir, 'b.yaml'), manifest('moon'));

    const applied = run('apply', '--server-side', '--validate=false', '-f', join(scratch.dir, 'a.yaml'));
    expect(applied.status, applied.stderr).to.equal(0);
    expect(applied.stdout).to.contain('configmap/ssa serverside-applied');
    const conflict = run(
      'apply',
      '--server-side',
      '--field-manager',
      'someone-else',
      '--validate=false',
      '-f',
      join(scratch.dir, 'b.yaml'),
    );
    expect(conflict.status).to.not.equal(0);
    expect(conflict.stderr).to.contain('conflict with "kubectl"').and.contain('.data.hello');
    const forced = run(
      'apply',
      '--server-side',
      '--force-conflicts',
      '--field-manager',
      'someone-else',
      '--validate=false',
      '-f',
      join(scratch.dir, 'b.yaml'),
    );
    expect(forced.status, forced.stderr).to.equal(0);

    const json = JSON.parse(run('get', 'configmap', 'ssa', '-n', 'default', '-o', 'json', '--show-managed-fields').stdout) as {
      data: Record<string, string>;
      metadata: { managedFields: { manager: string; operation: string }[] };
    };
    expect(json.data).to.deep.equal({ hello: 'moon', other: 'x' });
    expect(json.metadata.managedFields.map((e) => [e.manager, e.operation])).to.have.deep.members([
      ['kubectl', 'Apply'],
      ['someone-else', 'Apply'],
    ]);

    // kubectl's own printing would show NAME and AGE only; DATA comes from the server's Table.
    const table = run('get', 'configmaps', '-n', 'default');
    expect(table.status, table.stderr).to.equal(0);
    expect(table.stdout.split('\n')[0]).to.match(/^NAME\s+DATA\s+AGE$/);
    expect(table.stdout).to.match(/\nssa\s+2\s+\d+s/);
  });
});

// `pnpm apiserver --kubeconfig kindex.kubeconfig` runs the CLI in packages/testing/ with INIT_CWD
// set to where the user typed it: the file belongs there, and a path that
// cannot be written gets one line, not a stack trace. No kubectl needed.
describe('kindex-apiserver (CLI) --kubeconfig paths', function () {
  this.timeout(60_000);
  const PACKAGE_DIR = join(dirname(BIN), '..');
  const scratch = useCliScratch('kindex-cli-user-');

  it('writes a relative --kubeconfig into the directory the command ran from (INIT_CWD), not the package', async () => {
    const name = `kindex-${process.pid}-${Date.now()}.kubeconfig`;
    scratch.child = spawn(process.execPath, [BIN, '--kubeconfig', name], {
      cwd: PACKAGE_DIR,
      env: { ...process.env, INIT_CWD: scratch.dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const banner = await waitForStartup(scratch.child);
    expect(banner).to.include(`kubeconfig written to ${join(scratch.dir, name)}`);
    expect(readFileSync(join(scratch.dir, name), 'utf8')).to.match(/server: https:\/\/127\.0\.0\.1:\d+/);
    expect(existsSync(join(PACKAGE_DIR, name)), 'nothing written into packages/testing').to.equal(false);
  });

  it('without INIT_CWD (run by plain node), resolves against the working directory', async () => {
    const env = { ...process.env };
    delete env['INIT_CWD'];
    scratch.child = spawn(process.execPath, [BIN, '--kubeconfig', 'here.kubeconfig'], {
      cwd: scratch.dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await waitForStartup(scratch.child);
    expect(existsSync(join(scratch.dir, 'here.kubeconfig'))).to.equal(true);
  });

  it('says in one line, and exits 2, when the directory of --kubeconfig does not exist', () => {
    const r = spawnSync(process.execPath, [BIN, '--kubeconfig', join('no-such-dir', 'kindex.kubeconfig')], {
      cwd: PACKAGE_DIR,
      env: { ...process.env, INIT_CWD: scratch.dir },
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status).to.equal(2);
    expect(r.stderr.trim().split('\n'), r.stderr).to.deep.equal([
      `kindex-apiserver: cannot write --kubeconfig ${join(scratch.dir, 'no-such-dir', 'kindex.kubeconfig')}: directory ${join(scratch.dir, 'no-such-dir')} does not exist`,
    ]);
    expect(r.stdout).to.equal('');
  });
});

describe('kindex-apiserver (CLI) command line', function () {
  // Each case starts a process that compiles the CLI through tsx: seconds each on a loaded machine.
  this.timeout(180_000);
  const cli = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 50_000 });

  it('--help prints the usage and every flag on stdout, exit 0', () => {
    const r = cli('--help');
    expect(r.status, r.stderr).to.equal(0);
    expect(r.stdout).to.match(/^Usage: kindex-apiserver \[options\]/);
    for (const flag of [
      '--port <n>',
      '--kubeconfig <file>',
      '--token <t>',
      '--history-window <n>',
      '--bookmark-interval-ms <n>',
      '--plain-http',
      '--authorization-mode <mode>',
      '--version',
    ]) {
      expect(r.stdout).to.include(flag);
    }
  });

  it("--version prints @kindex/testing's version, exit 0, also after the `--` of `pnpm apiserver -- --version`", () => {
    const { version } = JSON.parse(readFileSync(join(dirname(BIN), '..', 'package.json'), 'utf8')) as { version: string };
    const r = cli('--version');
    expect([r.status, r.stdout]).to.deep.equal([0, `${version}\n`]);
    const afterDashes = cli('--', '--version');
    expect([afterDashes.status, afterDashes.stdout]).to.deep.equal([0, `${version}\n`]);
  });

  it('exits 2 with one line for an unknown flag', () => {
    const r = cli('--frobnicate');
    expect([r.status, r.stdout, r.stderr]).to.deep.equal([
      2,
      '',
      "kindex-apiserver: unknown option '--frobnicate' (see kindex-apiserver --help)\n",
    ]);
  });

  it('exits 2 naming the flag and the value it expects', () => {
    const expectations: [string[], string][] = [
      [['--port', '70000'], "option '--port <n>' argument '70000' is invalid. expected a port from 0 to 65535."],
      [['--history-window', '-1'], "option '--history-window <n>' argument '-1' is invalid. expected an integer from 0."],
      [['--bookmark-interval-ms', 'soon'], "option '--bookmark-interval-ms <n>' argument 'soon' is invalid. expected an integer from 0."],
      [['--token', ''], "option '--token <t>' argument '' is invalid. expected a token, got an empty string."],
      [
        ['--authorization-mode', 'Webhook'],
        "option '--authorization-mode <mode>' argument 'Webhook' is invalid. Allowed choices are AlwaysAllow, RBAC.",
      ],
    ];
    for (const [args, message] of expectations) {
      const r = cli(...args);
      expect([r.status, r.stderr], args.join(' ')).to.deep.equal([2, `kindex-apiserver: ${message} (see kindex-apiserver --help)\n`]);
    }
  });
});

// kube-apiserver --authorization-mode=RBAC: the kubeconfig the CLI writes is system:masters (it can
// do everything), and a ServiceAccount nothing is bound to is refused.
describe('kindex-apiserver (CLI) --authorization-mode RBAC', function () {
  this.timeout(120_000);
  const scratch = useCliScratch('kindex-cli-rbac-');

  it("lets the written kubeconfig's user do everything and refuses a ServiceAccount without bindings with 403", async () => {
    const kubeconfig = join(scratch.dir, 'kubeconfig');
    scratch.child = spawn(process.execPath, [BIN, '--authorization-mode', 'RBAC', '--kubeconfig', kubeconfig], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(await waitForStartup(scratch.child)).to.match(/listening on https:\/\/127\.0\.0\.1:\d+ \(authorization: RBAC\)/);
    const admin = new KubeConfig();
    admin.loadFromFile(kubeconfig);
    const core = admin.makeApiClient(CoreV1Api);
    expect((await core.listNamespace()).items.map((n) => n.metadata?.name)).to.include('default');
    const sa = await createServiceAccount(admin, 'default');
    const refused = await sa.kubeConfig
      .makeApiClient(CoreV1Api)
      .listNamespacedConfigMap({ namespace: 'default' })
      .then(
        () => undefined,
        (e: { code?: number; body?: string }) => e,
      );
    expect(refused?.code).to.equal(403);
    expect(refused?.body).to.include(`User \\"${sa.user}\\" cannot list resource \\"configmaps\\"`);

    const kubectl = findKubectl();
    if (kubectl === undefined) return; // the first suite requires kubectl in CI
    const canI = (...args: string[]) =>
      spawnSync(kubectl, ['--kubeconfig', kubeconfig, 'auth', 'can-i', ...args], { encoding: 'utf8', timeout: 60_000 });
    expect(canI('*', '*').stdout.trim()).to.equal('yes');
    const asAccount = canI('list', 'configmaps', '--as', sa.user);
    expect([asAccount.status, asAccount.stdout.trim()]).to.deep.equal([1, 'no']);
  });
});
