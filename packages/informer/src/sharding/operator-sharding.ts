import { LabelSelector, ResourceID, ShardSelector, type KubernetesObject, type ShardField, type ShardMap } from '@kindex/core';
import { fnv1a64Hex, defineOptions } from '@kindex/core/internal';
import Type from 'typebox';
import type { KubeClient } from '../client/kube-client.js';
import { defaultHolderIdentity } from '../lease/holder-identity.js';
import { LEASE_TIMING_OPTIONS, type LeaseTiming } from '../lease/lease-timing.js';
import { KubeShardLeaseStore } from './kube-shard-lease-store.js';
import { listNamespaceNames } from './namespace-population.js';
import { ShardCoordinator } from './shard-coordinator.js';
import type { ShardLoss, ShardOwnership } from './shard-ownership.js';
import { ShardLostError } from './shard-lost-error.js';
import { ShardingConfigError } from './sharding-config-error.js';
import type { ShardedController } from './sharded-controller.js';

/**
 * The `sharding` option of `Operator`: N replicas split the primaries of every sharded
 * controller (every controller, unless the operator also has `leaderElection`, where controllers
 * ask for it with `distribution: 'sharded'`, or one is registered with another `distribution`).
 *
 * Each replica owns some of `shards` shards of the hash of `field` (Leases decide which, see
 * {@link ShardCoordinator}), caches only those (server-side with the `ShardedListAndWatch`
 * gate, client-side without it) and reconciles only the primaries of shards it owns right now.
 * When replicas join or leave, shards move: caches change ranges at run time, and a shard is
 * handed over only after its reconciles drained. By namespace, the shards' hash ranges are cut
 * at quantiles of the namespaces present and recut when namespaces come and go (a namespace
 * that moves is reconciled by its new owner only after its old owner drained it); by uid they
 * stay equal slices, which random uids fill evenly.
 *
 * Fencing: every write a reconcile makes through its client (`context.getClient()`, dependents,
 * the primary's status, resource and finalizer) is refused with `ShardLostError`, unsent, once
 * its primary's shard is no longer this replica's by the local monotonic clock (its renew
 * deadline passed, or its lease moved), checked as each request is sent; writes to primaries
 * also carry the resourceVersion the reconcile read (optimistic locking).
 *
 * @example
 * ```ts
 * import { Operator, loadKubeConfig } from '@kindex/informer';
 * const kubeConfig = loadKubeConfig(); // --kubeconfig, KUBECONFIG, ~/.kube/config or the pod's service account
 *
 * // Every replica of the Deployment runs this: 8 namespace shards, spread over the live replicas.
 * const operator = new Operator({ kubeConfig, sharding: { group: 'job-operator', namespace: 'ops', shards: 8 } });
 * operator.shardCoordinator?.ownership$.subscribe(({ owned, liveReplicas }) => console.log(owned, liveReplicas));
 * ```
 */
export interface OperatorShardingOptions extends LeaseTiming {
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
  /**
   * With `field` `object.metadata.namespace`: a label selector of the namespaces the shards are
   * balanced over (those that hold primaries, say). Defaults to every namespace.
   */
  readonly namespaceLabelSelector?: string;
}

/**
 * {@link OperatorShardingOptions}' keys; their values are checked by {@link OperatorSharding} and
 * its {@link ShardCoordinator} (a {@link ShardingConfigError} naming the field), which know how
 * they bound each other.
 */
export const OPERATOR_SHARDING_OPTIONS = defineOptions<OperatorShardingOptions>('Operator options.sharding', {
  group: Type.Unknown(),
  namespace: Type.Unknown(),
  shards: Type.Unknown(),
  field: Type.Optional(Type.Unknown()),
  identity: Type.Optional(Type.Unknown()),
  ...LEASE_TIMING_OPTIONS.properties,
  namespaceLabelSelector: Type.Optional(Type.Unknown()),
});

/** @internal Wires a {@link ShardCoordinator} to an operator's controllers. */
export class OperatorSharding {
  readonly coordinator: ShardCoordinator;
  readonly field: ShardField;
  readonly #controllers: () => readonly ShardedController[];
  #applied: Promise<void> = Promise.resolve();
  /** Primaries of owned shards refused while a map change settled: reconciled once it has. */
  readonly #heldBack = new Set<string>();

  constructor(options: OperatorShardingOptions, client: KubeClient, controllers: () => readonly ShardedController[]) {
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
    const { group, namespace, shards, field: _field, identity, namespaceLabelSelector, ...timing } = options;
    if (namespaceLabelSelector !== undefined) {
      // Checked here: a bad selector would otherwise fail the namespace list every round, quietly.
      const bad = (why: string): never => {
        throw new ShardingConfigError(
          'namespaceLabelSelector',
          namespaceLabelSelector,
          `${why}; give a label selector, for example 'team' or 'tier in (prod)'`,
        );
      };
      if (typeof namespaceLabelSelector !== 'string') bad('not a string');
      try {
        LabelSelector.parse(namespaceLabelSelector);
      } catch (error) {
        bad(error instanceof Error ? error.message : String(error));
      }
      if (this.field !== 'object.metadata.namespace') bad(`it applies only with field 'object.metadata.namespace', not '${this.field}'`);
    }
    this.coordinator = new ShardCoordinator({
      group,
      shards,
      identity: identity ?? defaultHolderIdentity(),
      store: new KubeShardLeaseStore(client, { name: group, namespace }),
      ...timing,
      field: this.field,
      // Namespace names cluster in the hash space; uids are random, so equal slices fit them.
      ...(this.field === 'object.metadata.namespace' ? { population: () => listNamespaceNames(client, namespaceLabelSelector) } : {}),
      onRelease: (shard) => this.#drain((p) => this.coordinator.belongsTo(fnv1a64Hex(this.#valueOf(p)), shard)),
      onMapChange: (previous, next) => this.#drain((p) => previous.shardOf(p) !== next.shardOf(p)),
    });
  }

  /** The selector of the shards owned under `map` (one that matches next to nothing while none is owned). */
  selectorFor(owned: readonly number[], map: ShardMap = this.coordinator.map): ShardSelector {
    if (owned.length > 0) return map.selectorFor(owned);
    // A selector cannot be empty: the one hash value 0 stands for "none" (2^-64 of the space).
    return ShardSelector.of(this.field, [{ start: '0x0000000000000000', end: '0x0000000000000001' }]);
  }

  /**
   * Whether this replica may reconcile `primary` right now ({@link ShardCoordinator.ownsHash}).
   * A primary of an owned shard refused only because a map change has not settled is
   * remembered, and reconciled by {@link apply} once it has.
   */
  owns(primary: KubernetesObject): boolean {
    const hash = fnv1a64Hex(this.#valueOf(primary));
    if (this.coordinator.ownsHash(hash)) return true;
    if (this.coordinator.owns(this.coordinator.map.shardOfHash(hash))) this.#heldBack.add(ResourceID.keyOfResource(primary));
    return false;
  }

  /**
   * Throws a {@link ShardLostError} when this replica may not write on behalf of `primary` now
   * (see {@link ShardCoordinator.writeRefusalOfHash}): the fence of every write a reconcile of it makes.
   */
  fence(primary: KubernetesObject): void {
    const loss = this.coordinator.writeRefusalOfHash(fnv1a64Hex(this.#valueOf(primary)));
    if (loss !== undefined) throw new ShardLostError(this.coordinator.group, this.coordinator.identity, loss);
  }

  /** Applies an ownership to every controller's caches, one change after the other; then reconciles what was held back. */
  apply(ownership: ShardOwnership): Promise<void> {
    const selector = this.selectorFor(ownership.owned, ownership.map);
    const run = this.#applied.then(async () => {
      await Promise.all(this.#controllers().map((c) => c.changeShardSelector(selector)));
      this.#release();
    });
    this.#applied = run.catch(() => undefined);
    return run;
  }

  /** Enqueues the held-back primaries that may be reconciled now; forgets those of shards owned elsewhere. */
  #release(): void {
    for (const key of [...this.#heldBack]) {
      const cached = this.#controllers().flatMap((c) => {
        const primary = c.getPrimary(key);
        return primary === undefined ? [] : [{ c, primary }];
      });
      const shardOwned = cached.some(({ primary }) => this.coordinator.owns(this.coordinator.map.shardOf(primary)));
      const ready = cached.filter(({ primary }) => this.coordinator.ownsHash(fnv1a64Hex(this.#valueOf(primary))));
      for (const { c } of ready) c.enqueue(key);
      if (ready.length > 0 || !shardOwned) this.#heldBack.delete(key);
    }
  }

  #valueOf(primary: KubernetesObject): string {
    return (this.field === 'object.metadata.uid' ? primary.metadata?.uid : primary.metadata?.namespace) ?? '';
  }

  /**
   * Aborts the running reconciles of a shard lost without a handover (new ones are already
   * refused by {@link owns}); returns the error they were aborted with and their keys.
   */
  abortLost(loss: ShardLoss): { readonly error: ShardLostError; readonly aborted: readonly string[] } {
    const error = new ShardLostError(this.coordinator.group, this.coordinator.identity, loss);
    const aborted = this.#controllers().flatMap((c) =>
      c.abortReconciles((p) => this.coordinator.belongsTo(fnv1a64Hex(this.#valueOf(p)), loss.shard), error),
    );
    return { error, aborted };
  }

  /** Resolves once no controller runs a reconcile of a primary matching `belongs`. */
  async #drain(belongs: (primary: KubernetesObject) => boolean): Promise<void> {
    await Promise.all(this.#controllers().map((c) => c.whenIdle(belongs)));
  }
}
