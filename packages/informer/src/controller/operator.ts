import type { KubeConfig } from '@kubernetes/client-node';
import type { KubernetesObject, Logger, Reconciler } from '@kindex/core';
import { KubeClient, type KubeClientOptions } from '../client/kube-client.js';
import type { OperatorMetrics } from '../metrics/operator-metrics.js';
import type { HealthChecks } from '../server/health-checks.js';
import type { OperatorServer } from '../server/operator-server.js';
import { Controller, type ControllerOptions } from './controller.js';
import { OperatorObservability, type OperatorObservabilityOptions } from './operator-observability.js';

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
  /** The operator's logger (pino; writes nothing unless the `logger` option is given). */
  readonly logger: Logger;
  /** The operator's Prometheus metrics, in a registry of its own. */
  readonly metrics: OperatorMetrics;
  /** Liveness and readiness checks; add your own with `addHealthzCheck` / `addReadyzCheck`. */
  readonly health: HealthChecks;
  /** The HTTP server, when the `server` option asked for one (listening from `start()` to `stop()`). */
  readonly server: OperatorServer | undefined;
  readonly #observability: OperatorObservability;

  constructor(options: { kubeConfig: KubeConfig } & KubeClientOptions & OperatorObservabilityOptions) {
    this.client = new KubeClient(options.kubeConfig, options);
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

  /** Starts every controller; resolves when all caches have synced and reconciling began. */
  async start(): Promise<void> {
    this.#started = true;
    await this.#observability.starting();
    await Promise.all(this.#controllers.map((c) => c.start()));
    this.#observability.started();
  }

  /** Stops every controller (draining in-flight reconciles) and every shared informer. */
  async stop(options: { drainTimeoutMs?: number } = {}): Promise<void> {
    await Promise.all(this.#controllers.map((c) => c.stop(options)));
    await this.client.registry.stopAll();
    await this.#observability.stopped();
  }
}
