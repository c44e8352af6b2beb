#!/usr/bin/env node
// The generated project end to end on a real kube-apiserver (the real tier, run by
// scripts/real-apiserver/ci.sh): published to a loopback registry and created from it as
// check-create-kindex.mjs does, then
//   1. its test suite with KINDEX_APISERVER=real (the same files as on the embedded server);
//   2. `npm run manifests`, and the whole config/ applied to a real kube-apiserver with
//      `kubectl apply --server-side -k config/`, as the README says;
//   3. the operator started as its pod would be: as the generated ServiceAccount (a token from
//      the TokenRequest API, the cluster's CA, KUBERNETES_SERVICE_HOST/PORT, POD_NAMESPACE and
//      POD_NAME). loadKubeConfig reads the token and CA only from the fixed paths under
//      /var/run/secrets/kubernetes.io/serviceaccount, which this process cannot provide without
//      touching the machine, so they reach the operator as a kubeconfig built from the same token
//      and CA ($KUBECONFIG): the same identity, so the generated RBAC alone decides what it may do;
//   4. a Widget reconciled to Ready with its ConfigMap and Event, the leader Lease held, /metrics
//      refusing an anonymous scrape; SIGTERM: exit 0 and the Lease released.
// Prints the operator's startup time to ready and the generated suite's time on the real server.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import https from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';
import { removeUnknownNpmConfig } from './npm-env.mjs';
import { startLocalRegistry } from './create-kindex/local-registry.mjs';
import { publishWorkspace, run, seconds } from './create-kindex/harness.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
removeUnknownNpmConfig(process.env);
register();
const { startRealApiServer } = await import(join(root, 'packages', 'testing', 'src', 'internal.ts'));

const NAME = 'npm-app';
const NAMESPACE = `${NAME}-system`;
const PROBE_PORT = 8081;
const METRICS_PORT = 8443;

async function portFree(port) {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Polls `check` (returning a value when done, undefined when not yet) until `timeoutMs`. */
async function waitFor(what, timeoutMs, check) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${last.message}` : ''}`);
    await sleep(200);
  }
}

const started = Date.now();
const work = mkdtempSync(join(tmpdir(), 'kindex-in-cluster-'));
const registry = await startLocalRegistry(root);
let server;
let operator;
let operatorOutput = '';
const figures = [];
try {
  for (const port of [PROBE_PORT, METRICS_PORT]) {
    if (!(await portFree(port)))
      throw new Error(`port ${port} is taken: the generated operator listens there (probes ${PROBE_PORT}, metrics ${METRICS_PORT})`);
  }
  const env = { ...process.env, ...registry.env };
  for (const name of ['npm_config_user_agent', 'KINDEX_APISERVER', 'INIT_CWD', 'KUBECONFIG']) delete env[name];
  const version = await publishWorkspace(root, registry, env);
  const npx = join(spawnSync('npm', ['config', 'get', 'cache'], { env, encoding: 'utf8' }).stdout.trim(), '_npx');
  for (const entry of existsSync(npx) ? readdirSync(npx) : []) {
    if (existsSync(join(npx, entry, 'node_modules', 'create-kindex'))) rmSync(join(npx, entry), { recursive: true, force: true });
  }
  run('npm', ['create', '--yes', `kindex@${version}`, '--', NAME, '--yes'], { cwd: work, env });
  const app = join(work, NAME);
  run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], { cwd: app, env });

  // 1. The generated suite, unchanged, on a real kube-apiserver.
  const suite = run('npm', ['test'], { cwd: app, env: { ...env, KINDEX_APISERVER: 'real' } });
  figures.push(`generated suite on the real kube-apiserver (KINDEX_APISERVER=real npm test): ${suite.seconds.toFixed(1)} s`);

  // 2. The manifests on a real kube-apiserver.
  run('npm', ['run', 'manifests'], { cwd: app, env });
  server = await startRealApiServer();
  const admin = join(work, 'admin.kubeconfig');
  writeFileSync(admin, server.kubeConfig.exportConfig());
  const kubectl = (...args) => run('kubectl', ['--kubeconfig', admin, ...args], { cwd: app, env, capture: true, quiet: true }).stdout;
  console.log(kubectl('apply', '--server-side', '-k', 'config/'));
  kubectl('wait', '--for', 'condition=Established', '--timeout', '60s', 'crd/widgets.example.com');

  // 3. The operator as its pod runs it: the ServiceAccount's token, the cluster's CA.
  const token = kubectl('create', 'token', NAME, '-n', NAMESPACE, '--duration', '1h').trim();
  const cluster = server.kubeConfig.getCurrentCluster();
  const url = new URL(cluster.server);
  const serviceAccountConfig = join(work, 'service-account.kubeconfig');
  writeFileSync(
    serviceAccountConfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'in-cluster', cluster: { server: cluster.server, 'certificate-authority-data': cluster.caData } }],
      users: [{ name: NAME, user: { token } }],
      contexts: [{ name: 'in-cluster', context: { cluster: 'in-cluster', user: NAME, namespace: NAMESPACE } }],
      'current-context': 'in-cluster',
    }),
  );
  const podEnv = {
    PATH: process.env.PATH,
    HOME: work,
    KUBECONFIG: serviceAccountConfig,
    KUBERNETES_SERVICE_HOST: url.hostname,
    KUBERNETES_SERVICE_PORT: url.port,
    POD_NAMESPACE: NAMESPACE,
    POD_NAME: `${NAME}-7d9f8c6b5-x2x4q`,
    // Tests listen on loopback only; in a pod the template's servers take every interface.
    BIND_ADDRESS: '127.0.0.1',
  };
  const spawned = Date.now();
  operator = spawn(process.execPath, ['dist/main.js'], { cwd: app, env: podEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  operator.stdout.on('data', (d) => (operatorOutput += d));
  operator.stderr.on('data', (d) => (operatorOutput += d));
  const exited = new Promise((resolve) => operator.once('exit', (code, signal) => resolve({ code, signal })));
  await waitFor('/readyz of the operator', 60_000, async () => {
    if (operator.exitCode !== null) throw new Error(`the operator exited with ${operator.exitCode}:\n${operatorOutput}`);
    const response = await fetch(`http://127.0.0.1:${PROBE_PORT}/readyz`);
    return response.status === 200 ? true : undefined;
  });
  figures.push(`operator startup to ready (/readyz 200, in-cluster identity, real server): ${seconds(spawned)} s`);

  // 4. A Widget reconciled to Ready under the generated RBAC.
  kubectl('create', 'namespace', 'demo');
  const created = Date.now();
  writeFileSync(
    join(work, 'widget.yaml'),
    JSON.stringify({
      apiVersion: 'example.com/v1alpha1',
      kind: 'Widget',
      metadata: { name: 'hello', namespace: 'demo' },
      spec: { message: 'Hello from the real tier' },
    }),
  );
  kubectl('apply', '--server-side', '-f', join(work, 'widget.yaml'));
  await waitFor('the Widget to be Ready', 60_000, () => {
    const widget = JSON.parse(kubectl('get', 'widget', 'hello', '-n', 'demo', '-o', 'json'));
    const ready = widget.status?.conditions?.find((c) => c.type === 'Ready');
    if (ready?.status === 'True') return ready;
    if (operator.exitCode !== null) throw new Error(`the operator exited with ${operator.exitCode}`);
    return undefined;
  });
  figures.push(`Widget created to Ready: ${seconds(created)} s`);
  const configMap = JSON.parse(kubectl('get', 'configmap', 'hello-widget', '-n', 'demo', '-o', 'json'));
  if (configMap.data?.message !== 'Hello from the real tier')
    throw new Error(`ConfigMap hello-widget holds ${JSON.stringify(configMap.data)}`);
  if (configMap.metadata.ownerReferences?.[0]?.name !== 'hello') throw new Error('ConfigMap hello-widget is not owned by the Widget');
  // The widget's default: `key` was left out and the API server filled it in.
  const widget = JSON.parse(kubectl('get', 'widget', 'hello', '-n', 'demo', '-o', 'json'));
  if (widget.spec.key !== 'message') throw new Error(`spec.key was not defaulted: ${JSON.stringify(widget.spec)}`);
  await waitFor('the ConfigMapReady Event', 30_000, () => {
    const events = JSON.parse(kubectl('get', 'events.v1.events.k8s.io', '-n', 'demo', '-o', 'json')).items;
    return events.some((e) => e.reason === 'ConfigMapReady' && e.regarding?.name === 'hello') ? true : undefined;
  });
  const lease = JSON.parse(kubectl('get', 'lease', NAME, '-n', NAMESPACE, '-o', 'json'));
  if (!lease.spec.holderIdentity) throw new Error(`the Lease ${NAMESPACE}/${NAME} has no holder while the operator runs`);
  // /metrics is HTTPS (a self-signed certificate, not verified here) and refuses a scrape without a token.
  const anonymous = await new Promise((resolve, reject) => {
    const request = https.get(`https://127.0.0.1:${METRICS_PORT}/metrics`, { rejectUnauthorized: false }, (response) => {
      response.resume();
      resolve(response.statusCode);
    });
    request.on('error', reject);
  });
  if (anonymous !== 401) throw new Error(`an anonymous scrape of https://127.0.0.1:${METRICS_PORT}/metrics got ${anonymous}, not 401`);
  const forbidden = /forbidden/i.test(operatorOutput) ? operatorOutput.split('\n').find((l) => /forbidden/i.test(l)) : undefined;
  if (forbidden) throw new Error(`the operator was refused a request under the generated RBAC: ${forbidden}`);

  // SIGTERM: drain, release the Lease, exit 0.
  const stopping = Date.now();
  operator.kill('SIGTERM');
  const { code, signal } = await Promise.race([exited, sleep(60_000).then(() => ({ code: 'timeout' }))]);
  if (code !== 0)
    throw new Error(`after SIGTERM the operator ended with ${code ?? signal}:\n${operatorOutput.split('\n').slice(-20).join('\n')}`);
  figures.push(`SIGTERM to exit 0: ${seconds(stopping)} s`);
  const released = JSON.parse(kubectl('get', 'lease', NAME, '-n', NAMESPACE, '-o', 'json'));
  if (released.spec.holderIdentity) throw new Error(`the Lease is still held by ${released.spec.holderIdentity} after the operator exited`);

  console.log(
    `\ncreate-kindex in-cluster: the generated operator reconciled a Widget to Ready under its generated RBAC and released its Lease; ${seconds(started)} s`,
  );
  for (const figure of figures) console.log(`  ${figure}`);
} catch (error) {
  console.error(`\ncreate-kindex in-cluster check failed: ${error instanceof Error ? error.message : String(error)}`);
  if (operatorOutput) console.error(`operator output (last lines):\n${operatorOutput.split('\n').slice(-30).join('\n')}`);
  process.exitCode = 1;
} finally {
  if (operator && operator.exitCode === null) operator.kill('SIGKILL');
  await server?.stop();
  await registry.stop();
  rmSync(work, { recursive: true, force: true });
}
