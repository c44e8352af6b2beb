import type { KubeConfig } from '@kubernetes/client-node';
import type { KubernetesObject, Logger, Reconciler } from '@kindex/core';
import { KubeClient, type KubeClientOptions } from '../client/kube-client.js';
import type { OperatorMetrics } from '../metrics/operator-metrics.js';
import type { HealthChecks } from '../server/health-checks.js';
import type { OperatorServer } from '../server/operator-server.js';
import { Controller, type ControllerOptions } from './controller.js';
import { OperatorObservability, type OperatorObservabilityOptions } from './operator-observability.js';
import type { StartOptions } from '../startup/start-options.js';
import { validateCacheSyncTimeout } from '../startup/start-options.js';
import { requiredPermissions, type RbacListingOptions } from '../rbac/required-permissions.js';
import { rbacManifest, type RbacManifest } from '../rbac/rbac-manifest.js';

/**
 * The process-level entry point: one KubeConfig, one registry of shared informers, any number
 * of controllers.
 *
 * @example
 * ```ts
 * const operator = new Operator({ kubeConfig });
 * operator.register(new JobReconciler(), { kind: JobKind, namespaces: ['team-a'] });
 * await operator.start();
 * process.once('SIGTERM', () => operator.stop());
 * ```
 *
 * With `logger: 'info'` it logs JSON lines through pino; with `server: { port: 8080 }` it serves
 * `/metrics`, `/healthz` and `/readyz` from `start()` to `stop()`.
 */
export class Operator {
  readonly client: KubeClient;
  readonly #controllers: Controller<KubernetesObject>[] = [];
  #started = false;
  readonly #cacheSyncTimeoutMs: number | undefined;
  #stopping: AbortController | undefined;
  /** The operator's logger (pino; writes nothing unless the `logger` option is given). */
  readonly logger: Logger;
  /** The operator's Prometheus metrics, in a registry of its own. */
  readonly metrics: OperatorMetrics;
  /** Liveness and readiness checks; add your own with `addHealthzCheck` / `addReadyzCheck`. */
  readonly health: HealthChecks;
  /** The HTTP server, when the `server` option asked for one (listening from `start()` to `stop()`). */
  readonly server: OperatorServer | undefined;
  readonly #observability: OperatorObservability;

  constructor(options: { kubeConfig: KubeConfig; cacheSyncTimeoutMs?: number } & KubeClientOptions & OperatorObservabilityOptions) {
    const { cacheSyncTimeoutMs, ...clientOptions } = options;
    this.#cacheSyncTimeoutMs = validateCacheSyncTimeout(cacheSyncTimeoutMs, 'Operator');
    this.client = new KubeClient(options.kubeConfig, clientOptions);
    this.#observability = new OperatorObservability(options, this.client.registry, () => this.#controllers);
    ({ logger: this.logger, metrics: this.metrics, health: this.health, server: this.server } = this.#observability);
  }

  /** The registered controllers. */
  get controllers(): readonly Controller<KubernetesObject>[] {
    return this.#controllers;
  }

  /** Registers a reconciler for a primary kind. Register before `start()`. */
  register<P extends KubernetesObject>(reconciler: Reconciler<P, KubeClient>, options: ControllerOptions<P>): Controller<P> {
    if (this.#started) throw new Error('register controllers before Operator.start()');
    const controller = new Controller<P>(reconciler, options, this.client, this.#observability.forController());
    if (this.#controllers.some((c) => c.name === controller.name)) {
      throw new Error(`a controller named ${JSON.stringify(controller.name)} is registered already`);
    }
    this.#controllers.push(controller as unknown as Controller<KubernetesObject>);
    this.#observability.registered(controller as unknown as Controller<KubernetesObject>);
    return controller;
  }

  /**
   * Starts every controller; resolves when all caches have synced and reconciling began.
   *
   * Rejects with ONE error, the first controller's failure (`CacheSyncError` for 400/401/403/404,
   * `CacheSyncTimeoutError` after `cacheSyncTimeoutMs`, `StartAbortedError` on `stop()` or
   * `signal`), after stopping every controller: a process that cannot work exits loudly instead
   * of hanging. A controller registered with `whenCrdMissing: 'wait'` does not hold the start.
   */
  async start(options: StartOptions = {}): Promise<void> {
    this.#started = true;
    await this.#observability.starting();
    const stopping = new AbortController();
    this.#stopping = stopping;
    const signal = options.signal === undefined ? stopping.signal : AbortSignal.any([stopping.signal, options.signal]);
    const cacheSyncTimeoutMs = options.cacheSyncTimeoutMs ?? this.#cacheSyncTimeoutMs;
    const starts = this.#controllers.map((c) => c.start({ signal, ...(cacheSyncTimeoutMs !== undefined ? { cacheSyncTimeoutMs } : {}) }));
    try {
      await Promise.all(starts);
      this.#observability.started();
    } catch (error) {
      // The first failure is the one to report; the others are its consequences (aborted).
      stopping.abort();
      await Promise.allSettled(starts);
      await this.stop();
      throw error;
    }
  }

  /**
   * The RBAC rules the registered controllers need, as Role/ClusterRole manifests (YAML and
   * objects). It prepares each controller's event sources (once: `start()` reuses them) to learn
   * their kinds and namespaces, and talks to no server.
   */
  async rbacManifest(options: RbacListingOptions = {}): Promise<RbacManifest> {
    return rbacManifest(await requiredPermissions(this.#controllers, options), options);
  }

  /** Stops every controller (draining in-flight reconciles) and every shared informer. */
  async stop(options: { drainTimeoutMs?: number } = {}): Promise<void> {
    this.#stopping?.abort();
    await Promise.all(this.#controllers.map((c) => c.stop(options)));
    await this.client.registry.stopAll();
    await this.#observability.stopped();
  }
}
