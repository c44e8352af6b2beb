import { Map as IMap } from 'immutable';
import { ChunkTable } from './chunk-table.js';

/**
 * The keys under one indexed value, in the cheapest shape for their number: a bare string for
 * one, a copy-on-write array up to {@link SMALL}, a {@link ChunkTable} beyond.
 *
 * Most index values (a cluster name, an owner) hold one object or a few; an immutable Set costs
 * ~170 bytes per member plus ~200 for the set itself, which matters at 100k cached objects.
 * Arrays are never changed once in a map (every change copies), so old snapshots stay intact.
 */
export type Bucket = string | readonly string[] | ChunkTable<string>;

/** A persistent string-to-strings multimap; also usable on a map made mutable by `asMutable`. */
export type StringMultimap = IMap<string, Bucket>;

/** Largest bucket kept as an array; copying and scanning 32 pointers costs less than a table. */
const SMALL = 32;

const identity = (key: string): string => key;

/** Adds `member` under `key`; returns the map to keep (the same one when it is mutable). */
export function multimapAdd(map: StringMultimap, key: string, member: string): StringMultimap {
  const bucket = map.get(key);
  if (bucket === undefined) return map.set(key, member);
  if (typeof bucket === 'string') return bucket === member ? map : map.set(key, [bucket, member]);
  if (isArray(bucket)) {
    if (bucket.includes(member)) return map;
    if (bucket.length < SMALL) return map.set(key, [...bucket, member]);
    let table = ChunkTable.empty<string>(identity).asMutable();
    for (const m of bucket) table = table.set(m, m);
    return map.set(key, table.set(member, member).asImmutable());
  }
  return bucket.has(member) ? map : map.set(key, bucket.set(member, member));
}

/** Removes `member` from `key`, dropping the key when nothing is left under it; tolerates absence. */
export function multimapRemove(map: StringMultimap, key: string, member: string): StringMultimap {
  const bucket = map.get(key);
  if (bucket === undefined) return map;
  if (typeof bucket === 'string') return bucket === member ? map.delete(key) : map;
  if (isArray(bucket)) {
    const at = bucket.indexOf(member);
    if (at < 0) return map;
    if (bucket.length === 2) return map.set(key, bucket[1 - at] as string);
    return map.set(
      key,
      bucket.filter((_, i) => i !== at),
    );
  }
  if (!bucket.has(member)) return map;
  const next = bucket.delete(member);
  // Back to an array at half the limit (not at the limit, so one member going back and forth
  // does not convert every time): memory then does not depend on history.
  return map.set(key, next.size <= SMALL / 2 ? [...next.values()] : next);
}

/** The members of a bucket as a read-only set view. O(1). */
export function bucketSet(bucket: Bucket | undefined): ReadonlySet<string> {
  return new BucketView(bucket);
}

/** The members of a bucket as a fresh array. */
export function bucketArray(bucket: Bucket | undefined): string[] {
  if (bucket === undefined) return [];
  if (typeof bucket === 'string') return [bucket];
  if (isArray(bucket)) return bucket.slice();
  const out: string[] = [];
  bucket.forEach((key) => out.push(key));
  return out;
}

/** The bucket holding exactly the given members (deduplicated), or undefined when none. */
export function bucketOf(members: readonly string[]): Bucket | undefined {
  let map: StringMultimap = IMap<string, Bucket>().asMutable();
  for (const member of members) map = multimapAdd(map, '', member);
  return map.get('');
}

function isArray(bucket: Bucket): bucket is readonly string[] {
  return Array.isArray(bucket);
}

/** A set view of a bucket; buckets never change, so neither does the view. */
class BucketView implements ReadonlySet<string> {
  readonly #bucket: Bucket | undefined;

  constructor(bucket: Bucket | undefined) {
    this.#bucket = bucket;
  }

  get size(): number {
    const b = this.#bucket;
    if (b === undefined) return 0;
    if (typeof b === 'string') return 1;
    return isArray(b) ? b.length : b.size;
  }

  has(value: string): boolean {
    const b = this.#bucket;
    if (b === undefined) return false;
    if (typeof b === 'string') return b === value;
    return isArray(b) ? b.includes(value) : b.has(value);
  }

  forEach(callback: (value: string, value2: string, set: ReadonlySet<string>) => void, thisArg?: unknown): void {
    for (const value of this) callback.call(thisArg, value, value, this);
  }

  [Symbol.iterator](): SetIterator<string> {
    return this.values();
  }

  values(): SetIterator<string> {
    const b = this.#bucket;
    if (b === undefined) return ([] as string[]).values();
    if (typeof b === 'string') return [b].values();
    return isArray(b) ? b.values() : b.values();
  }

  keys(): SetIterator<string> {
    return this.values();
  }

  entries(): SetIterator<[string, string]> {
    return Array.from(this, (v): [string, string] => [v, v]).values();
  }

  get [Symbol.toStringTag](): string {
    return 'BucketView';
  }
}
