import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { expect } from 'chai';
import { startEmbeddedApiServer, type EmbeddedApiServer } from '../apiserver/embedded-api-server.js';

// kubectl drives the embedded server through the imperative commands, which send protobuf bodies
// for built-in kinds (create namespace/configmap, auth can-i, auth whoami), and through get -w,
// edit and delete. `kubectl apply` and `explain` (OpenAPI) have their own test.

function kubectlFound(): boolean {
  return spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8', timeout: 60_000 }).status === 0;
}

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Resolves with what `child` printed once `done` holds for it; rejects if it exits first. */
function readUntil(child: ChildProcess, done: (out: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (done(out)) resolve(out);
    });
    child.once('exit', (code) => reject(new Error(`kubectl exited with ${code} before printing what was awaited:\n${out}`)));
  });
}

describe('kubectl drives the embedded server (imperative create, auth, get -w, edit, delete)', function () {
  this.timeout(240_000);
  let server: EmbeddedApiServer;
  let dir: string;
  const watchers: ChildProcess[] = [];

  before(async function () {
    if (!kubectlFound()) {
      if (process.env['CI'] === 'true')
        throw new Error('kubectl is required in CI (.ci/run installs kubernetes-client) and was not found on PATH');
      console.log('    (kubectl not found on PATH: skipping the kubectl drive)');
      this.skip();
    }
    dir = mkdtempSync(join(tmpdir(), 'kindex-kubectl-'));
    // TLS: kubectl sends bearer tokens over https only. RBAC: the restricted identity is refused.
    server = await startEmbeddedApiServer({ tls: true, authorization: 'RBAC' });
    writeFileSync(join(dir, 'admin'), server.kubeConfig.exportConfig());
    writeFileSync(join(dir, 'alice'), server.userKubeConfig({ username: 'alice', groups: ['developers'] }).exportConfig());
  });

  after(async () => {
    for (const w of watchers) if (w.exitCode === null) w.kill('SIGKILL');
    await server?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  // Asynchronous: the server runs in this process, and spawnSync would block it.
  const kubectl = (as: 'admin' | 'alice', args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> =>
    new Promise((resolve) => {
      const child = spawn('kubectl', ['--kubeconfig', join(dir, as), ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 120_000,
        env: { ...process.env, ...env },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.once('close', (status) => resolve({ status, stdout, stderr }));
    });
  const ok = async (args: string[], env?: NodeJS.ProcessEnv): Promise<string> => {
    const r = await kubectl('admin', args, env);
    expect(r.status, `kubectl ${args.join(' ')}: ${r.stderr}`).to.equal(0);
    return r.stdout;
  };
  const data = async (name: string) =>
    (await server.kubeConfig.makeApiClient(CoreV1Api).readNamespacedConfigMap({ name, namespace: 'demo' })).data;

  it('creates a namespace, a configmap and a secret imperatively (protobuf bodies)', async () => {
    expect(await ok(['create', 'namespace', 'demo'])).to.equal('namespace/demo created\n');
    expect(await ok(['create', 'configmap', 'x', '--from-literal=a=b', '-n', 'demo'])).to.equal('configmap/x created\n');
    expect(await data('x')).to.deep.equal({ a: 'b' });
    // A Secret's data is bytes on the protobuf wire and base64 in JSON.
    expect(await ok(['create', 'secret', 'generic', 's', '--from-literal=token=hello', '-n', 'demo'])).to.equal('secret/s created\n');
    const secret = await server.kubeConfig.makeApiClient(CoreV1Api).readNamespacedSecret({ name: 's', namespace: 'demo' });
    expect(secret.data).to.deep.equal({ token: Buffer.from('hello').toString('base64') });
    expect(secret.type).to.equal('Opaque');
    const namespace = await server.kubeConfig.makeApiClient(CoreV1Api).readNamespace({ name: 'demo' });
    expect(namespace.status?.phase).to.equal('Active');
  });

  it('answers auth can-i yes for the admin and no for a restricted identity', async () => {
    expect(await ok(['auth', 'can-i', 'create', 'configmaps', '-n', 'demo'])).to.equal('yes\n');
    const refused = await kubectl('alice', ['auth', 'can-i', 'create', 'configmaps', '-n', 'demo']);
    expect(refused.status, refused.stderr).to.equal(1);
    expect(refused.stdout).to.equal('no\n');
  });

  it('answers auth whoami with the identity of each kubeconfig', async () => {
    const admin = JSON.parse(await ok(['auth', 'whoami', '-o', 'json'])) as { kind: string; status: { userInfo: { groups: string[] } } };
    expect(admin.kind).to.equal('SelfSubjectReview');
    expect(admin.status.userInfo.groups).to.include('system:masters');
    const alice = await kubectl('alice', ['auth', 'whoami']);
    expect(alice.status, alice.stderr).to.equal(0);
    expect(alice.stdout).to.match(/^Username\s+alice$/m);
    expect(alice.stdout).to.match(/^Groups\s+\[developers system:authenticated\]$/m);
  });

  it('streams get -w rows while another write happens', async () => {
    const watcher = spawn('kubectl', ['--kubeconfig', join(dir, 'admin'), 'get', 'configmaps', '-n', 'demo', '-w'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    watchers.push(watcher);
    const first = await readUntil(watcher, (out) => /^x\s+1\s/m.test(out));
    expect(first.split('\n')[0]!.split(/\s+/)).to.deep.equal(['NAME', 'DATA', 'AGE']);
    const next = readUntil(watcher, (out) => /^y\s+2\s/m.test(out));
    await server.kubeConfig
      .makeApiClient(CoreV1Api)
      .createNamespacedConfigMap({ namespace: 'demo', body: { metadata: { name: 'y' }, data: { k: 'v', l: 'w' } } });
    expect(await next).to.match(/^y\s+2\s+\d+s$/m);
    watcher.kill('SIGKILL');
  });

  it('edits a configmap with a scripted editor', async () => {
    // kubectl runs $EDITOR on a temporary file holding the object as YAML, then patches the changes.
    const editor = join(dir, 'editor.mjs');
    writeFileSync(
      editor,
      "import { readFileSync, writeFileSync } from 'node:fs';\n" +
        'const file = process.argv[2];\n' +
        "writeFileSync(file, readFileSync(file, 'utf8').replace(/^  a: b$/m, '  a: edited'));\n",
    );
    const out = await ok(['edit', 'configmap', 'x', '-n', 'demo'], {
      EDITOR: `${process.execPath} ${editor}`,
      KUBE_EDITOR: '',
    });
    expect(out).to.equal('configmap/x edited\n');
    expect(await data('x')).to.deep.equal({ a: 'edited' });
  });

  it('deletes the configmap', async () => {
    expect(await ok(['delete', 'configmap', 'x', '-n', 'demo'])).to.equal('configmap "x" deleted\n');
    const after = await kubectl('admin', ['get', 'configmap', 'x', '-n', 'demo']);
    expect(after.status).to.equal(1);
    expect(after.stderr).to.contain('configmaps "x" not found');
  });
});
