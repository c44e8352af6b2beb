import {
  ResourceID,
  type KubernetesObject,
  type PrimaryToSecondaryIndex,
  type PrimaryToSecondaryMapper,
  type ReverseIndexSnapshot,
  type SecondaryResourceReader,
} from '@kindex/core';
import type { CacheSnapshot } from '../cache/cache-snapshot.js';

/** One consistent view of an event source's cache and reverse index. */
export class InformerSourceSnapshot<R extends KubernetesObject, P extends KubernetesObject> implements SecondaryResourceReader<R, P> {
  constructor(
    readonly cache: CacheSnapshot<R>,
    readonly index: ReverseIndexSnapshot | undefined,
    readonly toSecondaryIds: PrimaryToSecondaryMapper<P> | undefined,
    /** The live index `index` was taken from. */
    readonly liveIndex?: PrimaryToSecondaryIndex<R>,
  ) {}

  getSecondaryResources(primary: P): readonly R[] {
    const index = this.index;
    // Nothing written since the snapshot (the usual reconcile): the live index holds this
    // snapshot's objects, with no key to build and resolve per secondary.
    if (index !== undefined && this.liveIndex !== undefined && !index.hasChanged && !this.cache.hasChanged) {
      return this.liveIndex.secondariesOf(ResourceID.keyOfResource(primary));
    }
    return secondariesOf(primary, this.toSecondaryIds, index, (key) => this.cache.peek(key));
  }

  release(): void {
    this.cache.release();
    this.index?.release();
  }
}

/**
 * The secondaries of a primary: the keys from the primary-to-secondary mapper when there is one,
 * else from the reverse index, each resolved by `lookup`; keys missing from the cache are skipped.
 * One piece of code for the live read and the snapshot read.
 */
export function secondariesOf<R extends KubernetesObject, P extends KubernetesObject>(
  primary: P,
  toSecondaryIds: PrimaryToSecondaryMapper<P> | undefined,
  index: { forEachSecondaryKey(primaryKey: string, fn: (key: string) => void): void } | undefined,
  lookup: (key: string) => R | undefined,
): R[] {
  const out: R[] = [];
  const add = (key: string): void => {
    const found = lookup(key);
    if (found !== undefined) out.push(found);
  };
  if (toSecondaryIds !== undefined) {
    for (const id of toSecondaryIds(primary)) add(id.key);
  } else if (index !== undefined) {
    index.forEachSecondaryKey(ResourceID.keyOfResource(primary), add);
  }
  return out;
}
