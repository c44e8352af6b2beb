// Operator.run() as a process: each case runs fixtures/run-operator-child.ts as a child process
// against the API server over HTTP, sends it SIGTERM or SIGINT, and times its exit from the
// signal. A signal while the start is in progress must end the process within 1 s, not at the
// 120 s cache sync timeout; a running operator stops gracefully, exits 0 and releases its Lease.
// With `exit: false` the process must end by itself: nothing of the operator (timers, informers,
// Lease renewals, the CRD poller) may keep its event loop alive.
import { spawn } from 'node:child_process';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { ResourceID } from '@kindex/core';
import { ApiextensionsV1Api, CustomObjectsApi } from '@kubernetes/client-node';
import { createNamespace, eventually, startTestApiServer, uniqueName, type TestApiServer } from '@kindex/testing';
import { Kinds, KubeClient, type Lease } from '../index.js';
import type { RunFixture } from './fixtures/run-operator-child.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/run-operator-child.ts', import.meta.url));
const PACKAGE_DIR = resolve(dirname(FIXTURE), '../../..');
/** The bound the process must exit within after the signal. */
const EXIT_WITHIN_MS = 1_000;
const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/** A line the child wrote on stdout: pino's JSON lines and the fixture's markers. */
interface ChildLine {
  readonly msg?: string;
  readonly fixture?: string;
  readonly [field: string]: unknown;
}

/** One child process running the fixture. */
class RunChild {
  readonly lines: ChildLine[] = [];
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  readonly #child;

  constructor(kubeconfigFile: string, fixture: RunFixture) {
    this.#child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
      cwd: PACKAGE_DIR,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, KINDEX_KUBECONFIG: kubeconfigFile, KINDEX_FIXTURE: JSON.stringify({ logger: 'info', ...fixture }) },
    });
    let buffered = '';
    this.#child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
        const line = buffered.slice(0, i);
        buffered = buffered.slice(i + 1);
        try {
          this.lines.push(JSON.parse(line) as ChildLine);
        } catch {
          this.lines.push({ msg: `(not JSON) ${line}` });
        }
      }
    });
    this.#child.stderr.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => this.#child.on('exit', (code, signal) => resolve({ code, signal, at: Date.now() })));
  }

  /** Resolves once a line matches (or rejects naming what the child wrote). */
  async waitFor(what: string, match: (line: ChildLine) => boolean, timeoutMs = 30_000): Promise<void> {
    await eventually(
      () => {
        if (!this.lines.some(match)) throw new Error(`child has not logged ${what}; stdout: ${this.#show()}; stderr: ${this.stderr}`);
      },
      { timeoutMs, intervalMs: 50 },
    );
  }

  /** Sends `signal` and returns the exit code and the milliseconds from the signal to the exit. */
  async signalAndWait(signal: NodeJS.Signals): Promise<{ code: number | null; ms: number }> {
    const sent = Date.now();
    this.#child.kill(signal);
    // Far past the bound, so a slow exit is measured rather than cut off; the child is killed after.
    const timeout = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 10_000).unref());
    const exited = await Promise.race([this.exited, timeout]);
    if (exited === undefined) {
      this.#child.kill('SIGKILL');
      throw new Error(`still running 10 s after ${signal}; stdout: ${this.#show()}; stderr: ${this.stderr}`);
    }
    return { code: exited.code, ms: exited.at - sent };
  }

  /** Sends `signal` without waiting. */
  signal(signal: NodeJS.Signals): void {
    this.#child.kill(signal);
  }

  kill(): void {
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill('SIGKILL');
  }

  count(msg: string): number {
    return this.lines.filter((l) => l.msg === msg).length;
  }

  #show(): string {
    return this.lines.map((l) => JSON.stringify(l)).join('\n');
  }
}

describe('Operator.run() as a process', function () {
  this.timeout(120_000);
  let server: TestApiServer;
  let dir: string;
  let kubeconfigFile: string;
  let client: KubeClient;
  let namespace: string;
  let children: RunChild[] = [];
  // Signal-to-exit times, printed once at the end (figures for the change's report).
  const figures: string[] = [];

  before(async function () {
    this.timeout(180_000);
    server = await startTestApiServer();
    dir = mkdtempSync(join(tmpdir(), 'kindex-run-'));
    kubeconfigFile = join(dir, 'kubeconfig');
    writeFileSync(kubeconfigFile, server.kubeconfigYaml, { mode: 0o600 });
    client = new KubeClient(server.kubeConfig);
    namespace = await createNamespace(server.kubeConfig);
  });
  afterEach(() => {
    for (const child of children) child.kill();
    children = [];
  });
  after(async () => {
    if (figures.length > 0) console.log(`      signal to exit (${server.flavor} server): ${figures.join('; ')}`);
    rmSync(dir, { recursive: true, force: true });
    await client.registry?.stopAll();
    await server.stop();
  });

  function runChild(fixture: RunFixture, file = kubeconfigFile): RunChild {
    const child = new RunChild(file, fixture);
    children.push(child);
    return child;
  }

  /** Signals the child and checks the exit code and the time, recording the figure. */
  async function expectExit(child: RunChild, signal: NodeJS.Signals, code: number, label: string): Promise<void> {
    const exit = await child.signalAndWait(signal);
    figures.push(`${label}, ${signal}: exit ${exit.code} in ${exit.ms} ms`);
    expect(exit.code, `${label}, ${signal}: exit code; stderr: ${child.stderr}`).to.equal(code);
    expect(exit.ms, `${label}, ${signal}: ms from the signal to the exit`).to.be.below(EXIT_WITHIN_MS);
  }

  const configMaps: RunFixture['kind'] = { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true };
  const problemLine = (l: ChildLine): boolean => l.msg === 'event source problem (skipped, going on)';
  const startedLine = (l: ChildLine): boolean => l.fixture === 'started';

  /**
   * A primary kind whose list fails with a 5xx on either server: a CRD converting by a
   * webhook that refuses connections, listed in the version it does not store, with one object.
   */
  async function unconvertibleKind(): Promise<RunFixture['kind']> {
    const group = `${uniqueName('conv')}.kindex.dev`;
    const plural = 'gizmos';
    const schema = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };
    await server.kubeConfig.makeApiClient(ApiextensionsV1Api).createCustomResourceDefinition({
      body: {
        metadata: { name: `${plural}.${group}` },
        spec: {
          group,
          scope: 'Namespaced',
          names: { plural, singular: 'gizmo', kind: 'Gizmo', listKind: 'GizmoList' },
          versions: [
            { name: 'v1', served: true, storage: true, schema },
            { name: 'v2', served: true, storage: false, schema },
          ],
          conversion: {
            strategy: 'Webhook',
            // Port 1: nothing listens there, so every conversion fails.
            webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: 'https://127.0.0.1:1/convert' } },
          },
        },
      },
    });
    const custom = server.kubeConfig.makeApiClient(CustomObjectsApi);
    // Until the CRD is established; stored in v1, so creating it needs no conversion.
    await eventually(() =>
      custom.createNamespacedCustomObject({
        group,
        version: 'v1',
        plural,
        namespace,
        body: { apiVersion: `${group}/v1`, kind: 'Gizmo', metadata: { name: 'g' }, spec: {} },
      }),
    );
    return { group, version: 'v2', kind: 'Gizmo', plural, namespaced: true };
  }

  describe('a signal while caches cannot sync exits 1 at once with one line', () => {
    for (const signal of SIGNALS) {
      it(`lists failing with 5xx (a conversion webhook that is down), ${signal}`, async () => {
        const child = runChild({ kind: await unconvertibleKind(), namespace });
        await child.waitFor('a failed list', problemLine);
        // The embedded server names the conversion webhook; kube-apiserver may first answer from its
        // watch cache (504 "Too large resource version") before the conversion fails (500): a 5xx either way.
        const problem = String(child.lines.find(problemLine)?.['error']);
        expect(problem, problem).to.match(/: 5\d\d /);
        expect(child.count('operator running'), 'still starting').to.equal(0);
        await expectExit(child, signal, 1, 'list failing with 5xx');
        expect(child.stderr).to.equal(`kindex: ${signal} during startup: stopped before the operator started\n`);
        expect(child.count('controller stopped')).to.equal(1);
        expect(child.count('operator stopped')).to.equal(1);
        expect(child.count('operator running')).to.equal(0);
      });

      it(`an API server address that refuses connections, ${signal}`, async () => {
        const refused = join(dir, `refused-${signal}.kubeconfig`);
        const url = new URL(server.url);
        writeFileSync(refused, server.kubeconfigYaml.replaceAll(url.origin, `${url.protocol}//127.0.0.1:1`), { mode: 0o600 });
        const child = runChild({ kind: configMaps, namespace }, refused);
        await child.waitFor('a failed list', problemLine);
        await expectExit(child, signal, 1, 'connection refused');
        expect(child.stderr).to.equal(`kindex: ${signal} during startup: stopped before the operator started\n`);
      });
    }

    for (const signal of SIGNALS) {
      it(`a server that accepts connections and never answers, under leader election, ${signal}`, async () => {
        // The Lease's first request and the list both hang; neither may hold the exit up.
        const sockets: Socket[] = [];
        const hung = createServer((socket) => void sockets.push(socket));
        await new Promise<void>((resolve) => hung.listen(0, '127.0.0.1', resolve));
        try {
          const file = join(dir, `hung-${signal}.kubeconfig`);
          const url = new URL(server.url);
          const port = (hung.address() as AddressInfo).port;
          // Plain TCP: over https the hang is in the TLS handshake instead, the same for the client.
          writeFileSync(file, server.kubeconfigYaml.replaceAll(url.origin, `${url.protocol}//127.0.0.1:${port}`), { mode: 0o600 });
          const child = runChild(
            {
              kind: configMaps,
              namespace,
              leaderElection: { leaseName: uniqueName('lease'), leaseNamespace: namespace, identity: `fixture-hung-${signal}` },
            },
            file,
          );
          await child.waitFor('the start', (l) => l.msg === 'starting controller, waiting for caches to sync');
          await eventually(() => expect(sockets.length, 'the Lease request and the list are connected').to.be.at.least(2));
          await expectExit(child, signal, 1, 'server not answering, leader election');
          expect(child.stderr).to.equal(`kindex: ${signal} during startup: stopped before the operator started\n`);
        } finally {
          for (const socket of sockets) socket.destroy();
          hung.close();
        }
      });
    }

    it('with exit: false, run() rejects and nothing keeps the process alive', async () => {
      const child = runChild({ kind: await unconvertibleKind(), namespace, exit: false });
      await child.waitFor('a failed list', problemLine);
      await expectExit(child, 'SIGTERM', 1, 'list failing with 5xx, exit: false');
      expect(child.stderr).to.match(
        /^fixture: StartAbortedError: controller "fixture": start aborted by its signal.*\n {2}cause: SIGTERM\n$/,
      );
    });
  });

  describe('a signal to a running operator stops it gracefully and exits 0', () => {
    /** A Lease held by another identity for an hour. */
    async function leaseHeldByOther(): Promise<{ name: string; holder: string }> {
      const name = uniqueName('lease');
      const holder = 'other-replica';
      const now = new Date().toISOString().replace('Z', '000Z');
      await client.create(Kinds.Lease, {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name, namespace },
        spec: { holderIdentity: holder, leaseDurationSeconds: 3600, acquireTime: now, renewTime: now },
      });
      return { name, holder };
    }
    const holderOf = async (name: string): Promise<string | undefined> =>
      (await client.get<Lease>(Kinds.Lease, ResourceID.of(name, namespace)))?.spec?.holderIdentity ?? undefined;

    for (const signal of SIGNALS) {
      it(`a follower waiting for a Lease another identity holds, ${signal}`, async () => {
        const lease = await leaseHeldByOther();
        const child = runChild({
          kind: configMaps,
          namespace,
          leaderElection: { leaseName: lease.name, leaseNamespace: namespace, identity: `fixture-${signal}` },
        });
        await child.waitFor('following', (l) => l.msg === 'leader election' && l['role'] === 'candidate');
        await child.waitFor('started', startedLine);
        await expectExit(child, signal, 0, 'follower');
        expect(await holderOf(lease.name), 'the other holder keeps its Lease').to.equal(lease.holder);
        expect(child.stderr).to.equal('');
        expect(child.count('operator stopped')).to.equal(1);
      });

      it(`a controller waiting for its CRD (whenCrdMissing: 'wait'), ${signal}`, async () => {
        const group = `${uniqueName('absent')}.kindex.dev`;
        const child = runChild({
          kind: { group, version: 'v1', kind: 'Absent', plural: 'absents', namespaced: true },
          namespace,
          whenCrdMissing: 'wait',
        });
        await child.waitFor('started', startedLine);
        await child.waitFor('the missing CRD', (l) => problemLine(l) && String(l['error']).includes(`absents.${group}`));
        await expectExit(child, signal, 0, 'waiting for a CRD');
        expect(child.count('controller stopped')).to.equal(1);
      });

      it(`the leader releases its Lease, ${signal}`, async () => {
        const leaseName = uniqueName('lease');
        const identity = `fixture-leader-${signal}`;
        const child = runChild({ kind: configMaps, namespace, leaderElection: { leaseName, leaseNamespace: namespace, identity } });
        await child.waitFor('leading', (l) => l.msg === 'leader election' && l['role'] === 'leader');
        await child.waitFor('started', startedLine);
        expect(await holderOf(leaseName)).to.equal(identity);
        await expectExit(child, signal, 0, 'leader');
        expect(await holderOf(leaseName), 'released on the way out').to.be.oneOf(['', undefined]);
        expect(child.count('operator stopped')).to.equal(1);
        expect(child.count('controller stopped')).to.equal(1);
      });
    }

    it('a second signal during the graceful stop exits 1 at once', async () => {
      const child = runChild({ kind: configMaps, namespace, reconcileHangs: true });
      await child.waitFor('started', startedLine);
      await client.create(Kinds.ConfigMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: uniqueName('cm'), namespace } });
      await child.waitFor('a reconcile', (l) => l.fixture === 'reconciling');
      // The first starts a graceful stop, which waits up to 5 s for the hung reconcile to drain.
      const sent = Date.now();
      child.signal('SIGTERM');
      await child.waitFor('the stop', (l) => l.msg === 'signal received, stopping');
      expect(Date.now() - sent).to.be.below(EXIT_WITHIN_MS);
      await expectExit(child, 'SIGINT', 1, 'second signal while draining');
      expect(child.stderr).to.equal('kindex: second signal (SIGINT): exiting at once\n');
      expect(child.count('operator stopped'), 'the drain had not ended').to.equal(0);
    });

    for (const situation of ['follower', 'crd-wait', 'leader'] as const) {
      it(`with exit: false, run() resolves and nothing keeps the process alive (${situation})`, async () => {
        const fixture: RunFixture =
          situation === 'crd-wait'
            ? {
                kind: { group: `${uniqueName('absent')}.kindex.dev`, version: 'v1', kind: 'Absent', plural: 'absents', namespaced: true },
                whenCrdMissing: 'wait',
              }
            : {
                kind: configMaps,
                leaderElection: {
                  leaseName: situation === 'follower' ? (await leaseHeldByOther()).name : uniqueName('lease'),
                  leaseNamespace: namespace,
                  identity: `fixture-${situation}`,
                },
              };
        const child = runChild({ ...fixture, namespace, exit: false });
        await child.waitFor('started', startedLine);
        if (situation === 'leader') await child.waitFor('leading', (l) => l.msg === 'leader election' && l['role'] === 'leader');
        await expectExit(child, 'SIGTERM', 0, `${situation}, exit: false`);
      });
    }
  });

  for (const exit of [true, false]) {
    it(`a start that fails logs the error and its cause once, without a stack, and each stop line once (exit: ${exit})`, async () => {
      const child = runChild({
        exit,
        kind: { group: `${uniqueName('absent')}.kindex.dev`, version: 'v1', kind: 'Absent', plural: 'absents', namespaced: true },
        namespace,
      });
      expect((await child.exited).code).to.equal(1);
      const failed = child.lines.filter((l) => l.msg === 'operator failed to start');
      expect(failed).to.have.length(1);
      const error = String(failed[0]!['error']);
      expect(error.split('\n'), error).to.have.length(3);
      expect(error).to.match(/^CacheSyncError: controller "fixture", event source "primary" cannot start: .* failed with 404\b/);
      expect(error.split('\n')[1]).to.match(/^Fix: install the CustomResourceDefinition absents\./);
      expect(error.split('\n')[2]).to.match(/^ {2}cause: KubeApiError: GET \/apis\/absent.*: 404\b/);
      const all = child.lines.map((l) => JSON.stringify(l)).join('\n');
      expect(all, 'no stack at info level').not.to.match(/"stack"|\n\s+at /);
      expect(child.count('controller stopped')).to.equal(1);
      expect(child.count('operator stopped')).to.equal(1);
      // Printed by run() itself, or with exit: false by the program with formatErrorForUser: the same three lines.
      expect(child.stderr).to.equal(exit ? `kindex: start failed: ${error}\n` : `fixture: ${error}\n`);
    });
  }
});
