/**
 * The composition root: `Operator` builds the KubeClient, registers controllers, and wires the
 * services around them (health and metrics server, metrics, logs and Event records, leader
 * election, sharding, webhooks, the RBAC listing). Nothing below `operator/` imports it: the
 * services reach controllers through narrow interfaces or the controller's public methods, and
 * `scripts/ci/check-layers.mjs` keeps it so.
 *
 * @module
 */
import { type KubernetesObject, type Logger, type Reconciler } from '@kindex/core';
import { rejectUnknownOptions } from '@kindex/core/internal';
import { KubeClient, type KubeClientOptions } from '../client/kube-client.js';
import { InformerRegistry } from '../cache/informer-registry.js';
import type { OperatorMetrics } from '../metrics/operator-metrics.js';
import type { HealthChecks } from '../server/health-checks.js';
import type { OperatorServer } from '../server/operator-server.js';
import { KubeLeaseStore } from '../leader-election/kube-lease-store.js';
import { LeaderElectionConfigError, NotLeaderError } from '../leader-election/leader-election-errors.js';
import { LeaderElector, type LeaderElectionStatus } from '../leader-election/leader-elector.js';
import type { OperatorLeaderElectionOptions } from '../leader-election/operator-leader-election.js';
import { OperatorSharding } from '../sharding/operator-sharding.js';
import type { ShardCoordinator } from '../sharding/shard-coordinator.js';
import { Controller } from '../controller/controller.js';
import { controllerInternals } from '../controller/controller-internals.js';
import { shardedController } from './sharded-controllers.js';
import { STOP_OPTIONS } from '../controller/controller-options.js';
import {
  OPERATOR_CONTROLLER_OPTIONS,
  resolveDistribution,
  type ControllerDistribution,
  type OperatorControllerOptions,
} from './controller-distribution.js';
import { OperatorObservability } from './operator-observability.js';
import { runOperatorProcess } from './run-process.js';
import { errorLogFields } from '../logging/user-error.js';
import type { StartOptions } from '../startup/start-options.js';
import { START_OPTIONS, validateCacheSyncTimeout } from '../startup/start-options.js';
import type { RbacListingOptions } from './required-permissions.js';
import { operatorRbacManifest } from './operator-rbac.js';
import type { RbacManifest } from '../rbac/rbac-manifest.js';
import type { LeaseOwners } from '../rbac/lease-permissions.js';
import { WebhookConfigError } from '../webhook/webhook-errors.js';
import { OPERATOR_OPTION_KEYS, OPERATOR_RUN_OPTIONS, type OperatorOptions, type OperatorRunOptions } from './operator-options.js';
import { WebhookServer } from '../webhook/webhook-server.js';
import { webhookManifest, type WebhookManifest, type WebhookManifestOptions } from '../webhook/webhook-manifest.js';
import { refuseStartWhileDescribing } from '../manifests/describe-only.js';
import { FleetController, type FleetControllerOptions, type FleetReconciler } from '../fleet/fleet-controller.js';
import { gateFor } from '../fleet/cluster-gate.js';

/** How long a replica that lost its lease waits for its aborted reconciles before exiting. */
const LOST_LEASE_DRAIN_MS = 5_000;

/**
 * The process-level entry point: one KubeConfig, one registry of shared informers, any number
 * of controllers, and optionally leader election and sharding among replicas. With both, each
 * controller runs leader-elected (the default), sharded or on every replica, as its
 * `distribution` says: a singleton controller beside sharded ones in one process.
 *
 * @example
 * ```ts
 * import { Operator, type KubeClient, type ResourceKind } from '@kindex/informer';
 * import type { KubernetesObject, Reconciler } from '@kindex/core';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 * declare const JobKind: ResourceKind<KubernetesObject>;
 * declare class JobReconciler implements Reconciler<KubernetesObject, KubeClient> {
 *   reconcile: Reconciler<KubernetesObject, KubeClient>['reconcile'];
 * }
 * const operator = new Operator({ kubeConfig, leaderElection: { leaseName: 'job-operator', leaseNamespace: 'ops' } });
 * operator.register(new JobReconciler(), { kind: JobKind, namespaces: ['team-a'] });
 * await operator.run(); // until SIGTERM: drains, releases the lease, exits 0
 * ```
 *
 * With `logger: 'info'` it logs JSON lines through pino; with `server: { port: 8080 }` it serves
 * `/metrics`, `/healthz` and `/readyz` from `start()` to `stop()`. With `webhooks: { port: 9443 }` it serves
 * the admission and conversion webhooks registered on `operator.webhooks` over HTTPS, and
 * `webhookManifest()` derives their configurations.
 */
export class Operator {
  /**
   * The operator's client, with the `fence` option and, under leader election, refusing writes
   * while this replica does not lead: the client of leader-elected controllers. Sharded and
   * every-replica controllers write through one sharing its informer registry without the
   * leadership fence.
   */
  readonly client: KubeClient;
  /** The replica's candidate in the leader election; undefined without the `leaderElection` option. */
  readonly leaderElector: LeaderElector | undefined;
  readonly #controllers: Controller<KubernetesObject>[] = [];
  /** Started after the controllers and the first attempt on the lease. */
  readonly #fleets: FleetController<KubernetesObject>[] = [];
  /** The registered fleets; `fleet.controllerOf(cluster)` and `/debug/controllers` reach their per-cluster controllers. */
  readonly fleets: readonly FleetController<KubernetesObject>[] = this.#fleets;
  /** How the fleets run, for the start-time warnings. */
  readonly #fleetDistributions = new Set<ControllerDistribution>();
  /** How each registered controller runs among the replicas. */
  readonly #distributions = new Map<Controller<KubernetesObject>, ControllerDistribution>();
  /**
   * The client of the controllers that do not follow the leader Lease (sharded, every replica):
   * the registry of `client` without its leadership fence. `client` itself when there is none.
   */
  readonly #leaseFreeClient: KubeClient;
  readonly #sharding: OperatorSharding | undefined;
  readonly #onLost: OperatorLeaderElectionOptions['onLost'];
  #started = false;
  readonly #cacheSyncTimeoutMs: number | undefined;
  /** Aborts a start in progress when `stop()` comes. */
  #stopping: AbortController | undefined;
  #shuttingDown = false;
  /** The one stop, once asked for. */
  #stopped: Promise<void> | undefined;
  /** The operator's logger (pino; writes nothing unless the `logger` option is given). */
  readonly logger: Logger;
  /** The operator's Prometheus metrics, in a registry of its own. */
  readonly metrics: OperatorMetrics;
  /** Liveness and readiness checks; add your own with `addHealthzCheck` / `addReadyzCheck`. */
  readonly health: HealthChecks;
  /** The HTTP server, when the `server` option asked for one (listening from `start()` to `stop()`). */
  readonly server: OperatorServer | undefined;
  readonly #observability: OperatorObservability;
  /** Where the leader election and sharding Leases live, for `rbacManifest()`. */
  readonly #leaseOwners: LeaseOwners;
  /** The webhook server, when the `webhooks` option asked for one: register admission and conversion webhooks on it. */
  readonly webhooks: WebhookServer | undefined;
  /** The options the operator was made with, as given: what `kindex manifests` reads its ports and Leases from. */
  readonly options: OperatorOptions;

  constructor(options: OperatorOptions) {
    rejectUnknownOptions('Operator options', options, OPERATOR_OPTION_KEYS);
    this.options = options;
    const { cacheSyncTimeoutMs, fieldManager, registry, validate, webhooks } = options;
    // Only the client's own options: KubeClient rejects the Operator's other keys as unknown.
    const clientOptions: KubeClientOptions = {
      ...(fieldManager !== undefined ? { fieldManager } : {}),
      ...(registry ? { registry } : {}),
      ...(validate !== undefined ? { validate } : {}),
    };
    this.#cacheSyncTimeoutMs = validateCacheSyncTimeout(cacheSyncTimeoutMs, 'Operator');
    const election = options.leaderElection;
    this.#leaseOwners = { leaderElection: election, sharding: options.sharding };
    this.#onLost = election?.onLost ?? 'exit';
    if (election !== undefined) {
      for (const field of ['leaseName', 'leaseNamespace'] as const) {
        if (typeof election[field] !== 'string' || election[field] === '') {
          throw new LeaderElectionConfigError(
            field,
            election[field],
            'give the name of the Lease shared by all replicas (and its namespace)',
          );
        }
      }
      const { onLost, leaseName, leaseNamespace, ...timing } = election;
      // The elector's own client: its lease writes must not go through the fence they define.
      const store = new KubeLeaseStore(new KubeClient(options.kubeConfig), { name: leaseName, namespace: leaseNamespace });
      this.leaderElector = new LeaderElector({ store, ...timing, afterLoss: onLost === 'standby' ? 'rejoin' : 'stop' });
    }
    const elector = this.leaderElector;
    const userFence = options.fence;
    const fence =
      elector === undefined
        ? userFence
        : (): void => {
            userFence?.();
            if (!elector.isLeader) throw new NotLeaderError(elector.identity, elector.lease);
          };
    this.client = new KubeClient(options.kubeConfig, { ...clientOptions, ...(fence ? { fence } : {}) });
    // One registry: controllers of either kind still share informers.
    this.#leaseFreeClient =
      elector === undefined
        ? this.client
        : new KubeClient(options.kubeConfig, {
            ...clientOptions,
            registry: InformerRegistry.of(this.client),
            ...(userFence ? { fence: userFence } : {}),
          });
    // Events go out through the lease-free client: recording is not a leader's privilege, and a
    // sharded controller on a follower records too.
    this.#observability = new OperatorObservability(options, InformerRegistry.of(this.client), this, {
      client: this.#leaseFreeClient,
      identity: () => this.leaderElector?.identity ?? this.#sharding?.coordinator.identity,
    });
    ({ logger: this.logger, metrics: this.metrics, health: this.health, server: this.server } = this.#observability);
    this.webhooks =
      webhooks === undefined ? undefined : new WebhookServer(webhooks, { registry: this.metrics.registry, logger: this.logger });
    if (elector !== undefined) this.#observeElection(elector, election!.leaseName);
    if (options.sharding !== undefined) {
      // The coordinator's own client: its lease writes must not go through any fence.
      this.#sharding = new OperatorSharding(options.sharding, new KubeClient(options.kubeConfig), () =>
        this.#distributed('sharded').map(shardedController),
      );
    }
  }

  /** This replica's shard ownership; undefined without the `sharding` option. */
  get shardCoordinator(): ShardCoordinator | undefined {
    return this.#sharding?.coordinator;
  }

  /** The registered controllers, of the operator's own cluster (a fleet's per-cluster ones: {@link fleets}). */
  get controllers(): readonly Controller<KubernetesObject>[] {
    return this.#controllers;
  }

  /**
   * Whether this replica runs its leader-elected controllers now: always without leader
   * election, else while it holds the lease.
   */
  get isLeader(): boolean {
    return this.leaderElector?.isLeader ?? true;
  }

  /** How a registered controller runs among the replicas (its resolved `distribution`). */
  distributionOf<P extends KubernetesObject>(controller: Controller<P>): ControllerDistribution | undefined {
    return this.#distributions.get(controller as unknown as Controller<KubernetesObject>);
  }

  /**
   * Registers a reconciler for a primary kind. Register before `start()`. Throws
   * `ControllerDistributionError` when `distribution` asks for what the operator lacks.
   */
  register<P extends KubernetesObject>(reconciler: Reconciler<P, KubeClient>, options: OperatorControllerOptions<P>): Controller<P> {
    if (this.#started) throw new Error('register controllers before Operator.start()');
    // Malformed options (null, no kind) go through to the Controller, which says what is wrong.
    const { distribution: requested, ...controllerOptions } = options ?? {};
    const replication = { leaderElection: this.leaderElector !== undefined, sharding: this.#sharding !== undefined };
    // Checked before the controller exists, under the name the Controller gives itself.
    const name = controllerOptions.name ?? `${controllerOptions.kind?.plural}.${controllerOptions.kind?.group || 'core'}`;
    // Here and not only in the Controller, which does not know `distribution` (and would not suggest it).
    rejectUnknownOptions(`controller ${name} options`, options, OPERATOR_CONTROLLER_OPTIONS.keys);
    const distribution = resolveDistribution(name, requested, replication);
    const leaderElected = distribution === 'leader-elected';
    const controller = new Controller<P>(
      reconciler,
      // A late write of a replica that lost its lease or shard must not clobber its successor's.
      leaderElected || distribution === 'sharded' ? { optimisticLocking: true, ...controllerOptions } : controllerOptions,
      leaderElected ? this.client : this.#leaseFreeClient,
      this.#observability.forController(),
    );
    if (this.#controllers.some((c) => c.name === controller.name)) {
      throw new Error(`a controller named ${JSON.stringify(controller.name)} is registered already`);
    }
    // Warm standby: caches start and sync, reconciles wait for the lease.
    if (leaderElected) controller.pauseDispatch();
    const sharding = this.#sharding;
    if (distribution === 'sharded' && sharding !== undefined) {
      // Until the first round says otherwise, this replica owns nothing and caches next to nothing.
      void controller.changeShardSelector(sharding.selectorFor([]));
      const internals = controllerInternals<P>(controller);
      internals.setDispatchGuard((primary) => sharding.owns(primary));
      internals.setPrimaryFence((primary) => sharding.fence(primary));
    }
    const registered = controller as unknown as Controller<KubernetesObject>;
    this.#controllers.push(registered);
    this.#distributions.set(registered, distribution);
    this.#observability.registered(registered);
    return controller;
  }

  /**
   * Registers a reconciler for a primary kind in every cluster a provider engages, each with its own
   * controller, caches and queue ({@link FleetController}). Register before `start()`. `distribution`
   * as for `register`: leader-elected runs on the leader, sharded spreads clusters over the shards.
   */
  registerFleet<P extends KubernetesObject>(
    reconciler: FleetReconciler<P>,
    options: FleetControllerOptions<P> & { readonly distribution?: ControllerDistribution },
  ): FleetController<P> {
    if (this.#started) throw new Error('register fleets before Operator.start()');
    const { distribution, ...fleetOptions } = options ?? {};
    const name = fleetOptions.name ?? `${fleetOptions.kind?.plural}.${fleetOptions.kind?.group || 'core'}`;
    const replication = { leaderElection: this.leaderElector !== undefined, sharding: this.#sharding !== undefined };
    const resolved = resolveDistribution(name, distribution, replication);
    this.#fleetDistributions.add(resolved);
    const gate = gateFor(resolved, this.leaderElector, this.#sharding?.coordinator);
    const host = { operator: this.options, registry: InformerRegistry.of(this.#leaseFreeClient), logger: this.logger, gate };
    const fleet = new FleetController<P>(reconciler, fleetOptions, { ...host, metrics: this.metrics });
    if ([...this.#controllers, ...this.#fleets].some((c) => c.name === fleet.name)) {
      throw new Error(`a controller named ${JSON.stringify(fleet.name)} is registered already`);
    }
    this.#fleets.push(fleet as unknown as FleetController<KubernetesObject>);
    return fleet;
  }

  /** The registered controllers that run with `distribution`. */
  #distributed(distribution: ControllerDistribution): Controller<KubernetesObject>[] {
    return this.#controllers.filter((c) => this.#distributions.get(c) === distribution);
  }

  /**
   * Starts every controller; resolves when all caches have synced. Without leader election,
   * reconciling has begun; with it, the replica has made its first attempt on the lease and
   * reconciles only while it holds it.
   *
   * Rejects with ONE error, the first controller's failure (`CacheSyncError` for 400/401/403/404,
   * `CacheSyncTimeoutError` after `cacheSyncTimeoutMs`, `StartAbortedError` on `stop()` or
   * `signal`), after stopping every controller: a process that cannot work exits loudly instead
   * of hanging. A controller registered with `whenCrdMissing: 'wait'` does not hold the start.
   */
  async start(options: StartOptions = {}): Promise<void> {
    START_OPTIONS.check(options, 'Operator.start options');
    // `kindex manifests` imports the operator's module only to describe it: never connect then.
    refuseStartWhileDescribing();
    this.#started = true;
    await this.#observability.starting();
    // Before the caches: the API server may call the webhooks as soon as they are configured.
    await this.webhooks?.listen().catch(async (error: unknown) => {
      await this.stop();
      throw error;
    });
    const stopping = new AbortController();
    this.#stopping = stopping;
    const signal = options.signal === undefined ? stopping.signal : AbortSignal.any([stopping.signal, options.signal]);
    const cacheSyncTimeoutMs = options.cacheSyncTimeoutMs ?? this.#cacheSyncTimeoutMs;
    const elector = this.leaderElector;
    if (elector !== undefined) this.#followLease(elector);
    this.#warnUnused();
    const sharding = this.#sharding;
    if (sharding !== undefined) {
      // The first round decides the ranges the caches start with; later changes follow.
      await sharding.coordinator.start();
      await sharding.apply(sharding.coordinator.ownership);
      sharding.coordinator.ownership$.subscribe((ownership) => {
        if (!this.#shuttingDown)
          void sharding
            .apply(ownership)
            .catch((error: unknown) => this.logger.warn(errorLogFields(this.logger, error), 'sharding: changing cache ranges failed'));
      });
      sharding.coordinator.problems$.subscribe((error) =>
        this.logger.warn(errorLogFields(this.logger, error), 'sharding: lease request failed'),
      );
      sharding.coordinator.lost$.subscribe((loss) => {
        const { error, aborted } = sharding.abortLost(loss);
        this.logger.warn(
          { ...errorLogFields(this.logger, error), shard: loss.shard, aborted },
          'sharding: shard lost, running reconciles aborted',
        );
      });
    }
    const electorStart = elector?.start();
    const controllerStarts = this.#controllers.map((c) =>
      c.start({ signal, ...(cacheSyncTimeoutMs !== undefined ? { cacheSyncTimeoutMs } : {}) }),
    );
    try {
      await Promise.all([...(electorStart !== undefined ? [electorStart] : []), ...controllerStarts]);
      await Promise.all(this.#fleets.map((f) => f.start({ signal, ...(cacheSyncTimeoutMs !== undefined ? { cacheSyncTimeoutMs } : {}) })));
      this.#observability.started();
    } catch (error) {
      // The first failure is the one to report; the others are its consequences (aborted).
      stopping.abort();
      // Not the elector's first attempt: it takes no signal and, on a server that accepts but does
      // not answer, runs out its renewDeadlineMs (a SIGTERM took 8.8 s). stop() ends its campaign;
      // a Lease that attempt still acquires is not renewed and expires after leaseDurationMs.
      await Promise.allSettled(controllerStarts);
      await this.stop();
      throw error;
    }
  }

  /**
   * The RBAC rules the operator needs, least privilege, as Role/ClusterRole manifests (YAML and
   * objects): read verbs on what the controllers watch, write verbs on what kindex writes
   * (primary status and finalizers, workflow dependents, leader election and sharding Leases)
   * and on the kinds declared with each controller's `writes` option. It prepares each
   * controller's event sources (once: `start()` reuses them) to learn their kinds and
   * namespaces, and talks to no server (remote clusters' rules: `clusters`; fleet members': `fleets`).
   */
  async rbacManifest(options: RbacListingOptions = {}): Promise<RbacManifest> {
    const parts = { controllers: this.#controllers, fleets: this.#fleets, leaseOwners: this.#leaseOwners };
    return operatorRbacManifest({ ...parts, secureServer: this.server?.secure === true }, options);
  }

  /**
   * The Validating/MutatingWebhookConfigurations and CRD `spec.conversion` stanzas for the
   * webhooks registered on `webhooks`, reached through `service` or `url`. Throws
   * `WebhookConfigError` without the `webhooks` option or with neither or both of service and url.
   */
  webhookManifest(options: WebhookManifestOptions): WebhookManifest {
    const server = this.webhooks;
    if (server === undefined) {
      throw new WebhookConfigError(
        'Operator.webhookManifest',
        'webhooks',
        'the operator has no webhook server: give the Operator option webhooks: { port: 9443, ... }',
      );
    }
    return webhookManifest(server.admissionWebhooks, server.conversionWebhooks, options);
  }

  /**
   * Stops taking new work, drains in-flight reconciles (abandoning them after `drainTimeoutMs`),
   * releases the lease, and stops every shared informer. A second call joins the first.
   */
  async stop(options: { drainTimeoutMs?: number } = {}): Promise<void> {
    STOP_OPTIONS.check(options, 'Operator.stop options');
    // Once: a failed start stops, and so does run() after it; each stop line is logged once.
    return (this.#stopped ??= this.#stopOnce(options));
  }

  async #stopOnce(options: { drainTimeoutMs?: number }): Promise<void> {
    this.#shuttingDown = true;
    this.#stopping?.abort();
    for (const c of this.#controllers) c.pauseDispatch();
    await Promise.all([...this.#fleets.map((f) => f.stop(options)), ...this.#controllers.map((c) => c.stop(options))]);
    // Before the lease goes: the fenced client refuses Event writes once it is released.
    await this.#observability.events?.stop({ timeoutMs: Math.min(options.drainTimeoutMs ?? 5_000, 5_000) });
    // Only now: the next leader must not start while our reconciles still run.
    await this.leaderElector?.stop();
    await this.#sharding?.coordinator.stop();
    await this.client.registry?.stopAll();
    await this.webhooks?.close();
    await this.#observability.stopped();
  }

  /**
   * Runs the operator as a process: starts, waits for SIGTERM (or SIGINT), then stops taking
   * work, lets in-flight reconciles finish within `gracefulShutdownTimeoutMs`, releases the
   * lease and exits 0. A signal while `start()` is still in progress (caches not synced) aborts
   * the start and exits 1 at once with one line on stderr. A second signal exits at once with
   * code 1. When `start()` fails (e.g. `CacheSyncError`), stops what did start, logs the error's
   * message and causes (the stack only at `debug`), prints them on stderr and exits 1; with
   * `exit: false` it rejects with the error instead (print it with `formatErrorForUser`).
   */
  async run(options: OperatorRunOptions = {}): Promise<void> {
    OPERATOR_RUN_OPTIONS.check(options);
    // Before the process logic, which would exit the describing tool instead of rejecting.
    refuseStartWhileDescribing();
    await runOperatorProcess(this, options);
  }

  /**
   * Dispatch of the leader-elected controllers follows the lease: resumed while leading, paused
   * (and in-flight work aborted) the moment it is lost. Sharded and every-replica controllers
   * go on (until `onLost: 'exit'` stops the whole process).
   */
  #followLease(elector: LeaderElector): void {
    let leading = false;
    elector.status$.subscribe((status) => {
      if (status.role === 'leader') {
        leading = true;
        if (!this.#shuttingDown) for (const c of this.#distributed('leader-elected')) c.resumeDispatch();
        return;
      }
      // Synchronous with the elector's decision: nothing is dispatched after it.
      const abort = leading ? new NotLeaderError(elector.identity, elector.lease) : undefined;
      for (const c of this.#distributed('leader-elected')) c.pauseDispatch(abort);
      if (leading && !this.#shuttingDown) this.#lost(status);
      leading = false;
    });
  }

  /**
   * A mechanism no controller follows still holds its Leases: say so, since the likely cause is
   * a controller that should have asked for it (with both on, controllers default to the leader).
   */
  #warnUnused(): void {
    if (this.#controllers.length === 0 && this.#fleets.length === 0) return;
    const used = (d: ControllerDistribution): boolean => this.#distributed(d).length > 0 || this.#fleetDistributions.has(d);
    if (this.#sharding !== undefined && !used('sharded')) {
      this.logger.warn("sharding is configured but no controller is sharded: register them with distribution: 'sharded'");
    }
    if (this.leaderElector !== undefined && !used('leader-elected')) {
      this.logger.warn(
        "leaderElection is configured but no controller is leader-elected: register singletons with distribution: 'leader-elected'",
      );
    }
  }

  /** Leader state in metrics, readiness and logs. */
  #observeElection(elector: LeaderElector, leaseName: string): void {
    this.metrics.setLeaderElectionStatus(leaseName, false);
    elector.status$.subscribe((status) => {
      this.metrics.setLeaderElectionStatus(leaseName, status.role === 'leader');
      this.logger.info(
        { lease: elector.lease, identity: elector.identity, role: status.role, holder: status.holderIdentity, reason: status.reason },
        'leader election',
      );
    });
    elector.problems$.subscribe((error) =>
      this.logger.warn({ lease: elector.lease, ...errorLogFields(this.logger, error) }, 'leader election: lease request failed'),
    );
    // A follower with synced caches is ready (warm standby); one that gave up the election is not.
    this.health.addReadyzCheck('leader-election', () => {
      if (elector.status.role === 'stopped' && !this.#shuttingDown)
        throw new Error(`no longer a candidate for lease ${elector.lease}: ${elector.status.reason}`);
    });
  }

  #lost(status: LeaderElectionStatus): void {
    const onLost = this.#onLost;
    if (onLost === 'standby') return;
    if (typeof onLost === 'function') {
      onLost(status);
      return;
    }
    process.stderr.write(`kindex: ${this.leaderElector?.identity} lost lease ${this.leaderElector?.lease} (${status.reason}); exiting\n`);
    process.exitCode = 1;
    void this.stop({ drainTimeoutMs: LOST_LEASE_DRAIN_MS }).finally(() => process.exit(1));
  }
}
