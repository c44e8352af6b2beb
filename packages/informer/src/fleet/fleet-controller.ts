/**
 * Fleets: one reconciler for a primary kind in many clusters that come and go at run time
 * (multicluster-runtime). A {@link ClusterProvider} engages and disengages clusters —
 * {@link StaticClusterProvider} from a list the program holds, {@link KubeconfigSecretProvider}
 * from labelled Secrets of the operator's own cluster — and a {@link FleetController}
 * (`Operator.registerFleet`) runs, per engaged cluster, a controller of its own: its caches
 * (primaries and secondaries of that cluster), its queue, its `kindex_fleet_*` series (a `cluster`
 * label) and log lines naming the cluster. A reconcile's `context.getClient()` is a
 * {@link ClusterClient} for the primary's cluster, carrying its name.
 *
 * A cluster removed stops its informers and drops its cache; one that is down or refuses our
 * credentials is `degraded` alone, retried with backoff, while the others reconcile. Under leader
 * election the fleet runs on the leader; on a sharded operator with `distribution: 'sharded'`
 * each replica runs the clusters whose names hash into the shards it owns.
 *
 * @module
 */
import type { KubeConfig } from '@kubernetes/client-node';
import type { Registry } from 'prom-client';
import type { Subscription } from 'rxjs';
import { type KubernetesObject, type Logger, type Reconciler } from '@kindex/core';
import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';
import type { InformerRegistry } from '../cache/informer-registry.js';
import { KubeClient } from '../client/kube-client.js';
import type { EventRecorderOptions } from '../events/event-broadcaster.js';
import type { EventMetrics } from '../events/event-metrics.js';
import { Controller } from '../controller/controller.js';
import { CONTROLLER_OPTIONS, type ControllerOptions } from '../controller/controller-options.js';
import type { ResourceKind } from '../kind/resource-kind.js';
import { errorLogFields } from '../logging/user-error.js';
import type { StartOptions } from '../startup/start-options.js';
import type { ClusterClient } from './cluster-client.js';
import type { ClusterGate } from './cluster-gate.js';
import type { ClusterProvider, ClusterSink, FleetCluster } from './cluster-provider.js';
import { ClusterRun, type FleetClusterStatus } from './cluster-run.js';
import { ClusterNameConflictError } from '../source/cluster-name-conflict-error.js';
import { FleetMetrics } from './fleet-metrics.js';
import type { RequiredPermission } from '../rbac/rbac-manifest.js';

/**
 * The reconciler of a fleet: `context.getClient()` is the {@link ClusterClient} of the primary's
 * cluster.
 *
 * @example
 * ```ts
 * import { UpdateControl, type KubernetesObject } from '@kindex/core';
 * import type { FleetReconciler } from '@kindex/informer';
 *
 * const reconciler: FleetReconciler<KubernetesObject> = {
 *   reconcile(primary, context) {
 *     context.getLogger().info({ cluster: context.getClient().cluster }, 'reconciling');
 *     return UpdateControl.noUpdate();
 *   },
 * };
 * ```
 */
export type FleetReconciler<P extends KubernetesObject = KubernetesObject> = Reconciler<P, ClusterClient>;

/**
 * Options of `Operator.registerFleet`: a controller's options, the same in every cluster, and
 * where the clusters come from.
 *
 * @example
 * ```ts
 * import { Kinds, KubeconfigSecretProvider, type FleetControllerOptions } from '@kindex/informer';
 * import type { KubernetesObject } from '@kindex/core';
 *
 * const options: FleetControllerOptions<KubernetesObject> = {
 *   kind: Kinds.ConfigMap,
 *   labelSelector: 'example.com/managed=true',
 *   clusters: new KubeconfigSecretProvider({ namespace: 'fleet' }),
 * };
 * ```
 */
export type FleetControllerOptions<P extends KubernetesObject> = ControllerOptions<P> & {
  /** Where the clusters come from; several providers must not name one cluster twice. */
  readonly clusters: ClusterProvider | readonly ClusterProvider[];
  /**
   * The first wait before a cluster that could not be engaged (down, refusing our credentials,
   * its caches not synced in `cacheSyncTimeoutMs`) is tried again, doubled each time up to five
   * minutes. Defaults to 5000.
   */
  readonly engageRetryMs?: number;
};

/**
 * {@link FleetControllerOptions}' keys and value checks: the controller's own and the fleet's (the
 * providers are checked by the constructor, whose error names the two kinds of provider).
 */
const FLEET_CONTROLLER_OPTIONS = defineOptions<FleetControllerOptions<KubernetesObject>>('fleet controller options', {
  ...CONTROLLER_OPTIONS.properties,
  clusters: Type.Unknown(),
  engageRetryMs: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'a positive number of milliseconds' })),
});

/** @internal What the operator gives a fleet controller. */
export interface FleetHost {
  /** The operator's options: its own cluster, and the field manager, validation and inspection of every cluster's client. */
  readonly operator: {
    readonly kubeConfig: KubeConfig;
    readonly fieldManager?: string;
    readonly validate?: boolean;
    readonly inspection?: boolean;
    readonly events?: EventRecorderOptions;
  };
  /** The informers of the operator's own cluster, for providers that read it. */
  readonly registry: InformerRegistry;
  readonly logger: Logger;
  /** The operator's metrics: the fleet's series join its registry; Event writes count in its `events`. */
  readonly metrics: { readonly registry: Registry; readonly events: EventMetrics };
  /** Which clusters this replica runs (the fleet's distribution). */
  readonly gate: ClusterGate;
}

/**
 * A reconciler for a primary kind run in every cluster of a fleet: per engaged cluster a
 * {@link Controller} of its own on a {@link ClusterClient}. Made by `Operator.registerFleet`,
 * started and stopped with the operator.
 *
 * @example
 * ```ts
 * import { Kinds, Operator, StaticClusterProvider, type FleetReconciler } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * import type { KubernetesObject } from '@kindex/core';
 * declare const home: KubeConfig;
 * declare const eu1: KubeConfig;
 * declare const reconciler: FleetReconciler<KubernetesObject>;
 *
 * const operator = new Operator({ kubeConfig: home });
 * const clusters = new StaticClusterProvider([{ name: 'eu-1', kubeConfig: eu1 }]);
 * const fleet = operator.registerFleet(reconciler, { kind: Kinds.ConfigMap, clusters });
 * await operator.start();
 * console.log(fleet.clusters.map((c) => `${c.name}: ${c.state}`));
 * ```
 */
export class FleetController<P extends KubernetesObject = KubernetesObject> {
  readonly name: string;
  readonly kind: ResourceKind<P>;
  readonly #reconciler: FleetReconciler<P>;
  readonly #options: ControllerOptions<P>;
  readonly #providers: readonly ClusterProvider[];
  readonly #host: FleetHost;
  readonly #logger: Logger;
  readonly #retryMs: number;
  /** The clusters the providers engaged, by name, with the provider that engaged each. */
  readonly #provided = new Map<string, FleetCluster & { readonly provider: ClusterProvider }>();
  /** The clusters this replica runs, by name. */
  readonly #runs = new Map<string, ClusterRun<P>>();
  /** Engagements and disengagements of one cluster, one after the other. */
  readonly #ops = new Map<string, Promise<void>>();
  #gate: Subscription | undefined;
  #running = false;
  #abort: AbortController | undefined;
  #cacheSyncTimeoutMs: number | undefined;

  /** @internal Made by `Operator.registerFleet`, which gives it the operator's parts. */
  constructor(reconciler: FleetReconciler<P>, options: FleetControllerOptions<P>, host: FleetHost) {
    const name = options?.name ?? `${options?.kind?.plural}.${options?.kind?.group || 'core'}`;
    FLEET_CONTROLLER_OPTIONS.check(options, `fleet controller ${name} options`);
    const { clusters, engageRetryMs, ...controllerOptions } = options;
    const providers = Array.isArray(clusters) ? (clusters as readonly ClusterProvider[]) : [clusters as ClusterProvider];
    if (providers.length === 0 || providers.some((p) => typeof p?.start !== 'function' || typeof p.stop !== 'function')) {
      throw new TypeError(
        `fleet controller ${name}: clusters must be a ClusterProvider (new StaticClusterProvider([...]) or new KubeconfigSecretProvider({ namespace })) or a non-empty array of them`,
      );
    }
    // The controller options are checked now, on a controller that never starts, not at the first cluster.
    const probe = new Controller<P>(reconciler, controllerOptions, new KubeClient(host.operator.kubeConfig));
    this.memberTemplate = probe;
    this.name = probe.name;
    this.kind = probe.kind;
    this.#reconciler = reconciler;
    this.#options = controllerOptions;
    this.#providers = providers;
    this.#host = host;
    this.#retryMs = engageRetryMs ?? 5_000;
    this.#logger = host.logger.child({ fleet: this.name });
  }

  /**
   * A controller of this fleet's reconciler and options that never starts: what it watches and
   * writes is what each member cluster runs, so `Operator.rbacManifest()` lists from it what
   * every member cluster must grant (`fleets`).
   */
  readonly memberTemplate: Controller<P>;

  /** The clusters this replica runs, with their state. */
  get clusters(): readonly FleetClusterStatus[] {
    return [...this.#runs.values()].map((r) => r.status);
  }

  /**
   * What the providers read in the operator's own cluster, for `Operator.rbacManifest()`. What
   * the reconciles do in each member cluster is granted there, to the identity of its kubeconfig.
   */
  requiredPermissions(): RequiredPermission[] {
    return this.#providers.flatMap((p) => p.requiredPermissions?.() ?? []);
  }

  /** One engaged cluster's state; undefined when this replica does not run it. */
  cluster(name: string): FleetClusterStatus | undefined {
    return this.#runs.get(name)?.status;
  }

  /** The controller of one cluster (its caches, `describePrimary`), while this replica runs it. */
  controllerOf(name: string): Controller<P> | undefined {
    return this.#runs.get(name)?.controller;
  }

  /**
   * Starts the providers and resolves once each engaged the clusters it knew (their caches sync
   * in the background: one that is down holds nothing). Rejects with a provider's start error.
   */
  async start(options: StartOptions = {}): Promise<void> {
    if (this.#abort !== undefined) throw new Error(`fleet controller ${this.name} started already`);
    const abort = new AbortController();
    this.#abort = abort;
    this.#cacheSyncTimeoutMs = options.cacheSyncTimeoutMs;
    const signal = options.signal === undefined ? abort.signal : AbortSignal.any([abort.signal, options.signal]);
    this.#running = true;
    this.#gate = this.#host.gate.changes$.subscribe(() => this.#sync());
    await Promise.all(
      this.#providers.map((provider) =>
        provider.start({
          sink: this.#sink(provider),
          kubeConfig: this.#host.operator.kubeConfig,
          registry: this.#host.registry,
          logger: this.#logger.child({ provider: provider.name }),
          signal,
        }),
      ),
    );
    this.#logger.info({ clusters: [...this.#provided.keys()] }, 'fleet started');
  }

  /** Stops the providers and disengages every cluster, draining their reconciles for up to `drainTimeoutMs`. */
  async stop(options: { drainTimeoutMs?: number } = {}): Promise<void> {
    this.#running = false;
    this.#abort?.abort();
    this.#gate?.unsubscribe();
    await Promise.all(this.#providers.map((p) => p.stop().catch(() => {})));
    this.#provided.clear();
    this.#sync(options.drainTimeoutMs);
    await Promise.all(this.#ops.values());
  }

  #sink(provider: ClusterProvider): ClusterSink {
    return {
      engage: (cluster) => {
        const held = this.#provided.get(cluster.name);
        if (held !== undefined && (held.provider !== provider || held.source !== cluster.source)) {
          this.#problem(provider, new ClusterNameConflictError(cluster.name, held.source, cluster.source));
          return;
        }
        this.#provided.set(cluster.name, { ...cluster, provider });
        this.#sync();
      },
      disengage: (name, source) => {
        const held = this.#provided.get(name);
        if (held?.provider !== provider || held.source !== source) return;
        this.#provided.delete(name);
        this.#sync();
      },
      problem: (error) => this.#problem(provider, error),
    };
  }

  #problem(provider: ClusterProvider, error: Error): void {
    this.#logger.error({ provider: provider.name, ...errorLogFields(this.#logger, error) }, 'cluster provider problem (skipped)');
  }

  /** Brings the runs in line with what is provided and what the gate admits. */
  #sync(drainTimeoutMs?: number): void {
    for (const [name, run] of this.#runs) {
      const wanted = this.#provided.get(name);
      const refusal = this.#running ? this.#host.gate.refusal(name) : new Error('the fleet is stopping');
      if (wanted !== undefined && sameCluster(wanted, run.cluster) && refusal === undefined) continue;
      this.#runs.delete(name);
      const reason = refusal ?? new Error(`cluster ${name} was ${wanted === undefined ? 'removed' : 'changed'} by ${run.cluster.source}`);
      this.#logger.info({ cluster: name, reason: reason.message }, 'disengaging cluster');
      this.#chain(name, () => run.stop(reason, drainTimeoutMs));
    }
    if (!this.#running) return;
    const { fieldManager, validate, inspection } = this.#host.operator;
    for (const [name, cluster] of this.#provided) {
      if (this.#runs.has(name) || this.#host.gate.refusal(name) !== undefined) continue;
      const run = new ClusterRun<P>({
        cluster: { name, kubeConfig: cluster.kubeConfig, source: cluster.source },
        controller: this.name,
        newController: (client, logger, events) =>
          new Controller<P>(
            // The client handed to the reconciles is this ClusterClient: the fleet reconciler's type holds.
            this.#reconciler,
            this.#options,
            client,
            { logger, events, ...(inspection !== undefined ? { inspection } : {}) },
          ),
        clientOptions: {
          ...(fieldManager !== undefined ? { fieldManager } : {}),
          ...(validate !== undefined ? { validate } : {}),
          fence: () => this.#fence(name),
        },
        logger: this.#logger.child({ cluster: name }),
        metrics: FleetMetrics.of(this.#host.metrics.registry),
        events: { options: this.#host.operator.events, metrics: this.#host.metrics.events },
        cacheSyncTimeoutMs: this.#cacheSyncTimeoutMs,
        retryMs: this.#retryMs,
      });
      this.#runs.set(name, run);
      this.#logger.info({ cluster: name, source: cluster.source }, 'engaging cluster');
      // After the previous run of the name stopped: its informers are gone before new ones start.
      this.#chain(name, async () => run.begin());
    }
    // A warm standby's clusters keep their caches and hold their reconciles until it leads.
    const standby = this.#host.gate.standby?.();
    for (const run of this.#runs.values()) run.hold(standby);
  }

  /** Writes for `cluster` pass while this replica runs it and is not a standby. */
  #fence(cluster: string): void {
    const refusal = this.#host.gate.refusal(cluster) ?? this.#host.gate.standby?.();
    if (refusal !== undefined) throw refusal;
  }

  #chain(name: string, op: () => Promise<void>): void {
    const next = (this.#ops.get(name) ?? Promise.resolve()).then(op).catch((error: unknown) => {
      this.#logger.warn({ cluster: name, ...errorLogFields(this.#logger, error) }, 'disengaging cluster failed');
    });
    this.#ops.set(name, next);
    void next.finally(() => {
      if (this.#ops.get(name) === next) this.#ops.delete(name);
    });
  }
}

/** Whether an engagement is the one running: a re-engagement brings a new KubeConfig object. */
function sameCluster(a: FleetCluster, b: FleetCluster): boolean {
  return a.kubeConfig === b.kubeConfig && a.source === b.source;
}
