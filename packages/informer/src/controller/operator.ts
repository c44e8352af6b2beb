import type { KubeConfig } from '@kubernetes/client-node';
import type { KubernetesObject, Reconciler } from '@kindex/core';
import { KubeClient, type KubeClientOptions } from '../client/kube-client.js';
import { Controller, type ControllerOptions } from './controller.js';

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
 */
export class Operator {
  readonly client: KubeClient;
  readonly #controllers: Controller<KubernetesObject>[] = [];
  #started = false;

  constructor(options: { kubeConfig: KubeConfig } & KubeClientOptions) {
    this.client = new KubeClient(options.kubeConfig, options);
  }

  /** The registered controllers. */
  get controllers(): readonly Controller<KubernetesObject>[] {
    return this.#controllers;
  }

  /** Registers a reconciler for a primary kind. Register before `start()`. */
  register<P extends KubernetesObject>(reconciler: Reconciler<P, KubeClient>, options: ControllerOptions<P>): Controller<P> {
    if (this.#started) throw new Error('register controllers before Operator.start()');
    const controller = new Controller<P>(reconciler, options, this.client);
    if (this.#controllers.some((c) => c.name === controller.name)) {
      throw new Error(`a controller named ${JSON.stringify(controller.name)} is registered already`);
    }
    this.#controllers.push(controller as unknown as Controller<KubernetesObject>);
    return controller;
  }

  /** Starts every controller; resolves when all caches have synced and reconciling began. */
  async start(): Promise<void> {
    this.#started = true;
    await Promise.all(this.#controllers.map((c) => c.start()));
  }

  /** Stops every controller (draining in-flight reconciles) and every shared informer. */
  async stop(options: { drainTimeoutMs?: number } = {}): Promise<void> {
    await Promise.all(this.#controllers.map((c) => c.stop(options)));
    await this.client.registry.stopAll();
  }
}
