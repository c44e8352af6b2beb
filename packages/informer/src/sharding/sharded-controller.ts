import type { KubernetesObject, ShardSelector } from '@kindex/core';

/**
 * A controller as operator sharding drives it: what `OperatorSharding` reads and calls, declared
 * here so sharding/ depends on this port and not on the concrete `Controller`. The Operator (the
 * composition root) hands one per sharded controller.
 *
 * Contract: `changeShardSelector` resolves once the new ranges have synced; `abortReconciles`
 * aborts the signals of the running reconciles of the primaries `belongs` accepts and returns
 * their keys (what they return is not written); `whenIdle` resolves once none of them runs.
 */
export interface ShardedController {
  /** The primary as the next reconcile would see it, if cached. */
  getPrimary(key: string): KubernetesObject | undefined;
  /** Queues a reconcile of `key` (a primary held back while a shard map change settled). */
  enqueue(key: string): void;
  /** Narrows the controller's caches to `selector`'s shards; resolves once they have synced. */
  changeShardSelector(selector: ShardSelector | undefined): Promise<void>;
  /** Aborts the running reconciles of primaries matching `belongs` (a lost shard); returns their keys. */
  abortReconciles(belongs: (primary: KubernetesObject) => boolean, reason: unknown): readonly string[];
  /** Resolves once no reconcile of a primary matching `belongs` runs. */
  whenIdle(belongs: (primary: KubernetesObject) => boolean): Promise<void>;
}
