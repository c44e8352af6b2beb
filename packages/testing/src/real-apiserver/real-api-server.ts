import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { stringify as toYaml } from 'yaml';
import { rawRequest } from '../helpers/raw-request.js';
import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';
import { TEST_API_SERVER_OPTIONS, type ApiServerFaults, type TestApiServer, type TestApiServerOptions } from '../test-api-server.js';
import { EtcdGateway } from './internal/etcd-gateway.js';
import { freePorts } from './internal/free-port.js';
import { startOrphanWatchdog } from './internal/orphan-watchdog.js';
import { addExitCleanup, ProcessGroup, removeExitCleanup } from './internal/process-group.js';
import { realApiServerBinaries, type RealApiServerBinaries } from './real-api-server-binaries.js';
import { RealApiServerStartError } from './real-api-server-start-error.js';

/**
 * Options of {@link startRealApiServer}; `historyWindow` and `bookmarkIntervalMs` are ignored, and
 * `shardedListAndWatch` (default true) passes `--feature-gates=ShardedListAndWatch=true`, and
 * `cborServingAndStorage` (default false) `CBORServingAndStorage=true`.
 * `garbageCollection` (default true) runs kube-controller-manager's garbage collector and
 * namespace controller beside kube-apiserver; false leaves deleted namespaces `Terminating` and
 * dependents in place, as a bare kube-apiserver does.
 *
 * @example
 * ```ts
 * import { startRealApiServer, type RealApiServerOptions } from '@kindex/testing/internal';
 *
 * // More kube-apiserver logging for one suite; allow a slow CI machine a minute to start.
 * const options: RealApiServerOptions = { startTimeoutMs: 60_000, extraApiServerArgs: ['--v=4'] };
 * const server = await startRealApiServer(options);
 * ```
 */
export interface RealApiServerOptions extends TestApiServerOptions {
  /** The binaries to run. Defaults to {@link realApiServerBinaries}(). */
  readonly binaries?: RealApiServerBinaries;
  /** How long etcd plus kube-apiserver may take to become ready, in milliseconds. Defaults to 120000. */
  readonly startTimeoutMs?: number;
  /** More kube-apiserver flags, appended (a later flag wins). Defaults to none. */
  readonly extraApiServerArgs?: readonly string[];
  /**
   * Whether kube-controller-manager runs its garbage collector and namespace controller beside
   * kube-apiserver. Defaults to true.
   */
  readonly garbageCollection?: boolean;
  /** More kube-controller-manager flags, appended (a later flag wins). Defaults to none. */
  readonly extraControllerManagerArgs?: readonly string[];
}

/** {@link RealApiServerOptions}' keys and value checks: unknown keys are rejected, not ignored. */
const REAL_API_SERVER_OPTIONS = defineOptions<RealApiServerOptions>('startRealApiServer options', {
  ...TEST_API_SERVER_OPTIONS.properties,
  binaries: Type.Optional(Type.Unknown()),
  startTimeoutMs: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'a positive number of milliseconds' })),
  extraApiServerArgs: Type.Optional(Type.Array(Type.String(), { description: "an array of flags such as ['--v=4']" })),
  garbageCollection: Type.Optional(Type.Boolean({ description: 'true or false' })),
  extraControllerManagerArgs: Type.Optional(Type.Array(Type.String(), { description: "an array of flags such as ['--v=4']" })),
});

/**
 * A running kube-apiserver with its etcd, as {@link startRealApiServer} returns it.
 *
 * @example
 * ```ts
 * import { startRealApiServer, type RealApiServer } from '@kindex/testing/internal';
 *
 * const server: RealApiServer = await startRealApiServer();
 * console.log(`kube-apiserver ${server.binaries.kubernetesVersion} (pid ${server.pids.kubeApiServer}) up in ${server.startupMs} ms`);
 * await server.faults.restart(); // etcd keeps the data; clients see their watches end
 * await server.stop();
 * ```
 */
export interface RealApiServer extends TestApiServer {
  readonly flavor: 'real';
  readonly faults: Required<Pick<ApiServerFaults, 'restart' | 'expireHistory'>>;
  /** The temporary directory holding etcd's data, certificates and logs; removed by `stop()`. */
  readonly dataDir: string;
  /** etcd's client URL, for example `http://127.0.0.1:40123`. */
  readonly etcdUrl: string;
  /** The binaries and versions running. */
  readonly binaries: RealApiServerBinaries;
  /**
   * Process ids (each also a process group id) right now; the apiserver's changes on restart.
   * `kubeControllerManager` is 0 when `garbageCollection` is false.
   */
  readonly pids: { readonly etcd: number; readonly kubeApiServer: number; readonly kubeControllerManager: number };
  /** Milliseconds the first start took, etcd, kube-apiserver and kube-controller-manager together, until ready. */
  readonly startupMs: number;
}

const ADMIN_USER = 'kindex-admin';
// kube-controller-manager's own identity, as in a kubeadm cluster; in system:masters because with
// --use-service-account-credentials=false every controller acts as this one user.
const CONTROLLER_MANAGER_USER = 'system:kube-controller-manager';
// Port conflicts happen when another process takes a probed port before the server binds it.
const START_ATTEMPTS = 3;

/**
 * Starts etcd and a real kube-apiserver on free ports of 127.0.0.1, in a fresh temporary
 * directory, with RBAC on and a static token in group `system:masters`; resolves once `/readyz`
 * answers 200, the `default` namespace exists and kube-controller-manager answers `/healthz`.
 *
 * kube-controller-manager runs only the garbage collector (owner references, Background,
 * Foreground and Orphan propagation) and the namespace controller (a deleted namespace empties,
 * then disappears): no service-account tokens, no workload controllers. The collector finds a new
 * custom resource type within 30 s (its discovery period). `stop()` kills every process group and
 * removes the directory; they are also killed if this process exits or is killed without
 * stopping them.
 *
 * @throws RealApiServerBinariesMissingError when the binaries are not built (see `scripts/real-apiserver/build.sh`).
 * @throws RealApiServerStartError when etcd, kube-apiserver or kube-controller-manager does not become ready.
 *
 * @example
 * ```ts
 * import { startRealApiServer } from '@kindex/testing/internal';
 * import { CoreV1Api } from '@kubernetes/client-node';
 *
 * // A real etcd and kube-apiserver (built once by scripts/real-apiserver/build.sh): real validation, real watch semantics.
 * const server = await startRealApiServer();
 * try {
 *   const core = server.kubeConfig.makeApiClient(CoreV1Api);
 *   await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: 'hello' } } });
 * } finally {
 *   await server.stop();
 * }
 * ```
 */
export async function startRealApiServer(options: RealApiServerOptions = {}): Promise<RealApiServer> {
  REAL_API_SERVER_OPTIONS.check(options);
  const binaries = options.binaries ?? realApiServerBinaries();
  for (let attempt = 1; ; attempt++) {
    try {
      return await RealApiServerInstance.start(binaries, options);
    } catch (error) {
      if (!(error instanceof RealApiServerStartError && error.portTaken) || attempt >= START_ATTEMPTS) throw error;
    }
  }
}

class RealApiServerInstance implements RealApiServer {
  readonly flavor = 'real';
  readonly url: string;
  readonly etcdUrl: string;
  readonly faults: RealApiServer['faults'];
  #kubeConfig: KubeConfig | undefined;
  #kubeconfigYaml = '';
  #startupMs = 0;
  readonly #etcd: EtcdGateway;
  readonly #cleanupAtExit: () => void;
  #etcdProcess: ProcessGroup | undefined;
  #apiServerProcess: ProcessGroup | undefined;
  #controllerManagerProcess: ProcessGroup | undefined;
  #watchdog: ProcessGroup | undefined;
  // Faults and stop run one at a time: a restart racing a stop would leave a process behind.
  #queue: Promise<unknown> = Promise.resolve();
  #stopped = false;

  private constructor(
    readonly binaries: RealApiServerBinaries,
    readonly dataDir: string,
    private readonly ports: {
      readonly apiServer: number;
      readonly etcdClient: number;
      readonly etcdPeer: number;
      readonly controllerManager: number;
    },
    private readonly token: string,
    private readonly controllerManagerToken: string,
    private readonly options: RealApiServerOptions,
  ) {
    this.url = `https://127.0.0.1:${ports.apiServer}`;
    this.etcdUrl = `http://127.0.0.1:${ports.etcdClient}`;
    this.#etcd = new EtcdGateway(this.etcdUrl);
    this.faults = {
      restart: () => this.#serialized(() => this.#restartApiServer()),
      expireHistory: () => this.#serialized(() => this.#expireHistory()),
    };
    this.#cleanupAtExit = () => rmSync(dataDir, { recursive: true, force: true });
  }

  static async start(binaries: RealApiServerBinaries, options: RealApiServerOptions): Promise<RealApiServerInstance> {
    const started = performance.now();
    const [apiServer, etcdClient, etcdPeer, controllerManager] = (await freePorts(4)) as [number, number, number, number];
    const dir = mkdtempSync(path.join(tmpdir(), 'kindex-real-apiserver-'));
    const server = new RealApiServerInstance(
      binaries,
      dir,
      { apiServer, etcdClient, etcdPeer, controllerManager },
      randomBytes(24).toString('hex'),
      randomBytes(24).toString('hex'),
      options,
    );
    addExitCleanup(server.#cleanupAtExit);
    try {
      server.#writeCredentials();
      server.#watchdog = await startOrphanWatchdog(server.#file('process-groups'), dir, server.#file('watchdog.log'));
      await server.#startEtcd();
      await server.#startApiServer();
      if (options.garbageCollection ?? true) await server.#startControllerManager();
      server.#startupMs = performance.now() - started;
      return server;
    } catch (error) {
      await server.#stopEverything();
      throw error;
    }
  }

  get kubeConfig(): KubeConfig {
    return this.#ready().kubeConfig;
  }

  get kubeconfigYaml(): string {
    return this.#ready().yaml;
  }

  get pids(): RealApiServer['pids'] {
    return {
      etcd: this.#etcdProcess?.pid ?? 0,
      kubeApiServer: this.#apiServerProcess?.pid ?? 0,
      kubeControllerManager: this.#controllerManagerProcess?.pid ?? 0,
    };
  }

  get startupMs(): number {
    return this.#startupMs;
  }

  stop(): Promise<void> {
    if (this.#stopped) return this.#queue.then(() => undefined);
    this.#stopped = true;
    return this.#serialized(() => this.#stopEverything(), true);
  }

  #ready(): { kubeConfig: KubeConfig; yaml: string } {
    if (this.#kubeConfig === undefined) throw new Error('the real API server has not become ready');
    return { kubeConfig: this.#kubeConfig, yaml: this.#kubeconfigYaml };
  }

  #serialized(operation: () => Promise<void>, evenWhenStopped = false): Promise<void> {
    const run = this.#queue.then(() => {
      if (this.#stopped && !evenWhenStopped) throw new Error('the real API server is stopped');
      return operation();
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }

  #file(name: string): string {
    return path.join(this.dataDir, name);
  }

  #writeCredentials(): void {
    // kube-apiserver signs service-account tokens even when no test uses them; it refuses to
    // start without a key pair.
    const { publicKey, privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    writeFileSync(this.#file('service-account.pub'), publicKey, { mode: 0o600 });
    writeFileSync(this.#file('service-account.key'), privateKey, { mode: 0o600 });
    // token,user,uid,"groups": system:masters passes every RBAC check, as cluster-admin would.
    const tokens = [
      `${this.token},${ADMIN_USER},${ADMIN_USER},"system:masters"`,
      `${this.controllerManagerToken},${CONTROLLER_MANAGER_USER},${CONTROLLER_MANAGER_USER},"system:masters"`,
    ];
    writeFileSync(this.#file('tokens.csv'), tokens.join('\n') + '\n', { mode: 0o600 });
    mkdirSync(this.#file('certs'));
  }

  #recordProcessGroups(): void {
    const groups = [this.#etcdProcess, this.#apiServerProcess, this.#controllerManagerProcess]
      .filter((group) => group?.running)
      .map((g) => g?.pid);
    writeFileSync(this.#file('process-groups'), groups.join('\n') + '\n');
  }

  async #startEtcd(): Promise<void> {
    const peerUrl = `http://127.0.0.1:${this.ports.etcdPeer}`;
    this.#etcdProcess = await ProcessGroup.spawn(
      this.binaries.etcd,
      [
        '--name=kindex',
        `--data-dir=${this.#file('etcd')}`,
        `--listen-client-urls=${this.etcdUrl}`,
        `--advertise-client-urls=${this.etcdUrl}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=kindex=${peerUrl}`,
        // Test data is thrown away: durability only costs time on a shared disk.
        '--unsafe-no-fsync',
        '--log-level=warn',
      ],
      { logFile: this.#file('etcd.log') },
    );
    this.#recordProcessGroups();
    await this.#waitUntil('etcd', this.#etcdProcess, this.#file('etcd.log'), () => this.#etcd.healthy());
  }

  async #startApiServer(): Promise<void> {
    this.#apiServerProcess = await ProcessGroup.spawn(
      this.binaries.kubeApiServer,
      [
        `--etcd-servers=${this.etcdUrl}`,
        `--cert-dir=${this.#file('certs')}`,
        `--secure-port=${this.ports.apiServer}`,
        '--bind-address=127.0.0.1',
        '--advertise-address=127.0.0.1',
        // The reconciler would publish 127.0.0.1 as the `kubernetes` service's endpoint, which
        // Endpoints validation rejects as loopback, logging an error every few seconds.
        '--endpoint-reconciler-type=none',
        '--service-cluster-ip-range=10.0.0.0/24',
        '--allow-privileged=true',
        // No --enable-aggregator-routing: with it, webhooks by `service` reference are called at an
        // endpoint of the Service's EndpointSlices, which may not hold loopback addresses, and
        // ExternalName Services are refused. Without it an ExternalName Service is called at
        // https://<externalName>:<port>, so tests reach webhooks on 127.0.0.1 via `localhost`.
        // No controller-manager runs to create the service accounts this plugin insists on.
        '--disable-admission-plugins=ServiceAccount',
        `--authorization-mode=${this.options.authorization ?? 'RBAC'}`,
        `--token-auth-file=${this.#file('tokens.csv')}`,
        '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
        `--service-account-key-file=${this.#file('service-account.pub')}`,
        `--service-account-signing-key-file=${this.#file('service-account.key')}`,
        // Server-side sharded list and watch (KEP-5866, alpha in 1.36): on unless a test asks for
        // a server without it, to check the client-side fallback.
        ...featureGates(this.options),
        ...(this.options.extraApiServerArgs ?? []),
      ],
      { logFile: this.#file('kube-apiserver.log') },
    );
    this.#recordProcessGroups();
    // Polls with TLS verification off: the serving certificate only exists once the server wrote it.
    const probe = kubeConfigOf(this.url, undefined, this.token).kubeConfig;
    await this.#waitUntil('kube-apiserver', this.#apiServerProcess, this.#file('kube-apiserver.log'), async () => {
      const ready = await rawRequest(probe, { path: '/readyz', timeoutMs: 5_000 });
      if (ready.status !== 200) return false;
      // /readyz can pass before the bootstrap controller has created the default namespaces.
      const namespace = await rawRequest(probe, { path: '/api/v1/namespaces/default', timeoutMs: 5_000 });
      return namespace.status === 200;
    });
    // The self-signed serving certificate is followed in the file by the CA that signed it; a
    // restart reuses both, so the first kubeconfig (which tests may hold on to) stays valid.
    if (this.#kubeConfig === undefined) {
      const { kubeConfig, yaml } = kubeConfigOf(this.url, readFileSync(this.#file('certs/apiserver.crt')), this.token);
      this.#kubeConfig = kubeConfig;
      this.#kubeconfigYaml = yaml;
    }
  }

  async #startControllerManager(): Promise<void> {
    // Its own identity and token, trusting the apiserver's CA as the admin kubeconfig does.
    const { yaml } = kubeConfigOf(
      this.url,
      readFileSync(this.#file('certs/apiserver.crt')),
      this.controllerManagerToken,
      CONTROLLER_MANAGER_USER,
    );
    writeFileSync(this.#file('controller-manager.kubeconfig'), yaml, { mode: 0o600 });
    mkdirSync(this.#file('controller-manager-certs'));
    this.#controllerManagerProcess = await ProcessGroup.spawn(
      this.binaries.kubeControllerManager,
      [
        `--kubeconfig=${this.#file('controller-manager.kubeconfig')}`,
        // Only what the tests need; every other controller would add load and writes (service
        // accounts, endpoints) that tests do not expect.
        '--controllers=garbage-collector-controller,namespace-controller',
        '--use-service-account-credentials=false',
        '--leader-elect=false',
        '--bind-address=127.0.0.1',
        `--secure-port=${this.ports.controllerManager}`,
        `--cert-dir=${this.#file('controller-manager-certs')}`,
        // Its own endpoints need no delegated authentication: /healthz is always allowed.
        '--authentication-skip-lookup=true',
        ...(this.options.extraControllerManagerArgs ?? []),
      ],
      { logFile: this.#file('kube-controller-manager.log') },
    );
    this.#recordProcessGroups();
    const probe = kubeConfigOf(`https://127.0.0.1:${this.ports.controllerManager}`, undefined, '').kubeConfig;
    await this.#waitUntil(
      'kube-controller-manager',
      this.#controllerManagerProcess,
      this.#file('kube-controller-manager.log'),
      async () => {
        const health = await rawRequest(probe, { path: '/healthz', authenticate: false, timeoutMs: 5_000 });
        return health.status === 200;
      },
    );
  }

  async #waitUntil(
    component: RealApiServerStartError['component'],
    child: ProcessGroup,
    logFile: string,
    ready: () => Promise<boolean>,
  ): Promise<void> {
    const timeoutMs = this.options.startTimeoutMs ?? 120_000;
    const deadline = performance.now() + timeoutMs;
    let lastError: unknown;
    for (;;) {
      if (!child.running) {
        const exit = await child.exited;
        throw new RealApiServerStartError(
          `${component} exited while starting (code ${exit.code}, signal ${exit.signal})`,
          component,
          logTail(logFile),
        );
      }
      try {
        if (await ready()) return;
      } catch (error) {
        lastError = error;
      }
      if (performance.now() > deadline) {
        throw new RealApiServerStartError(`${component} was not ready after ${timeoutMs} ms`, component, logTail(logFile), {
          cause: lastError,
        });
      }
      await Promise.race([child.exited, new Promise((resolve) => setTimeout(resolve, 100))]);
    }
  }

  async #restartApiServer(): Promise<void> {
    await this.#apiServerProcess?.stop();
    await this.#startApiServer();
  }

  async #expireHistory(): Promise<void> {
    await this.#etcd.compact(await this.#etcd.currentRevision());
    // Compaction alone is not enough: kube-apiserver's watch cache keeps its own window of recent
    // events in memory and serves old-resourceVersion watches from it. A fresh apiserver fills its
    // cache from a list at the current revision, so from then on older versions get 410 Expired.
    await this.#restartApiServer();
  }

  async #stopEverything(): Promise<void> {
    // The controller manager first: it would log connection errors while kube-apiserver goes away.
    await this.#controllerManagerProcess?.stop();
    await this.#apiServerProcess?.stop();
    await this.#etcdProcess?.stop();
    await this.#watchdog?.stop(1_000);
    rmSync(this.dataDir, { recursive: true, force: true });
    removeExitCleanup(this.#cleanupAtExit);
  }
}

function kubeConfigOf(
  server: string,
  caPem: Buffer | undefined,
  token: string,
  user = ADMIN_USER,
): { kubeConfig: KubeConfig; yaml: string } {
  const yaml = toYaml({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'kindex-real',
        cluster:
          caPem === undefined
            ? { server, 'insecure-skip-tls-verify': true }
            : { server, 'certificate-authority-data': caPem.toString('base64') },
      },
    ],
    users: [{ name: user, user: { token } }],
    contexts: [{ name: 'kindex-real', context: { cluster: 'kindex-real', user, namespace: 'default' } }],
    'current-context': 'kindex-real',
  });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(yaml);
  return { kubeConfig, yaml };
}

function logTail(file: string, lines = 30): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** The one `--feature-gates` flag of the options' gates (a later flag would replace an earlier one's list). */
function featureGates(options: TestApiServerOptions): string[] {
  const gates = [
    ...(options.shardedListAndWatch === false ? [] : ['ShardedListAndWatch=true']),
    ...(options.cborServingAndStorage === true ? ['CBORServingAndStorage=true'] : []),
  ];
  return gates.length === 0 ? [] : [`--feature-gates=${gates.join(',')}`];
}
