import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';

/**
 * How many objects a bounded cache keeps in memory (JOSDK's bounded item store): at most
 * `maxObjects`, the least recently used leaving first, and/or only those used within
 * `expireAfterAccessMs`. Give at least one of the two.
 *
 * The watch still sees every object and every event still reaches the handlers; what leaves
 * memory is the object's body. For each object the cache keeps a few fields
 * (resourceVersion, uid, generation, finalizers: about 80 bytes with the name, against 1.5 kB for a
 * 1.4 kB ConfigMap), enough to diff a relist without spurious events and to hand handlers a
 * minimal old object. A reconcile of a primary that left memory reads it from the API server
 * once (one GET), and the cache keeps it again.
 *
 * Choose it when an operator watches far more primaries than it reconciles at a time (memory
 * against API reads). Caveats: reads of the cache (`get`, `list`, snapshots, a reconciler's
 * `getPrimaryCache()`) see only the objects in memory; a bounded cache holds no index; and the
 * initial list (or a relist after 410) still holds every object until it is complete, so the
 * peak during a sync is the unbounded one: the bound keeps the steady state flat.
 *
 * @example
 * ```ts
 * import { Kinds, type CacheBound } from '@kindex/informer';
 *
 * // Keep the 1,000 primaries used last, none idle for more than 10 minutes.
 * const cacheBound: CacheBound = { maxObjects: 1_000, expireAfterAccessMs: 600_000 };
 * const options = { kind: Kinds.ConfigMap, cacheBound };
 * ```
 * @see {@link BoundedStore}
 */
export interface CacheBound {
  /** The most objects kept in memory; the least recently used leaves first. A positive integer. Defaults to no count limit. */
  readonly maxObjects?: number;
  /**
   * Objects not read nor changed for this long leave memory (Caffeine's expireAfterAccess). A
   * positive integer of milliseconds. Defaults to no time limit.
   */
  readonly expireAfterAccessMs?: number;
}

/** {@link CacheBound}'s keys; {@link checkCacheBound} checks the values. */
export const CACHE_BOUND_OPTIONS = defineOptions<CacheBound>('cacheBound', {
  maxObjects: Type.Optional(Type.Unknown()),
  expireAfterAccessMs: Type.Optional(Type.Unknown()),
});

/** {@link CacheBound}'s keys, for the options objects that include a bound. */
export const CACHE_BOUND_KEYS = CACHE_BOUND_OPTIONS.keys;

/**
 * Checks a bound and gives it one frozen form; throws one line naming the owner, the field and
 * the fix.
 */
export function checkCacheBound(owner: string, bound: unknown): CacheBound {
  const where = `${owner}: cacheBound`;
  if (bound === null || typeof bound !== 'object' || Array.isArray(bound)) {
    throw new TypeError(
      `${where} must be an object such as { maxObjects: 1000 }, got ${JSON.stringify(bound)}; leave it out to keep every object`,
    );
  }
  for (const key of Object.keys(bound)) {
    if (!(key in CACHE_BOUND_KEYS)) {
      throw new TypeError(`${where}.${key} is not an option; use maxObjects and/or expireAfterAccessMs`);
    }
  }
  const { maxObjects, expireAfterAccessMs } = bound as CacheBound;
  if (maxObjects === undefined && expireAfterAccessMs === undefined) {
    throw new TypeError(`${where} bounds nothing; set maxObjects (e.g. 1000) and/or expireAfterAccessMs, or leave cacheBound out`);
  }
  if (maxObjects !== undefined && !(Number.isSafeInteger(maxObjects) && maxObjects > 0)) {
    throw new TypeError(
      `${where}.maxObjects must be a positive integer (the most objects kept in memory), got ${JSON.stringify(maxObjects)}; set 1 or more, or leave it out`,
    );
  }
  if (expireAfterAccessMs !== undefined && !(Number.isSafeInteger(expireAfterAccessMs) && expireAfterAccessMs > 0)) {
    throw new TypeError(
      `${where}.expireAfterAccessMs must be a positive integer of milliseconds, got ${JSON.stringify(expireAfterAccessMs)}; set 1 or more, or leave it out`,
    );
  }
  return Object.freeze({
    ...(maxObjects !== undefined ? { maxObjects } : {}),
    ...(expireAfterAccessMs !== undefined ? { expireAfterAccessMs } : {}),
  });
}

/** A bounded cache with shards: a shard change diffs the caches' contents, which a bound keeps partial. */
export function boundedShardsError(owner: string): TypeError {
  return new TypeError(
    `${owner}: cacheBound and a shard selector exclude each other (a shard change compares whole caches); remove one of them`,
  );
}
