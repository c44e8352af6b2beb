/**
 * The startup stage's errors: why `start()` of an Operator, a Controller or an event source
 * rejected, each naming what failed and what to do about it.
 *
 * - {@link CacheSyncError}: the server answered 400/401/403/404 to a cache's list or watch: a
 *   configuration problem no retry will fix. Its message ends with the fix (the RBAC rule as
 *   YAML, the CRD to install, the selector the server rejected, the credentials to check).
 *   Also reported in health when access is lost after startup.
 * - {@link CacheSyncTimeoutError}: caches kept failing transiently (5xx, 429, timeouts) or
 *   stayed silent past the cache sync timeout.
 * - {@link StartAbortedError}: `stop()` or the caller's `signal` ended the start.
 *
 * @module
 */
import { collectionPath } from '../kind/resource-type.js';
import type { ResourceType } from '../kind/resource-type.js';
import type { KubeApiError } from '../client/kube-api-error.js';
import { rbacManifest, type RbacSubject } from '../rbac/rbac-manifest.js';

/**
 * The cluster a failed cache reads when it is not the operator's own (a remote source or
 * dependent, a fleet member), and where the credentials used for it come from: the fix of a 401
 * or 403 is there, not in the pod's service account.
 *
 * @example
 * ```ts
 * import type { CacheSyncCluster, CacheSyncError } from '@kindex/informer';
 * declare const error: CacheSyncError;
 *
 * const cluster: CacheSyncCluster | undefined = error.cluster;
 * if (cluster !== undefined) console.error(`renew the credentials of cluster ${cluster.name} in ${cluster.credentials}`);
 * ```
 */
export interface CacheSyncCluster {
  /** The cluster's name: the RemoteCluster's, or the fleet member's. */
  readonly name: string;
  /**
   * Where its credentials come from, as a noun phrase: `the kubeconfig from Secret fleet/eu-1`,
   * `the RemoteCluster's kubeConfig (user "ops" at https://10.0.0.1:6443)`.
   */
  readonly credentials: string;
}

/**
 * Where a cache failure happened and what the server said, as structured fields.
 *
 * @example
 * ```ts
 * import type { CacheSyncError, CacheSyncFailure } from '@kindex/informer';
 * declare const error: CacheSyncError;
 *
 * // The fields of a CacheSyncError, as plain data for a structured log.
 * const failure: CacheSyncFailure = error;
 * console.log(JSON.stringify({ verb: failure.verb, status: failure.status, namespace: failure.namespace, phase: failure.phase }));
 * ```
 */
export interface CacheSyncFailure {
  /** The controller, when the cache belongs to one. */
  readonly controller: string | undefined;
  /** The event source (`primary` for the controller's own primary cache), when known. */
  readonly eventSource: string | undefined;
  readonly type: ResourceType;
  /** The namespace requested, or undefined for all namespaces / a cluster-scoped kind. */
  readonly namespace: string | undefined;
  /** The request that failed. */
  readonly verb: 'list' | 'watch' | 'get';
  readonly status: number;
  readonly reason: string | undefined;
  /** The server's own explanation (the Status message). */
  readonly serverMessage: string;
  readonly labelSelector: string | undefined;
  readonly fieldSelector: string | undefined;
  /** Whether it happened during startup (start rejects) or later (health turns unhealthy). */
  readonly phase: 'startup' | 'running';
  /** The cluster read, when it is not the operator's own. */
  readonly cluster?: CacheSyncCluster | undefined;
}

/**
 * A cache's list or watch was refused for a reason retrying will not change. The message names
 * the controller, the event source, the kind, the namespace and the verb, then says how to fix
 * it; {@link fix} holds that advice alone (for 403, Role/ClusterRole YAML ready to apply).
 *
 * @example
 * ```ts
 * import { CacheSyncError, type Operator } from '@kindex/informer';
 * declare const operator: Operator;
 *
 * try {
 *   await operator.start();
 * } catch (error) {
 *   // A 403 on list: names the controller, source, kind, namespace and the RBAC rule to add.
 *   if (error instanceof CacheSyncError) console.error(`${error.controller}/${error.eventSource}: ${error.verb} ${error.type.plural} -> ${error.status}. ${error.fix}`);
 * }
 * ```
 */
export class CacheSyncError extends Error {
  override readonly name = 'CacheSyncError';
  readonly code = 'KINDEX_CACHE_SYNC_FAILED';
  readonly controller: string | undefined;
  readonly eventSource: string | undefined;
  readonly type: ResourceType;
  readonly namespace: string | undefined;
  readonly verb: 'list' | 'watch' | 'get';
  readonly status: number;
  readonly reason: string | undefined;
  readonly serverMessage: string;
  readonly labelSelector: string | undefined;
  readonly fieldSelector: string | undefined;
  readonly phase: 'startup' | 'running';
  /** The cluster read, when it is not the operator's own: its name and where its credentials come from. */
  readonly cluster: CacheSyncCluster | undefined;
  /** What to do, in words and (for 403) YAML. */
  readonly fix: string;

  constructor(failure: CacheSyncFailure, options?: { cause?: unknown }) {
    const fix = fixFor(failure);
    super(
      `${describeWhere(failure)}: ${failure.verb} ${resourceOf(failure.type)} ${inNamespace(failure)} failed with ${failure.status}${failure.reason ? ` ${failure.reason}` : ''}: ${failure.serverMessage}\n${fix}`,
      options,
    );
    this.controller = failure.controller;
    this.eventSource = failure.eventSource;
    this.type = failure.type;
    this.namespace = failure.namespace;
    this.verb = failure.verb;
    this.status = failure.status;
    this.reason = failure.reason;
    this.serverMessage = failure.serverMessage;
    this.labelSelector = failure.labelSelector;
    this.fieldSelector = failure.fieldSelector;
    this.phase = failure.phase;
    this.cluster = failure.cluster;
    this.fix = fix;
  }

  /** Builds one from the reflector's error and what the cache knows. */
  static from(error: KubeApiError, where: Omit<CacheSyncFailure, 'verb' | 'status' | 'reason' | 'serverMessage'>): CacheSyncError {
    return new CacheSyncError(
      // Only the reflector's reads come here, so the verb is get, list or watch.
      {
        ...where,
        verb: error.verb as CacheSyncFailure['verb'],
        status: error.status,
        reason: error.reason,
        serverMessage: stripRequest(error),
      },
      { cause: error },
    );
  }

  /** The same failure, attributed to a controller, event source and cluster (the layers above fill these in). */
  withContext(context: {
    controller?: string | undefined;
    eventSource?: string | undefined;
    phase?: 'startup' | 'running';
    cluster?: CacheSyncCluster | undefined;
  }): CacheSyncError {
    return new CacheSyncError(
      {
        ...this.#failure(),
        controller: this.controller ?? context.controller,
        eventSource: this.eventSource ?? context.eventSource,
        phase: context.phase ?? this.phase,
        cluster: this.cluster ?? context.cluster,
      },
      { cause: this.cause },
    );
  }

  #failure(): CacheSyncFailure {
    const { controller, eventSource, type, namespace, verb, status, reason, serverMessage, labelSelector, fieldSelector, phase, cluster } =
      this;
    return { controller, eventSource, type, namespace, verb, status, reason, serverMessage, labelSelector, fieldSelector, phase, cluster };
  }
}

/**
 * What has not synced when the cache sync timeout ran out.
 *
 * @example
 * ```ts
 * import type { CacheSyncTimeoutError, PendingSync } from '@kindex/informer';
 * declare const error: CacheSyncTimeoutError;
 *
 * const slowest: PendingSync | undefined = error.pending[0];
 * if (slowest) console.error(`${slowest.eventSource} still waiting for ${slowest.kind} in ${slowest.namespaces.join(', ')}`);
 * ```
 */
export interface PendingSync {
  /** `primary` or the event source's name. */
  readonly eventSource: string;
  /** The kind, as `plural.group/version`, or the source's resource type name. */
  readonly kind: string;
  /** The namespaces not synced yet (`''` for all namespaces). */
  readonly namespaces: readonly string[];
  /** The last error the caches met, if any. */
  readonly lastError: string | undefined;
}

/**
 * Caches did not sync within the cache sync timeout (transient failures, or a silent server).
 *
 * @example
 * ```ts
 * import { CacheSyncTimeoutError, type Operator } from '@kindex/informer';
 * declare const operator: Operator;
 *
 * try {
 *   await operator.start({ cacheSyncTimeoutMs: 60_000 });
 * } catch (error) {
 *   if (error instanceof CacheSyncTimeoutError) {
 *     for (const p of error.pending) console.error(`${error.controller}: ${p.eventSource} (${p.kind}) not synced in ${p.namespaces.join(', ')}: ${p.lastError ?? 'no error'}`);
 *   }
 * }
 * ```
 */
export class CacheSyncTimeoutError extends Error {
  override readonly name = 'CacheSyncTimeoutError';
  readonly code = 'KINDEX_CACHE_SYNC_TIMEOUT';
  constructor(
    readonly controller: string,
    readonly timeoutMs: number,
    readonly pending: readonly PendingSync[],
  ) {
    const list = pending
      .map(
        (p) =>
          `${p.eventSource} (${p.kind}${p.namespaces.length > 0 ? ` in ${p.namespaces.map((n) => (n === '' ? 'all namespaces' : `namespace ${n}`)).join(', ')}` : ''})${p.lastError ? `, last error: ${p.lastError}` : ''}`,
      )
      .join('; ');
    super(
      `controller ${JSON.stringify(controller)}: caches not synced after ${timeoutMs} ms: ${list || 'unknown'}. ` +
        'The API server kept failing or did not answer; check its health and the network, or raise cacheSyncTimeoutMs.',
    );
  }
}

/**
 * `start()` ended because `stop()` was called or the caller's signal aborted it.
 *
 * @example
 * ```ts
 * import { StartAbortedError, type Operator } from '@kindex/informer';
 * declare const operator: Operator;
 *
 * try {
 *   await operator.start({ signal: AbortSignal.timeout(5_000) });
 * } catch (error) {
 *   if (error instanceof StartAbortedError) console.info(`start of ${error.target} ${error.why}`); // not a failure: we asked for it
 *   else throw error;
 * }
 * ```
 */
export class StartAbortedError extends Error {
  override readonly name = 'StartAbortedError';
  readonly code = 'KINDEX_START_ABORTED';
  constructor(
    /** What was starting, for example `controller "jobs"`. */
    readonly target: string,
    /** `stopped` when `stop()` was called, `aborted` for the caller's signal. */
    readonly why: 'stopped' | 'aborted',
    options?: { cause?: unknown },
  ) {
    super(`${target}: start ${why === 'stopped' ? 'ended by stop()' : 'aborted by its signal'} before the caches synced`, options);
  }
}

function describeWhere(f: CacheSyncFailure): string {
  const parts: string[] = [];
  if (f.controller !== undefined) parts.push(`controller ${JSON.stringify(f.controller)}`);
  if (f.eventSource !== undefined) parts.push(`event source ${JSON.stringify(f.eventSource)}`);
  // A remote source's name says its cluster already ("job-config on cluster cluster-b").
  if (f.cluster !== undefined && !f.eventSource?.endsWith(` on cluster ${f.cluster.name}`)) parts.push(`cluster ${f.cluster.name}`);
  const where = parts.length > 0 ? parts.join(', ') : 'cache';
  return f.phase === 'startup' ? `${where} cannot start` : `${where} lost access`;
}

function resourceOf(type: ResourceType): string {
  return `${type.plural}${type.group ? `.${type.group}` : ''}/${type.version} (kind ${type.kind})`;
}

function inNamespace(f: CacheSyncFailure): string {
  if (!f.type.namespaced) return '(cluster-scoped)';
  return f.namespace === undefined ? 'in all namespaces' : `in namespace ${JSON.stringify(f.namespace)}`;
}

/** The server's message without the request line the reflector put in front of it. */
function stripRequest(error: KubeApiError): string {
  const prefix = `${error.request}: ${error.status}${error.reason ? ` ${error.reason}` : ''}: `;
  return error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
}

function fixFor(f: CacheSyncFailure): string {
  const cluster = f.cluster;
  // Another cluster's advice says which one: the pod's token and the home cluster's RBAC play no part there.
  const inCluster = (fix: string): string =>
    cluster === undefined ? fix : `Fix: in cluster ${cluster.name}, ${fix.slice('Fix: '.length)}`;
  switch (f.status) {
    case 401:
      if (cluster !== undefined) {
        return `Fix: cluster ${cluster.name} did not accept the credentials in ${cluster.credentials}: check its token, client certificate and expiry there (the pod's service account token is not used for this cluster).`;
      }
      return 'Fix: the API server did not accept the credentials: check the kubeconfig (token, client certificate, expiry) or the service account token mounted in the pod.';
    case 403:
      return inCluster(forbiddenFix(f));
    case 404:
      return inCluster(notFoundFix(f));
    case 400: {
      const selectors = [
        f.labelSelector ? `label selector ${JSON.stringify(f.labelSelector)}` : undefined,
        f.fieldSelector ? `field selector ${JSON.stringify(f.fieldSelector)}` : undefined,
      ].filter((s) => s !== undefined);
      return inCluster(
        `Fix: the server rejected the request${selectors.length > 0 ? ` with ${selectors.join(' and ')}` : ''} (${f.serverMessage}); correct ${selectors.length > 0 ? 'the selector' : 'the request options'} in the controller or event source configuration.`,
      );
    }
    default:
      return inCluster(`Fix: see the server's message above (${collectionPath(f.type, f.namespace)}).`);
  }
}

function forbiddenFix(f: CacheSyncFailure): string {
  const subject = subjectOf(f.serverMessage);
  const namespaced = f.type.namespaced && f.namespace !== undefined;
  const manifest = rbacManifest(
    [
      {
        group: f.type.group,
        resource: f.type.plural,
        verbs: ['list', 'watch'],
        namespaces: namespaced ? [f.namespace] : 'all',
        clusterScoped: !f.type.namespaced,
      },
    ],
    { name: `${f.type.plural}-reader`, ...(subject !== undefined ? { subject } : {}) },
  );
  const scope = namespaced ? `a Role in namespace ${JSON.stringify(f.namespace)}` : 'a ClusterRole';
  const who =
    subject === undefined
      ? f.cluster !== undefined
        ? `the user of ${f.cluster.credentials}`
        : "the operator's identity"
      : `${subject.kind} ${subject.kind === 'ServiceAccount' ? `${subject.namespace}/` : ''}${subject.name}`;
  return (
    `Fix: grant ${who} list and watch on ${f.type.plural}${f.type.group ? `.${f.type.group}` : ''} with ${scope}, for example (kubectl apply -f -):\n${manifest.yaml}` +
    (f.cluster !== undefined
      ? 'Operator.rbacManifest() lists what each other cluster must grant (its clusters and fleets parts).'
      : 'Operator.rbacManifest() prints every rule the registered controllers need.')
  );
}

function notFoundFix(f: CacheSyncFailure): string {
  if (f.type.group === '' || !f.type.group.includes('.')) {
    return `Fix: the API server does not serve ${f.type.plural} in ${f.type.group || 'the core group'} ${f.type.version}${f.namespace ? ` (or namespace ${JSON.stringify(f.namespace)} does not exist)` : ''}; check the kind's group, version and plural against \`kubectl api-resources\`.`;
  }
  return `Fix: install the CustomResourceDefinition ${f.type.plural}.${f.type.group} serving version ${f.type.version} (kubectl get crd ${f.type.plural}.${f.type.group}), or correct the kind's group, version and plural; to start without it and wait until it is installed, register the controller with whenCrdMissing: 'wait'.`;
}

/** The subject a Forbidden message names: `User "system:serviceaccount:ns:sa" cannot ...`. */
function subjectOf(message: string): RbacSubject | undefined {
  const user = /User "([^"]+)"/.exec(message)?.[1];
  if (user === undefined) return undefined;
  const sa = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(user);
  if (sa !== null) return { kind: 'ServiceAccount', namespace: sa[1]!, name: sa[2]! };
  if (user === 'system:anonymous') return undefined;
  return { kind: 'User', name: user };
}
