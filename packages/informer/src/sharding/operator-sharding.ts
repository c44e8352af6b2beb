import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { ShardSelector, shardIndexOf, type KubernetesObject, type ShardField, type OptionKeysOf } from '@kindex/core';
import type { KubeClient } from '../client/kube-client.js';
import type { Controller } from '../controller/controller.js';
import { KubeShardLeaseStore } from './kube-shard-lease-store.js';
import { ShardCoordinator, type ShardLoss, type ShardOwnership } from './shard-coordinator.js';
import { ShardLostError } from './shard-lost-error.js';
import { ShardingConfigError } from './sharding-config-error.js';

/**
 * The `sharding` option of `Operator`: N replicas split the primaries of every sharded
 * controller (every controller, unless the operator also has `leaderElection`, where controllers
 * ask for it with `distribution: 'sharded'`, or one is registered with another `distribution`).
 *
 * Each replica owns some of `shards` equal slices of the hash of `field` (Leases decide which,
 * see {@link ShardCoordinator}), caches only those (server-side with the `ShardedListAndWatch`
 * gate, client-side without it) and reconciles only the primaries of shards it owns right now.
 * When replicas join or leave, shards move: caches change ranges at run time, and a shard is
 * handed over only after its reconciles drained.
 *
 * Fencing: every write a reconcile makes through its client (`context.getClient()`, dependents,
 * the primary's status, resource and finalizer) is refused with `ShardLostError`, unsent, once
 * its primary's shard is no longer this replica's by the local monotonic clock (its renew
 * deadline passed, or its lease moved), checked as each request is sent; writes to primaries
 * also carry the resourceVersion the reconcile read (optimistic locking).
 *
 * @example
 * ```ts
 * import { KubeConfig } from '@kubernetes/client-node';
 * import { Operator } from '@kindex/informer';
 * const kubeConfig = new KubeConfig();
 * kubeConfig.loadFromDefault();
 *
 * // Every replica of the Deployment runs this: 8 namespace shards, spread over the live replicas.
 * const operator = new Operator({ kubeConfig, sharding: { group: 'job-operator', namespace: 'ops', shards: 8 } });
 * operator.shardCoordinator?.ownership$.subscribe(({ owned, liveReplicas }) => console.log(owned, liveReplicas));
 * ```
 */
export interface OperatorShardingOptions {
  /** Prefix of the Leases (`<group>-shard-<i>`, `<group>-member-<hash>`), shared by all replicas. */
  readonly group: string;
  /** Namespace of the Leases, usually the operator's own. */
  readonly namespace: string;
  /** How many shards; fixed for the group (more shards than replicas lets load spread when scaling). */
  readonly shards: number;
  /**
   * What is hashed: `object.metadata.namespace` keeps a primary and its secondaries in one
   * replica's caches; `object.metadata.uid` spreads better but event sources then cache every
   * secondary. Defaults to `object.metadata.namespace`.
   */
  readonly field?: ShardField;
  /** This replica's name on the Leases. Defaults to `$POD_NAME` (or the hostname) plus a random suffix. */
  readonly identity?: string;
  /** Defaults to 15000. */
  readonly leaseDurationMs?: number;
  /** Defaults to 10000. */
  readonly renewDeadlineMs?: number;
  /** Defaults to 2000. */
  readonly retryPeriodMs?: number;
}

/** The keys of {@link OperatorShardingOptions}: unknown ones are rejected, not ignored. */
export const OPERATOR_SHARDING_OPTION_KEYS = {
  group: true,
  namespace: true,
  shards: true,
  field: true,
  identity: true,
  leaseDurationMs: true,
  renewDeadlineMs: true,
  retryPeriodMs: true,
} as const satisfies OptionKeysOf<OperatorShardingOptions>;

/** @internal Wires a {@link ShardCoordinator} to an operator's controllers. */
export class OperatorSharding {
  readonly coordinator: ShardCoordinator;
  readonly field: ShardField;
  readonly #controllers: () => readonly Controller<KubernetesObject>[];
  #applied: Promise<void> = Promise.resolve();

  constructor(options: OperatorShardingOptions, client: KubeClient, controllers: () => readonly Controller<KubernetesObject>[]) {
    for (const field of ['group', 'namespace'] as const) {
      if (typeof options[field] !== 'string' || options[field] === '') {
        throw new ShardingConfigError(field, options[field], 'give the name shared by all replicas (and the namespace of its Leases)');
      }
    }
    this.field = options.field ?? 'object.metadata.namespace';
    if (this.field !== 'object.metadata.namespace' && this.field !== 'object.metadata.uid') {
      throw new ShardingConfigError('field', this.field, "use 'object.metadata.namespace' or 'object.metadata.uid'");
    }
    this.#controllers = controllers;
    const { group, namespace, shards, field: _field, identity, ...timing } = options;
    this.coordinator = new ShardCoordinator({
      group,
      shards,
      identity: identity ?? `${process.env['POD_NAME'] || hostname()}_${randomUUID().slice(0, 8)}`,
      store: new KubeShardLeaseStore(client, { name: group, namespace }),
      ...timing,
      onRelease: (shard) => this.#drain(shard),
    });
  }

  /** The selector of the shards owned (one that matches next to nothing while none is owned). */
  selectorFor(owned: readonly number[]): ShardSelector {
    if (owned.length > 0) return ShardSelector.forShards(this.field, owned, this.coordinator.shards);
    // A selector cannot be empty: the one hash value 0 stands for "none" (2^-64 of the space).
    return ShardSelector.of(this.field, [{ start: '0x0000000000000000', end: '0x0000000000000001' }]);
  }

  /** Whether this replica owns the shard of `primary` right now. */
  owns(primary: KubernetesObject): boolean {
    return this.coordinator.owns(shardIndexOf(this.field, primary, this.coordinator.shards));
  }

  /**
   * Throws a {@link ShardLostError} when this replica may not write on behalf of `primary` now
   * (see {@link ShardCoordinator.writeRefusal}): the fence of every write a reconcile of it makes.
   */
  fence(primary: KubernetesObject): void {
    const loss = this.coordinator.writeRefusal(shardIndexOf(this.field, primary, this.coordinator.shards));
    if (loss !== undefined) throw new ShardLostError(this.coordinator.group, this.coordinator.identity, loss);
  }

  /** Applies an ownership to every controller's caches, one change after the other. */
  apply(ownership: ShardOwnership): Promise<void> {
    const selector = this.selectorFor(ownership.owned);
    const run = this.#applied.then(() =>
      Promise.all(this.#controllers().map((c) => c.changeShardSelector(selector))).then(() => undefined),
    );
    this.#applied = run.catch(() => undefined);
    return run;
  }

  /**
   * Aborts the running reconciles of a shard lost without a handover (new ones are already
   * refused by {@link owns}); returns the error they were aborted with and their keys.
   */
  abortLost(loss: ShardLoss): { readonly error: ShardLostError; readonly aborted: readonly string[] } {
    const error = new ShardLostError(this.coordinator.group, this.coordinator.identity, loss);
    const total = this.coordinator.shards;
    const aborted = this.#controllers().flatMap((c) => c.abortReconciles((p) => shardIndexOf(this.field, p, total) === loss.shard, error));
    return { error, aborted };
  }

  async #drain(shard: number): Promise<void> {
    const total = this.coordinator.shards;
    await Promise.all(this.#controllers().map((c) => c.whenIdle((p) => shardIndexOf(this.field, p, total) === shard)));
  }
}
