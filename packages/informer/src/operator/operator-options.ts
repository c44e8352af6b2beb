/**
 * The options of an `Operator` and of `Operator.run`, with their keys for the
 * unknown-option check.
 *
 * @module
 */
import type { KubeConfig } from '@kubernetes/client-node';
import { defineOptions, type OptionKeysOf } from '@kindex/core/internal';
import Type from 'typebox';
import { KUBE_CLIENT_OPTIONS, type KubeClientOptions } from '../client/kube-client-options.js';
import { OPERATOR_LEADER_ELECTION_OPTIONS, type OperatorLeaderElectionOptions } from '../leader-election/operator-leader-election.js';
import { OPERATOR_SHARDING_OPTIONS, type OperatorShardingOptions } from '../sharding/operator-sharding.js';
import { WEBHOOK_SERVER_OPTIONS, type WebhookServerOptions } from '../webhook/webhook-options.js';
import { OPERATOR_OBSERVABILITY_OPTION_KEYS, type OperatorObservabilityOptions } from './operator-observability.js';

/**
 * Options of {@link Operator}.
 *
 * @example
 * ```ts
 * import { Operator, type OperatorOptions } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * const options: OperatorOptions = {
 *   kubeConfig,
 *   fieldManager: 'web-operator',
 *   cacheSyncTimeoutMs: 60_000,
 *   leaderElection: { leaseName: 'web-operator', leaseNamespace: 'operators' },
 *   server: { port: 8080 },
 * };
 * const operator = new Operator(options);
 * ```
 */
export type OperatorOptions = {
  readonly kubeConfig: KubeConfig;
  /**
   * Elect one replica to run the leader-elected controllers (all of them unless a controller's
   * `distribution` says otherwise). Combines with `sharding`. Defaults to none.
   */
  readonly leaderElection?: OperatorLeaderElectionOptions;
  /**
   * Split the primaries among replicas, each owning shards on Leases. Combines with
   * `leaderElection`: each controller says which it follows (`distribution` of `register`).
   * Defaults to none (one replica reconciles all).
   */
  readonly sharding?: OperatorShardingOptions;
  /** How long `start()` waits for caches to sync before it rejects (JOSDK and controller-runtime: 2 min). Defaults to 120000. */
  readonly cacheSyncTimeoutMs?: number;
  /**
   * Serve admission and conversion webhooks over HTTPS on a port of their own, from `start()`
   * to `stop()`; register them on `Operator.webhooks`. Defaults to none.
   */
  readonly webhooks?: WebhookServerOptions;
} & KubeClientOptions &
  OperatorObservabilityOptions;

/** The keys of {@link OperatorOptions}, nested options objects' own included: unknown ones are rejected, not ignored. */
export const OPERATOR_OPTION_KEYS = {
  kubeConfig: true,
  leaderElection: OPERATOR_LEADER_ELECTION_OPTIONS.keys,
  sharding: OPERATOR_SHARDING_OPTIONS.keys,
  cacheSyncTimeoutMs: true,
  webhooks: WEBHOOK_SERVER_OPTIONS.keys,
  ...KUBE_CLIENT_OPTIONS.keys,
  ...OPERATOR_OBSERVABILITY_OPTION_KEYS,
} as const satisfies OptionKeysOf<OperatorOptions>;

/**
 * Options of {@link Operator.run}.
 *
 * @example
 * ```ts
 * import type { Operator, OperatorRunOptions } from '@kindex/informer';
 * declare const operator: Operator;
 *
 * // Until SIGTERM or SIGINT; then drain for up to 20 s and exit.
 * const options: OperatorRunOptions = { gracefulShutdownTimeoutMs: 20_000, onStarted: () => console.log('caches synced, reconciling') };
 * await operator.run(options);
 * ```
 */
export interface OperatorRunOptions {
  /**
   * Signals that stop the operator: gracefully once it runs, at once (exit code 1, one line on
   * stderr) while it is still starting; a second one exits at once with code 1. Defaults to
   * SIGTERM and SIGINT.
   */
  readonly signals?: readonly NodeJS.Signals[];
  /**
   * How long in-flight reconciles may take to finish after the signal before they are abandoned
   * (JOSDK `reconciliationTerminationTimeout`, controller-runtime `GracefulShutdownTimeout`).
   * Defaults to 30000.
   */
  readonly gracefulShutdownTimeoutMs?: number;
  /**
   * Exit the process once stopped: 0 after a graceful stop, 1 when a signal ended the start or
   * the start failed (its error's message and causes printed on stderr). With false, `run()`
   * resolves after a graceful stop and rejects with the error (`StartAbortedError` when a signal
   * ended the start); nothing of the operator then keeps the process alive. Defaults to true.
   */
  readonly exit?: boolean;
  /** Called once `start()` resolved (caches synced), e.g. to log readiness. Defaults to none. */
  readonly onStarted?: () => void;
}

/** {@link OperatorRunOptions}' keys and value checks. */
export const OPERATOR_RUN_OPTIONS = defineOptions<OperatorRunOptions>('Operator.run options', {
  signals: Type.Optional(Type.Array(Type.String(), { description: "an array of signal names such as ['SIGTERM']" })),
  gracefulShutdownTimeoutMs: Type.Optional(Type.Number({ minimum: 0, description: 'a number of milliseconds, 0 or more' })),
  exit: Type.Optional(Type.Boolean({ description: 'true or false' })),
  onStarted: Type.Optional(Type.Function([], Type.Unknown(), { description: 'a function called once the operator has started' })),
});
