import type { KubeConfig } from '@kubernetes/client-node';
import type { KubernetesObject, Reconciler } from '@kindex/core';
import { KubeClient, type KubeClientOptions } from '../client/kube-client.js';
import { KubeLeaseStore } from '../leader-election/kube-lease-store.js';
import { LeaderElectionConfigError, NotLeaderError } from '../leader-election/leader-election-errors.js';
import { LeaderElector, type LeaderElectionStatus } from '../leader-election/leader-elector.js';
import type { OperatorLeaderElectionOptions } from '../leader-election/operator-leader-election.js';
import { Controller, type ControllerOptions } from './controller.js';

/** Options of {@link Operator}. */
export type OperatorOptions = { readonly kubeConfig: KubeConfig; readonly leaderElection?: OperatorLeaderElectionOptions } & KubeClientOptions;

/** Options of {@link Operator.run}. */
export interface OperatorRunOptions {
  /** Signals that start a graceful shutdown; a second one exits at once with code 1. Defaults to SIGTERM and SIGINT. */
  readonly signals?: readonly NodeJS.Signals[];
  /**
   * How long in-flight reconciles may take to finish after the signal before they are abandoned
   * (JOSDK `reconciliationTerminationTimeout`, controller-runtime `GracefulShutdownTimeout`).
   * Defaults to 30000.
   */
  readonly gracefulShutdownTimeoutMs?: number;
  /** Exit the process with code 0 once shut down. Defaults to true. */
  readonly exit?: boolean;
  /** Called once `start()` resolved (caches synced), e.g. to log readiness. Defaults to none. */
  readonly onStarted?: () => void;
}

/** How long a replica that lost its lease waits for its aborted reconciles before exiting. */
const LOST_LEASE_DRAIN_MS = 5_000;

/**
 * The process-level entry point: one KubeConfig, one registry of shared informers, any number
 * of controllers, and optionally leader election among replicas.
 *
 * @example
 * ```ts
 * const operator = new Operator({ kubeConfig, leaderElection: { leaseName: 'job-operator', leaseNamespace: 'ops' } });
 * operator.register(new JobReconciler(), { kind: JobKind, namespaces: ['team-a'] });
 * await operator.run(); // until SIGTERM: drains, releases the lease, exits 0
 * ```
 */
export class Operator {
  readonly client: KubeClient;
  /** The replica's candidate in the leader election; undefined without the `leaderElection` option. */
  readonly leaderElector: LeaderElector | undefined;
  readonly #controllers: Controller<KubernetesObject>[] = [];
  readonly #onLost: OperatorLeaderElectionOptions['onLost'];
  #started = false;
  #stopping = false;

  constructor(options: OperatorOptions) {
    const election = options.leaderElection;
    this.#onLost = election?.onLost ?? 'exit';
    if (election !== undefined) {
      for (const field of ['leaseName', 'leaseNamespace'] as const) {
        if (typeof election[field] !== 'string' || election[field] === '') {
          throw new LeaderElectionConfigError(field, election[field], 'give the name of the Lease shared by all replicas (and its namespace)');
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
    this.client = new KubeClient(options.kubeConfig, { ...options, ...(fence ? { fence } : {}) });
  }

  /** The registered controllers. */
  get controllers(): readonly Controller<KubernetesObject>[] {
    return this.#controllers;
  }

  /** Whether this replica reconciles now: always without leader election, else while it holds the lease. */
  get isLeader(): boolean {
    return this.leaderElector?.isLeader ?? true;
  }

  /** Registers a reconciler for a primary kind. Register before `start()`. */
  register<P extends KubernetesObject>(reconciler: Reconciler<P, KubeClient>, options: ControllerOptions<P>): Controller<P> {
    if (this.#started) throw new Error('register controllers before Operator.start()');
    const controller = new Controller<P>(reconciler, this.leaderElector ? { optimisticLocking: true, ...options } : options, this.client);
    if (this.#controllers.some((c) => c.name === controller.name)) {
      throw new Error(`a controller named ${JSON.stringify(controller.name)} is registered already`);
    }
    // Warm standby: caches start and sync, reconciles wait for the lease.
    if (this.leaderElector) controller.pauseDispatch();
    this.#controllers.push(controller as unknown as Controller<KubernetesObject>);
    return controller;
  }

  /**
   * Starts every controller; resolves when all caches have synced. Without leader election,
   * reconciling has begun; with it, the replica has made its first attempt on the lease and
   * reconciles only while it holds it.
   */
  async start(): Promise<void> {
    this.#started = true;
    const elector = this.leaderElector;
    if (elector === undefined) {
      await Promise.all(this.#controllers.map((c) => c.start()));
      return;
    }
    let leading = false;
    elector.status$.subscribe((status) => {
      if (status.role === 'leader') {
        leading = true;
        if (!this.#stopping) for (const c of this.#controllers) c.resumeDispatch();
        return;
      }
      // Synchronous with the elector's decision: nothing is dispatched after it.
      const abort = leading ? new NotLeaderError(elector.identity, elector.lease) : undefined;
      for (const c of this.#controllers) c.pauseDispatch(abort);
      if (leading && !this.#stopping) this.#lost(status);
      leading = false;
    });
    // Settled, not raced: a failed lease must not leave caches starting behind a later stop().
    const results = await Promise.allSettled([elector.start(), ...this.#controllers.map((c) => c.start())]);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }

  /**
   * Stops taking new work, drains in-flight reconciles (abandoning them after `drainTimeoutMs`),
   * releases the lease, and stops every shared informer.
   */
  async stop(options: { drainTimeoutMs?: number } = {}): Promise<void> {
    this.#stopping = true;
    for (const c of this.#controllers) c.pauseDispatch();
    await Promise.all(this.#controllers.map((c) => c.stop(options)));
    // Only now: the next leader must not start while our reconciles still run.
    await this.leaderElector?.stop();
    await this.client.registry.stopAll();
  }

  /**
   * Runs the operator as a process: starts, waits for SIGTERM (or SIGINT), then stops taking
   * work, lets in-flight reconciles finish within `gracefulShutdownTimeoutMs`, releases the
   * lease and exits 0. A second signal exits at once with code 1. When `start()` fails (e.g.
   * `LeaderElectionStartError`), stops what did start and rejects with the error.
   */
  async run(options: OperatorRunOptions = {}): Promise<void> {
    const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
    let received: (signal: NodeJS.Signals) => void = () => {};
    const signalled = new Promise<NodeJS.Signals>((resolve) => (received = resolve));
    let count = 0;
    const onSignal = (signal: NodeJS.Signals): void => {
      if (++count > 1) process.exit(1);
      received(signal);
    };
    for (const s of signals) process.on(s, onSignal);
    try {
      try {
        await this.start();
      } catch (error) {
        // Leave nothing running (informers, timers) that would keep a failed process alive.
        await this.stop({ drainTimeoutMs: 0 }).catch(() => {});
        throw error;
      }
      options.onStarted?.();
      await signalled;
      await this.stop({ drainTimeoutMs: options.gracefulShutdownTimeoutMs ?? 30_000 });
    } finally {
      for (const s of signals) process.off(s, onSignal);
    }
    if (options.exit ?? true) process.exit(0);
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
