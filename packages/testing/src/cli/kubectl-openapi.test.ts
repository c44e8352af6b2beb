// kubectl (Debian's kubernetes-client, 1.3x) against the embedded server, through what needs
// discovery and OpenAPI: `kubectl apply` validating without --validate=false (kubectl reads the
// kind's PATCH operation in /openapi/v3, sees fieldValidation and sends fieldValidation=Strict, so
// the server refuses unknown fields as a real cluster does) and `kubectl explain` for a built-in
// kind and a custom one, from the v3 documents and from the v2 one (in protobuf). Under CI=true a missing kubectl fails the file.

import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedApiServer, type EmbeddedApiServer } from '../apiserver/embedded-api-server.js';
import { eventually } from '../helpers/eventually.js';

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: default
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx
`;

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gizmos.kubectl.kindex.test
spec:
  group: kubectl.kindex.test
  scope: Namespaced
  names: {plural: gizmos, singular: gizmo, kind: Gizmo}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            description: What the gizmo should be.
            properties:
              size: {type: integer, description: How big the gizmo is.}
`;

function kubectlOnPath(): boolean {
  return spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8', timeout: 60_000 }).status === 0;
}

describe('kubectl apply and explain through discovery and OpenAPI', function () {
  this.timeout(180_000);
  let server: EmbeddedApiServer;
  let dir: string;

  before(async function () {
    if (!kubectlOnPath()) {
      if (process.env['CI']) throw new Error('kubectl is required in CI for the kubectl OpenAPI test, and was not found on PATH');
      console.log('    (kubectl not found on PATH: skipping the kubectl OpenAPI test)');
      this.skip();
    }
    // kubectl sends its bearer token over TLS only.
    server = await startEmbeddedApiServer({ tls: true });
    dir = mkdtempSync(join(tmpdir(), 'kindex-kubectl-openapi-'));
    writeFileSync(join(dir, 'kubeconfig'), server.kubeconfigYaml);
  });

  after(async () => {
    await server?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  // Asynchronous: the server runs in this process, so a blocking spawnSync would starve it.
  const kubectl = (args: string[], stdin?: string): Promise<Run> =>
    new Promise((resolve, reject) => {
      // A cache directory of its own, so no discovery or OpenAPI cached from another server is read.
      const child = spawn('kubectl', ['--kubeconfig', join(dir, 'kubeconfig'), '--cache-dir', join(dir, 'cache'), ...args]);
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.once('error', reject);
      child.once('close', (status) => resolve({ status, stdout, stderr }));
      child.stdin.end(stdin ?? '');
    });

  it('applies a valid Deployment without --validate=false, and applies a change to it', async () => {
    const created = await kubectl(['apply', '-f', '-'], DEPLOYMENT);
    expect(created.stderr).to.equal('');
    expect(created.stdout.trim()).to.equal('deployment.apps/web created');
    const changed = await kubectl(['apply', '-f', '-'], DEPLOYMENT.replace('replicas: 1', 'replicas: 3'));
    expect(changed.stdout.trim()).to.equal('deployment.apps/web configured');
    const replicas = await kubectl(['get', 'deployment', 'web', '-n', 'default', '-o', 'jsonpath={.spec.replicas}']);
    expect(replicas.stdout).to.equal('3');
  });

  it('refuses a manifest with unknown fields as kubectl does on a real cluster, and creates nothing', async () => {
    const manifest = DEPLOYMENT.replace('name: web\n  namespace', 'name: typo\n  namespace')
      .replace('replicas: 1', 'replicas: 1\n  replica: 2')
      .replace('image: nginx', 'image: nginx\n        imagePullPolicyy: Always');
    const refused = await kubectl(['apply', '-f', '-'], manifest);
    expect(refused.status).to.not.equal(0);
    expect(refused.stderr.trim()).to.equal(
      'Error from server (BadRequest): error when creating "STDIN": Deployment in version "v1" cannot be handled as a Deployment: ' +
        'strict decoding error: unknown field "spec.replica", unknown field "spec.template.spec.containers[0].imagePullPolicyy"',
    );
    const get = await kubectl(['get', 'deployment', 'typo', '-n', 'default']);
    expect(get.stderr).to.contain('NotFound');
  });

  it('explains deployment.spec.replicas from the published schema', async () => {
    const explained = await kubectl(['explain', 'deployment.spec.replicas']);
    expect(explained.stderr).to.equal('');
    expect(explained.stdout).to.contain('KIND:       Deployment');
    expect(explained.stdout).to.contain('FIELD: replicas <integer>');
    expect(explained.stdout).to.match(/Number of desired pods\./);
  });

  it('explains deployment.spec.replicas from the v2 document too (kubectl reads it in protobuf)', async () => {
    const explained = await kubectl(['explain', '--output=plaintext-openapiv2', 'deployment.spec.replicas']);
    expect(explained.stderr).to.equal('');
    expect(explained.stdout).to.match(/FIELD:\s+replicas <integer>/);
    expect(explained.stdout).to.match(/Number of desired pods\./);
  });

  it("explains a custom kind's spec from its CRD's schema, and validates its objects", async () => {
    const crd = await kubectl(['apply', '-f', '-'], CRD);
    expect(crd.stdout.trim()).to.equal('customresourcedefinition.apiextensions.k8s.io/gizmos.kubectl.kindex.test created');
    const explained = await eventually(
      async () => {
        const r = await kubectl(['explain', 'gizmo.spec']);
        expect(r.stderr).to.equal('');
        return r;
      },
      { timeoutMs: 30_000, intervalMs: 500 },
    );
    expect(explained.stdout).to.contain('KIND:       Gizmo');
    expect(explained.stdout).to.contain('What the gizmo should be.');
    expect(explained.stdout).to.match(/size\s+<integer>\s+How big the gizmo is\./);
    const v2 = await kubectl(['explain', '--output=plaintext-openapiv2', 'gizmo.spec']);
    expect(v2.stderr).to.equal('');
    expect(v2.stdout).to.match(/size\s+<integer>\s+How big the gizmo is\./);
    const gizmo = 'apiVersion: kubectl.kindex.test/v1\nkind: Gizmo\nmetadata: {name: g1, namespace: default}\nspec: {size: 3}\n';
    const refused = await kubectl(['apply', '-f', '-'], gizmo.replace('size: 3', 'size: 3, colour: red'));
    expect(refused.stderr.trim()).to.equal(
      'Error from server (BadRequest): error when creating "STDIN": Gizmo in version "v1" cannot be handled as a Gizmo: strict decoding error: unknown field "spec.colour"',
    );
    const applied = await kubectl(['apply', '-f', '-'], gizmo);
    expect(applied.stdout.trim()).to.equal('gizmo.kubectl.kindex.test/g1 created');
  });
});
