import { ResourceID, type KubernetesObject, type StoreDelta, type StoreReader } from '@kindex/core';
import type { CacheDeltaOrigin } from './cache-delta.js';

/**
 * What a cache reports when the informer of a namespace is swapped for one of other shard ranges:
 * objects only the old informer held leave as `shard-removed` deletes, objects only the new one
 * holds arrive as `attach` creates, changed versions as `attach` updates; objects in both, at the
 * same version, produce nothing. Run once per swap, not per event.
 */
export function* shardSwapDeltas<R extends KubernetesObject>(
  before: StoreReader<R>,
  after: StoreReader<R>,
): Generator<readonly [StoreDelta<R>, CacheDeltaOrigin]> {
  for (const object of before.list()) {
    if (after.get(ResourceID.keyOfResource(object)) === undefined) {
      yield [{ type: 'delete', object, deleteStateUnknown: true }, 'shard-removed'];
    }
  }
  for (const object of after.list()) {
    const previous = before.get(ResourceID.keyOfResource(object));
    if (previous === undefined) yield [{ type: 'create', object }, 'attach'];
    else if (previous.metadata?.resourceVersion !== object.metadata?.resourceVersion) {
      yield [{ type: 'update', object, oldObject: previous }, 'attach'];
    }
  }
}
