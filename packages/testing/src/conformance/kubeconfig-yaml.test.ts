// `TestApiServer.kubeconfigYaml` is documented for child processes: a process that loads it with
// client-node's KubeConfig must reach the server with it. On the embedded server it must do so
// over plain HTTP too (its default), where client-node refuses an `http://` cluster unless
// `insecure-skip-tls-verify` is set, and over HTTPS with its self-signed
// certificate; on a real kube-apiserver, with whatever the launcher wrote.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { startEmbeddedApiServer } from '../apiserver/embedded-api-server.js';
import { uniqueName } from '../helpers/unique-name.js';
import type { TestApiServer } from '../test-api-server.js';
import { useConformanceFixture } from './conformance-fixture.js';

// Runs in a child process with this package's node_modules: loads the kubeconfig from a file, as
// kubectl-minded tools do, creates a ConfigMap and prints its uid.
const CHILD = `
import { readFileSync } from 'node:fs';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
const kubeConfig = new KubeConfig();
kubeConfig.loadFromString(readFileSync(process.argv[1], 'utf8'));
const core = kubeConfig.makeApiClient(CoreV1Api);
const created = await core.createNamespacedConfigMap({ namespace: process.argv[2], body: { metadata: { name: process.argv[3] } } });
console.log(created.metadata.uid);
`;

/**
 * Creates ConfigMap `name` in `namespace` from a child process given only the server's
 * kubeconfigYaml. Asynchronously: the embedded server runs in this process and must keep
 * answering meanwhile.
 */
async function createFromChildProcess(server: TestApiServer, namespace: string, name: string): Promise<ChildResult> {
  const dir = mkdtempSync(join(tmpdir(), 'kindex-kubeconfig-'));
  try {
    const file = join(dir, 'kubeconfig');
    writeFileSync(file, server.kubeconfigYaml, { mode: 0o600 });
    return await new Promise((resolve) => {
      execFile(
        process.execPath,
        ['--input-type=module', '-e', CHILD, file, namespace, name],
        { cwd: new URL('../..', import.meta.url), encoding: 'utf8', timeout: 60_000 },
        (error, stdout, stderr) =>
          resolve({ status: error === null ? 0 : typeof error.code === 'number' ? error.code : null, stdout, stderr }),
      );
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface ChildResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

describe('conformance: kubeconfigYaml in a child process', function () {
  this.timeout(120_000);
  const fixture = useConformanceFixture();

  it('lets a client-node process in another process create an object on this server', async () => {
    const { server, core, namespace } = fixture();
    const name = uniqueName('child');
    const r = await createFromChildProcess(server, namespace, name);
    expect(r.status, r.stderr).to.equal(0);
    const read = await core.readNamespacedConfigMap({ namespace, name });
    expect(r.stdout.trim()).to.equal(read.metadata?.uid);
  });

  for (const tls of [false, true]) {
    it(`works for the embedded server over ${tls ? 'HTTPS (self-signed)' : 'plain HTTP'} whatever KINDEX_APISERVER says`, async () => {
      const server = await startEmbeddedApiServer({ tls });
      try {
        expect(server.url.startsWith(tls ? 'https:' : 'http:')).to.equal(true);
        const r = await createFromChildProcess(server, 'default', uniqueName('child'));
        expect(r.status, r.stderr).to.equal(0);
        expect(r.stdout.trim()).to.match(/^[0-9a-f-]{36}$/);
      } finally {
        await server.stop();
      }
    });
  }
});
