import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient, Kinds, loadKubeConfig } from '@kindex/informer';
import { startTestApiServer, type TestApiServer } from '@kindex/testing';

describe('loadKubeConfig against a server', function () {
  this.timeout(120_000);
  let server: TestApiServer;
  let dir: string;
  before(async () => {
    server = await startTestApiServer();
    dir = mkdtempSync(join(tmpdir(), 'kindex-kubeconfig-server-'));
    mkdirSync(join(dir, '.kube'));
    // The kubeconfig the server writes for kubectl, as a user's file.
    writeFileSync(join(dir, 'kubeconfig'), server.kubeconfigYaml, { mode: 0o600 });
    writeFileSync(join(dir, '.kube', 'config'), server.kubeconfigYaml, { mode: 0o600 });
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const [how, options] of [
    ['--kubeconfig', () => ({ kubeconfig: 'kubeconfig', cwd: dir, env: {} })],
    ['KUBECONFIG', () => ({ env: { KUBECONFIG: join(dir, 'kubeconfig') } })],
    ['~/.kube/config', () => ({ env: { HOME: dir } })],
  ] as const) {
    it(`reaches the server with the kubeconfig it wrote, found through ${how}`, async () => {
      const kubeConfig = loadKubeConfig(options());
      expect(kubeConfig.getCurrentCluster()?.server).to.equal(server.url);
      const namespaces = await new KubeClient(kubeConfig).list(Kinds.Namespace);
      expect(namespaces.map((n) => n.metadata?.name)).to.include('default');
    });
  }
});
