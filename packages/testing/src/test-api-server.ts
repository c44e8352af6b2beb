import type { KubeConfig } from '@kubernetes/client-node';
import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';

/**
 * One interface for every API server kindex tests run against: the embedded one (in-process,
 * fault injection) and a real kube-apiserver with etcd. A suite written against this interface
 * runs unchanged on either; it asserts what Kubernetes guarantees, not what one server does.
 *
 * @example
 * ```ts
 * import { startTestApiServer, type TestApiServer } from '@kindex/testing';
 * import { Operator } from '@kindex/informer';
 *
 * // Write tests against the interface: the same test runs on the embedded and on a real kube-apiserver.
 * const server: TestApiServer = await startTestApiServer();
 * try {
 *   const operator = new Operator({ kubeConfig: server.kubeConfig });
 *   // ... register reconcilers, start, assert on the server's objects
 *   await operator.stop();
 * } finally {
 *   await server.stop();
 * }
 * ```
 */
export interface TestApiServer {
  /** Which implementation this is. Tests may branch on it only to skip an unsupported fault. */
  readonly flavor: 'embedded' | 'real';
  /** Base URL, for example `http://127.0.0.1:43123` (embedded) or `https://127.0.0.1:6443` (real). */
  readonly url: string;
  /** A KubeConfig for `@kubernetes/client-node`, authenticated and pointed at this server. */
  readonly kubeConfig: KubeConfig;
  /** The same kubeconfig as YAML, for kubectl and for child processes. */
  readonly kubeconfigYaml: string;
  /** Fault injection; each fault is optional because not every server can produce it. */
  readonly faults: ApiServerFaults;
  /** Stops the server and everything it started. Idempotent; leaves no process behind. */
  stop(): Promise<void>;
}

/**
 * Faults a test can inject. A method a server cannot provide is absent, so tests can `skip`.
 *
 * @example
 * ```ts
 * import { useTestApiServer } from '@kindex/testing';
 *
 * describe('WebApp controller', () => {
 *   const server = useTestApiServer();
 *   it('keeps reconciling after the watches drop', async function () {
 *     const faults = server().faults;
 *     if (faults.closeWatches === undefined) return this.skip(); // not every server can do it
 *     await faults.closeWatches();
 *     // ... assert that a change made now is still reconciled
 *   });
 * });
 * ```
 */
export interface ApiServerFaults {
  /** Ends every open watch stream now (clients see the connection close). */
  closeWatches?(): Promise<void>;
  /**
   * Forgets the event history, so that the next watch from any resourceVersion older than the
   * current one gets 410 Expired (on the real server: an etcd compaction).
   */
  expireHistory?(): Promise<void>;
  /** Fails the next `count` requests (watches included) with `status`; 429 carries Retry-After. */
  failNextRequests?(count: number, options: { status: 500 | 429 | 503; retryAfterSeconds?: number }): void;
  /** Adds this many milliseconds before every response (0 removes it). */
  setLatency?(ms: number): void;
  /** Holds watch events back (they queue, in order) until {@link resumeEvents}. */
  pauseEvents?(): void;
  /** Delivers the events held since {@link pauseEvents}, then delivers live again. */
  resumeEvents?(): void;
  /** Stops and restarts the server on the same port, keeping its data. Open watches break. */
  restart?(): Promise<void>;
  /**
   * Refuses requests matching `rule` with 403 Forbidden, worded as kube-apiserver's RBAC
   * (open watches are not cut: close them to make clients reconnect into the refusal). Returns a
   * function that lifts the refusal, as granting the permission back would.
   */
  forbid?(rule: ForbidRule): () => void;
}

/**
 * Which requests {@link ApiServerFaults.forbid} refuses; omitted fields match anything.
 *
 * @example
 * ```ts
 * import { requireFault, useTestApiServer, type ForbidRule } from '@kindex/testing';
 *
 * describe('startup errors', () => {
 *   const server = useTestApiServer();
 *   it('names the missing permission', async function () {
 *     const forbid = requireFault(this, server(), 'forbid');
 *     const rule: ForbidRule = { resource: 'secrets', namespace: 'shop', verbs: ['list', 'watch'] };
 *     const allow = forbid(rule); // 403 for these requests until allow() is called
 *     try {
 *       // ... start an operator that watches Secrets in shop and expect a CacheSyncError naming them
 *     } finally {
 *       allow();
 *     }
 *   });
 * });
 * ```
 */
export interface ForbidRule {
  /** Plural resource name, for example `configmaps`. */
  readonly resource: string;
  /** API group; `''` for core. Defaults to any group. */
  readonly group?: string;
  /** Only in this namespace (requests across all namespaces are refused too). Defaults to any. */
  readonly namespace?: string;
  /** Kubernetes verbs: get, list, watch, create, update, patch, delete. Defaults to all. */
  readonly verbs?: readonly string[];
}

/**
 * Options every test server understands; each server may ignore what it cannot honour.
 *
 * @example
 * ```ts
 * import { startTestApiServer, type TestApiServerOptions } from '@kindex/testing';
 *
 * const options: TestApiServerOptions = { historyWindow: 20, bookmarkIntervalMs: 500 };
 * const server = await startTestApiServer(options);
 * ```
 */
export interface TestApiServerOptions {
  /**
   * How many events the server keeps for watches from an older resourceVersion; small values make
   * 410 Expired easy to reach. The real server keeps etcd's history (use `faults.expireHistory`).
   * Defaults to the server's own default.
   */
  readonly historyWindow?: number;
  /**
   * Milliseconds between BOOKMARK events on watches with `allowWatchBookmarks`. The real server
   * sends them about once a minute whatever this says. Defaults to the server's own default.
   */
  readonly bookmarkIntervalMs?: number;
  /**
   * Whether the server honours `shardSelector` on list and watch (KEP-5866, feature gate
   * `ShardedListAndWatch` of kube-apiserver 1.36). When false, the server ignores the parameter
   * and sends every object, as a server without the gate does. Defaults to true.
   */
  readonly shardedListAndWatch?: boolean;
  /**
   * Whether the server serves and reads CBOR (`application/cbor`; watches as
   * `application/cbor-seq`), as kube-apiserver with its `CBORServingAndStorage` feature gate (alpha
   * in 1.36, which the real server is then started with). When false, CBOR asked for is 406 and a
   * CBOR body 415. Defaults to false.
   */
  readonly cborServingAndStorage?: boolean;
  /**
   * `'RBAC'` enforces Roles, ClusterRoles and their bindings on every request, as
   * `--authorization-mode=RBAC`; `'AlwaysAllow'` lets every authenticated request through. The
   * server's own kubeConfig may do everything either way (it is in system:masters). Defaults to
   * `'AlwaysAllow'` on the embedded server (tests that do not care about RBAC stay simple) and to
   * `'RBAC'` on the real one.
   */
  readonly authorization?: 'RBAC' | 'AlwaysAllow';
}

/** {@link TestApiServerOptions}' keys and value checks: unknown keys are rejected, not ignored. */
export const TEST_API_SERVER_OPTIONS = defineOptions<TestApiServerOptions>('startTestApiServer options', {
  historyWindow: Type.Optional(Type.Integer({ minimum: 1, description: 'a whole number of events, 1 or more' })),
  bookmarkIntervalMs: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'a positive number of milliseconds' })),
  shardedListAndWatch: Type.Optional(Type.Boolean({ description: 'true or false' })),
  cborServingAndStorage: Type.Optional(Type.Boolean({ description: 'true or false' })),
  authorization: Type.Optional(Type.Union([Type.Literal('RBAC'), Type.Literal('AlwaysAllow')], { description: "'RBAC' or 'AlwaysAllow'" })),
});
