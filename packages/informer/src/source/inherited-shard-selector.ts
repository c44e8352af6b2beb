import type { ShardSelector } from '@kindex/core';

/**
 * The part of a controller's shard selector its event sources share: namespace sharding only,
 * since a secondary's uid hashes independently of its primary's.
 */
export function inheritedShardSelector(selector: ShardSelector | undefined): ShardSelector | undefined {
  return selector?.field === 'object.metadata.namespace' ? selector : undefined;
}
