import { merge, type Subscription } from 'rxjs';
import type { EventSourceHealth, KubernetesObject, Logger } from '@kindex/core';
import type { KubeClientOptions } from '../client/kube-client.js';
import type { Controller } from '../controller/controller.js';
import { EventBroadcaster, type EventRecorderOptions } from '../events/event-broadcaster.js';
import type { EventMetrics } from '../events/event-metrics.js';
import { errorLogFields, formatErrorForUser } from '../logging/user-error.js';
import { CacheSyncError } from '../startup/startup-errors.js';
import { ClusterClient } from './cluster-client.js';
import type { FleetCluster } from './cluster-provider.js';
import type { FleetMetrics } from './fleet-metrics.js';

/**
 * Where an engaged cluster stands: `engaging` until its caches synced, `ready` while its sources
 * are healthy, `degraded` while its engagement keeps failing (retried with backoff) or one of its
 * sources is unhealthy (reconnecting).
 *
 * @example
 * ```ts
 * import type { FleetClusterState } from '@kindex/informer';
 * const state: FleetClusterState = 'degraded';
 * ```
 */
export type FleetClusterState = 'engaging' | 'ready' | 'degraded';

/**
 * One engaged cluster of a fleet controller, as `FleetController.clusters` lists it.
 *
 * @example
 * ```ts
 * import type { FleetClusterStatus, FleetController } from '@kindex/informer';
 * declare const fleet: FleetController;
 * const degraded: FleetClusterStatus[] = fleet.clusters.filter((c) => c.state === 'degraded');
 * for (const c of degraded) console.warn(`${c.name} (${c.source}): ${c.error}`);
 * ```
 */
export interface FleetClusterStatus {
  readonly name: string;
  /** Where its provider found it (`Secret fleet/eu-1`). */
  readonly source: string;
  readonly state: FleetClusterState;
  /** Why it is degraded, naming the cluster. */
  readonly error?: string;
  /**
   * Set on a warm standby (a follower under leader election): its caches are kept current, its
   * reconciles held back until it leads.
   */
  readonly standby?: true;
}

/** @internal What a cluster run is made with. */
export interface ClusterRunOptions<P extends KubernetesObject> {
  readonly cluster: FleetCluster;
  /** The fleet controller's name, the `controller` label of its series. */
  readonly controller: string;
  /**
   * A new controller on `client`, recording Events through `events` (one per attempt: a
   * controller whose start failed is not started again).
   */
  readonly newController: (client: ClusterClient, logger: Logger, events: EventBroadcaster) => Controller<P>;
  /** How the cluster's Events are written (the operator's `events` option), and their series. */
  readonly events: { readonly options: EventRecorderOptions | undefined; readonly metrics: EventMetrics };
  readonly clientOptions: KubeClientOptions;
  readonly logger: Logger;
  readonly metrics: FleetMetrics;
  readonly cacheSyncTimeoutMs: number | undefined;
  /** The first wait after a failed engagement; doubled up to {@link MAX_RETRY_MS}. */
  readonly retryMs: number;
}

/** A cluster that cannot be engaged is tried again at least this often: a fixed kubeconfig is picked up. */
const MAX_RETRY_MS = 300_000;

/**
 * @internal One engaged cluster: its client, its controller (caches, queue, reconciles), its
 * series and its state. Starting retries with backoff until it syncs or is stopped; stopping
 * aborts a start in progress, drains the reconciles and stops every informer of the cluster.
 */
export class ClusterRun<P extends KubernetesObject> {
  readonly cluster: FleetCluster;
  #state: FleetClusterState = 'engaging';
  #error: string | undefined;
  #controller: Controller<P> | undefined;
  #client: ClusterClient | undefined;
  #recorder: EventBroadcaster | undefined;
  #observed: { ready(ready: boolean): void; forget(): void } | undefined;
  #health: Subscription | undefined;
  #starting: Promise<void> | undefined;
  #stopped = false;
  /** Why reconciles are held back (a standby's NotLeaderError), or undefined while they run. */
  #held: Error | undefined;
  readonly #abort = new AbortController();
  readonly #options: ClusterRunOptions<P>;
  readonly #logger: Logger;

  constructor(options: ClusterRunOptions<P>) {
    this.#options = options;
    this.cluster = options.cluster;
    this.#logger = options.logger;
  }

  get status(): FleetClusterStatus {
    const { name, source } = this.cluster;
    return {
      name,
      source,
      state: this.#state,
      ...(this.#error !== undefined ? { error: this.#error } : {}),
      ...(this.#held !== undefined ? { standby: true as const } : {}),
    };
  }

  /**
   * Holds reconciles back while `reason` is set (caches stay current), aborting those in flight
   * with it when the hold begins; resumes, starting with what queued meanwhile, when undefined.
   */
  hold(reason: Error | undefined): void {
    const held = this.#held;
    this.#held = reason;
    if (reason === undefined && held !== undefined) this.#controller?.resumeDispatch();
    if (reason !== undefined && held === undefined) this.#controller?.pauseDispatch(reason);
  }

  /** The cluster's controller while one runs or starts. */
  get controller(): Controller<P> | undefined {
    return this.#controller;
  }

  /** Starts engaging, in the background: a cluster that is down or refuses us never holds the others. */
  begin(): void {
    // Whatever fails here (a controller that cannot be built for this cluster) stays with it.
    this.#starting ??= this.#engage().catch((error: unknown) => {
      this.#set('degraded', `cluster ${this.cluster.name}: ${formatErrorForUser(error)}`);
      this.#logger.error({ source: this.cluster.source, ...errorLogFields(this.#logger, error) }, 'cluster could not be engaged');
    });
  }

  async #engage(): Promise<void> {
    const { cluster, clientOptions, cacheSyncTimeoutMs } = this.#options;
    for (let attempt = 0; !this.#stopped; attempt++) {
      const client = new ClusterClient(cluster.name, cluster.kubeConfig, clientOptions);
      // The cluster's Events go to the cluster, beside the primary they are about.
      const recorder = new EventBroadcaster(client, this.#options.events.metrics, {
        ...this.#options.events.options,
        logger: this.#logger.child({ component: 'event-recorder' }),
      });
      const controller = this.#options.newController(client, this.#logger, recorder);
      // Before it starts: nothing of a standby's is dispatched.
      if (this.#held !== undefined) controller.pauseDispatch();
      this.#client = client;
      this.#recorder = recorder;
      this.#controller = controller;
      // The previous attempt's series are kept until now: a cluster refused from the start shows ready 0.
      this.#observed?.forget();
      this.#observed = this.#options.metrics.observe(this.#options.controller, cluster.name, controller as unknown as Controller);
      const sources = new Map<string, EventSourceHealth>();
      const follow = (health: EventSourceHealth): void => {
        sources.set(health.source, health);
        this.#onHealth(sources);
      };
      // The secondary sources exist once the start prepared them.
      this.#health = controller.health$.subscribe(follow);
      try {
        await controller.start({ signal: this.#abort.signal, ...(cacheSyncTimeoutMs !== undefined ? { cacheSyncTimeoutMs } : {}) });
        this.#set('ready', undefined);
        this.#health.add(merge(...controller.eventSources.map((s) => s.health$)).subscribe(follow));
        this.#logger.info({ source: cluster.source }, 'cluster engaged');
        return;
      } catch (thrown) {
        const error = this.#attributed(thrown);
        await this.#teardown(undefined, { keepSeries: true });
        if (this.#stopped) return;
        const retryInMs = Math.min(this.#options.retryMs * 2 ** attempt, MAX_RETRY_MS);
        this.#set('degraded', `cluster ${cluster.name}: ${formatErrorForUser(error)}`);
        this.#logger.warn(
          { source: cluster.source, retryInMs, ...errorLogFields(this.#logger, error) },
          'cluster could not be engaged; the other clusters go on, retrying',
        );
        const retried = await sleep(retryInMs, this.#abort.signal);
        if (!retried) return;
      }
    }
  }

  /** Degraded while a source is unhealthy (the controller reconnects it); ready again once all are healthy. */
  #onHealth(sources: ReadonlyMap<string, EventSourceHealth>): void {
    if (this.#state === 'engaging' || this.#stopped) return;
    const sick = [...sources.values()].find((h) => h.status === 'unhealthy');
    if (sick === undefined) this.#set('ready', undefined);
    else this.#set('degraded', `cluster ${this.cluster.name}: ${sick.source}: ${formatErrorForUser(this.#attributed(sick.error))}`);
  }

  /**
   * A cache failure names this cluster and where its credentials come from: its fix (a 401's,
   * a 403's) is in that kubeconfig, not in the pod's service account.
   */
  #attributed(error: unknown): unknown {
    if (!(error instanceof CacheSyncError)) return error;
    const { name, source } = this.cluster;
    return error.withContext({ cluster: { name, credentials: `the kubeconfig from ${source}` } });
  }

  #set(state: FleetClusterState, error: string | undefined): void {
    if (state !== this.#state) this.#logger.info({ state, ...(error !== undefined ? { error } : {}) }, 'cluster state');
    this.#state = state;
    this.#error = error;
    this.#observed?.ready(state === 'ready');
  }

  /**
   * Disengages: aborts a start in progress (and in-flight reconciles, with `reason`), drains,
   * stops the cluster's informers and drops its cache and series.
   */
  async stop(reason: unknown, drainTimeoutMs: number | undefined): Promise<void> {
    this.#stopped = true;
    this.#abort.abort(reason);
    this.#controller?.pauseDispatch(reason);
    await this.#starting;
    await this.#teardown(drainTimeoutMs);
  }

  async #teardown(drainTimeoutMs?: number, options: { keepSeries?: boolean } = {}): Promise<void> {
    const controller = this.#controller;
    const client = this.#client;
    const recorder = this.#recorder;
    this.#controller = undefined;
    this.#client = undefined;
    this.#recorder = undefined;
    this.#health?.unsubscribe();
    if (!options.keepSeries) {
      this.#observed?.forget();
      this.#observed = undefined;
    }
    await controller?.stop(drainTimeoutMs !== undefined ? { drainTimeoutMs } : {}).catch(() => {});
    await recorder?.stop({ timeoutMs: Math.min(drainTimeoutMs ?? 5_000, 5_000) });
    await client?.registry?.stopAll();
  }
}

/** Resolves true after `ms`, false at once when `signal` aborts first. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
