import { Map as IMap, Set as ISet } from 'immutable';

/**
 * The keys under one indexed value: a bare string while there is exactly one, a set beyond.
 *
 * Most index values (a cluster name, an owner) hold one object; a bare string saves the ~200
 * bytes an immutable Set of one costs, which matters at 100k cached objects.
 */
export type Bucket = string | ISet<string>;

/** A persistent string-to-strings multimap; also usable on a map made mutable by `asMutable`. */
export type StringMultimap = IMap<string, Bucket>;

const EMPTY_SET: ReadonlySet<string> = ISet<string>();

/** Adds `member` under `key`; returns the map to keep (the same one when it is mutable). */
export function multimapAdd(map: StringMultimap, key: string, member: string): StringMultimap {
  const bucket = map.get(key);
  if (bucket === undefined) return map.set(key, member);
  if (typeof bucket === 'string') {
    return bucket === member ? map : map.set(key, ISet([bucket, member]));
  }
  const next = bucket.add(member);
  return next === bucket ? map : map.set(key, next);
}

/** Removes `member` from `key`, dropping the key when nothing is left under it; tolerates absence. */
export function multimapRemove(map: StringMultimap, key: string, member: string): StringMultimap {
  const bucket = map.get(key);
  if (bucket === undefined) return map;
  if (typeof bucket === 'string') return bucket === member ? map.delete(key) : map;
  if (!bucket.has(member)) return map;
  const next = bucket.delete(member);
  // Back to a bare string at one member, so memory does not depend on history.
  return map.set(key, next.size === 1 ? (next.first() as string) : next);
}

/** The members of a bucket as a set (O(1): a set of one is allocated for a bare string). */
export function bucketSet(bucket: Bucket | undefined): ReadonlySet<string> {
  if (bucket === undefined) return EMPTY_SET;
  return typeof bucket === 'string' ? ISet([bucket]) : bucket;
}

/** The members of a bucket as a fresh array. */
export function bucketArray(bucket: Bucket | undefined): string[] {
  if (bucket === undefined) return [];
  return typeof bucket === 'string' ? [bucket] : bucket.toArray();
}

/** The bucket holding exactly the given members (deduplicated), or undefined when none. */
export function bucketOf(members: readonly string[]): Bucket | undefined {
  if (members.length === 0) return undefined;
  if (members.length === 1) return members[0];
  const set = ISet(members);
  return set.size === 1 ? (set.first() as string) : set;
}
