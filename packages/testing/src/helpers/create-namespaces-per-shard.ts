import type { KubeConfig } from '@kubernetes/client-node';
import { ShardMap } from '@kindex/core';
import { createNamespace } from './create-namespace.js';
import { uniqueName } from './unique-name.js';

/**
 * Creates fresh namespaces, `perShard` in each of `shards` namespace shards, and returns their
 * names in creation order. Sequential names hash unevenly (the hash's top bits barely depend on
 * the last characters), so a sharding test that needs work on every shard picks names by shard
 * instead of hoping.
 *
 * Shards are equal slices of the hash space unless `map` is given. A sharded Operator follows the
 * map its group published (cut at the quantiles of the namespaces present, so it depends on every
 * namespace of the cluster): pass that map (`operator.shardCoordinator.map`, or the one a replica
 * reports) once it is published, so each shard gets its namespaces under the map in force. Adding
 * the same number of namespaces to every shard keeps the map balanced: the group does not recut it.
 *
 * @example
 * ```ts
 * import { useTestApiServer } from '@kindex/testing';
 * import { createNamespacesPerShard } from '@kindex/testing/internal';
 *
 * describe('sharded controller', () => {
 *   const server = useTestApiServer();
 *   it('reconciles on every replica', async () => {
 *     // 4 shards, 2 namespaces in each: every replica gets primaries, whatever it owns.
 *     const namespaces = await createNamespacesPerShard(server().kubeConfig, { shards: 4, perShard: 2 });
 *     console.log(namespaces.length); // 8
 *   });
 * });
 * ```
 */
export async function createNamespacesPerShard(
  kubeConfig: KubeConfig,
  options: { readonly shards: number; readonly perShard: number; readonly map?: ShardMap },
): Promise<string[]> {
  const { shards, perShard } = options;
  if (!Number.isInteger(shards) || shards < 1 || !Number.isInteger(perShard) || perShard < 1) {
    throw new RangeError(`createNamespacesPerShard: shards (${shards}) and perShard (${perShard}) must be positive integers`);
  }
  const map = options.map ?? ShardMap.equal('object.metadata.namespace', shards);
  if (map.field !== 'object.metadata.namespace' || map.shards !== shards) {
    throw new RangeError(
      `createNamespacesPerShard: map (epoch ${map.epoch}) cuts ${map.field} into ${map.shards} shards; pass a map by object.metadata.namespace of ${shards} shards, or shards: ${map.shards}`,
    );
  }
  const count = new Array<number>(shards).fill(0);
  const created: string[] = [];
  const prefix = uniqueName('sh');
  for (let i = 0; created.length < shards * perShard; i++) {
    const name = `${prefix}-${i}`;
    const shard = map.shardOfValue(name);
    if (count[shard]! >= perShard) continue;
    count[shard]!++;
    created.push(await createNamespace(kubeConfig, name));
  }
  return created;
}
