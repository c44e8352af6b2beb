// samples/job-cluster/deploy (issue 11 §3): the manifests a user applies are accepted by the real
// kube-apiserver's own validation and admission, through `kubectl apply --dry-run=server`.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { skipWithReason, startTestApiServer, type TestApiServer } from '@kindex/testing';

const DEPLOY = fileURLToPath(new URL('../../samples/job-cluster/deploy/', import.meta.url));
const run = promisify(execFile);

async function kubectl(kubeconfig: string, ...args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run('kubectl', ['--kubeconfig', kubeconfig, ...args]);
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number | string; stdout?: string; stderr?: string };
    if (e.code === 'ENOENT') throw error;
    return { code: typeof e.code === 'number' ? e.code : 1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

describe('the Job/Cluster sample deploy manifests', function () {
  this.timeout(120_000);
  let server: TestApiServer;
  let kubeconfig: string;

  before(async function () {
    try {
      await run('kubectl', ['version', '--client']);
    } catch {
      skipWithReason(this, 'kubectl is not installed (CI installs it; apt-get install kubernetes-client)');
    }
    server = await startTestApiServer();
    kubeconfig = path.join(mkdtempSync(path.join(tmpdir(), 'kindex-deploy-')), 'kubeconfig');
    writeFileSync(kubeconfig, server.kubeConfig.exportConfig());
  });
  after(async () => {
    await server?.stop();
  });

  function requireRealServer(context: Mocha.Context): void {
    if (server.flavor !== 'real') {
      skipWithReason(
        context,
        'the embedded API server serves Deployments but does not validate them as kube-apiserver does (a selector that misses its template is accepted)',
      );
    }
  }

  it('are accepted by kubectl apply --dry-run=server on the real kube-apiserver', async function () {
    requireRealServer(this);
    // A server-side dry run creates nothing, so objects in the namespace need it to exist for real.
    const namespace = await kubectl(kubeconfig, 'apply', '-f', path.join(DEPLOY, '00-namespace.yaml'));
    expect(namespace.code, namespace.out).to.equal(0);
    const result = await kubectl(kubeconfig, 'apply', '--dry-run=server', '-f', DEPLOY);
    expect(result.code, result.out).to.equal(0);
    for (const object of [
      'serviceaccount/job-cluster-operator',
      'clusterrole.rbac.authorization.k8s.io/job-cluster-operator',
      'clusterrolebinding.rbac.authorization.k8s.io/job-cluster-operator',
      'role.rbac.authorization.k8s.io/job-cluster-operator-leader-election',
      'rolebinding.rbac.authorization.k8s.io/job-cluster-operator-leader-election',
      'deployment.apps/job-cluster-operator',
      'service/job-cluster-operator-metrics',
    ]) {
      expect(result.out).to.match(new RegExp(`${object.replace(/\./g, '\\.')} (created|configured|unchanged) \\(server dry run\\)`));
    }
  });

  it('would catch a broken manifest: the dry run refuses an invalid Deployment', async function () {
    requireRealServer(this);
    await kubectl(kubeconfig, 'apply', '-f', path.join(DEPLOY, '00-namespace.yaml'));
    const broken = path.join(path.dirname(kubeconfig), 'broken.yaml');
    writeFileSync(
      broken,
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: broken, namespace: kindex-system}\nspec:\n  replicas: 3\n  selector: {matchLabels: {app: a}}\n  template:\n    metadata: {labels: {app: b}}\n    spec: {containers: [{name: c, image: x}]}\n',
    );
    const result = await kubectl(kubeconfig, 'apply', '--dry-run=server', '-f', broken);
    expect(result.code).to.not.equal(0);
    expect(result.out).to.include('selector').and.include('does not match template');
  });
});
