/**
 * How the shard map travels on Leases, so every replica of a group agrees on it.
 *
 * The map is an annotation of the Lease `<group>-map`, written by one replica (the owner of shard
 * 0) with the resourceVersion it read, so two writers never both win; it carries the map before it
 * too, which tells which values did not move. Each shard Lease says, in its own annotation, the
 * epoch of the map its holder has switched to and drained for (its "ack"): a value that moved is
 * reconciled by its new owner only once every shard holder acked the new epoch.
 *
 * @module
 */
import { ShardMap } from '@kindex/core';
import type { Lease } from '../lease/lease.js';

/**
 * The annotation of the `<group>-map` Lease that holds the current shard map ({@link ShardMap.serialize}).
 *
 * @example
 * ```ts
 * import { SHARD_MAP_ANNOTATION } from '@kindex/informer/internal';
 *
 * // kubectl get lease jobs-map -n ops -o jsonpath='{.metadata.annotations.sharding\.kindex\.dev/map}'
 * const key = SHARD_MAP_ANNOTATION;
 * ```
 */
export const SHARD_MAP_ANNOTATION = 'sharding.kindex.dev/map';
/**
 * The annotation of the `<group>-map` Lease that holds the map before the current one: the
 * values whose shard is the same in both are reconciled throughout a map change.
 *
 * @example
 * ```ts
 * import { PREVIOUS_SHARD_MAP_ANNOTATION, SHARD_MAP_ANNOTATION } from '@kindex/informer/internal';
 *
 * // Both maps travel on one Lease, written at once.
 * const keys = [SHARD_MAP_ANNOTATION, PREVIOUS_SHARD_MAP_ANNOTATION];
 * ```
 */
export const PREVIOUS_SHARD_MAP_ANNOTATION = 'sharding.kindex.dev/previous-map';
/**
 * The annotation of a shard Lease naming the map epoch its holder reconciles by.
 *
 * @example
 * ```ts
 * import { SHARD_EPOCH_ANNOTATION } from '@kindex/informer/internal';
 *
 * // kubectl get lease jobs-shard-0 -n ops -o jsonpath='{.metadata.annotations.sharding\.kindex\.dev/epoch}'
 * const key = SHARD_EPOCH_ANNOTATION;
 * ```
 */
export const SHARD_EPOCH_ANNOTATION = 'sharding.kindex.dev/epoch';

/** @internal The map and the one before it, as published; undefined when no map was published yet. */
export function readShardMap(lease: Lease | undefined): { readonly map: ShardMap; readonly previous: ShardMap | undefined } | undefined {
  const annotations = lease?.metadata?.annotations;
  const text = annotations?.[SHARD_MAP_ANNOTATION];
  if (text === undefined) return undefined;
  const previous = annotations?.[PREVIOUS_SHARD_MAP_ANNOTATION];
  return { map: ShardMap.parse(text), previous: previous === undefined ? undefined : ShardMap.parse(previous) };
}

/** @internal The annotations that publish `map` after `previous`. */
export function shardMapAnnotations(map: ShardMap, previous: ShardMap): Record<string, string> {
  return { [SHARD_MAP_ANNOTATION]: map.serialize(), [PREVIOUS_SHARD_MAP_ANNOTATION]: previous.serialize() };
}

/** @internal The epoch a shard lease's holder acked; 0 when it says none (a holder that never saw a map). */
export function ackedEpoch(lease: Lease): number {
  const text = lease.metadata?.annotations?.[SHARD_EPOCH_ANNOTATION];
  const epoch = text === undefined ? 0 : Number(text);
  return Number.isSafeInteger(epoch) && epoch >= 0 ? epoch : 0;
}
