/**
 * The keys filed under one value of an index, in the cheapest shape for their number: a bare
 * string for one (the key string itself, shared with the other structures that hold it), a small
 * array up to {@link SMALL} (scanning a few pointers beats hashing, and a 5-key array is about a
 * third of a 5-key Set), a Set beyond. A Set changes in place, an array on removal; an array
 * grows by a copy of its exact size, since `push` leaves about 16 spare slots in every bucket (120
 * bytes a 5-item bucket, 24 per cached object when each primary has 5 secondaries, measured on
 * Node 20). Snapshots do not read buckets for keys changed since they were taken (see
 * `snapshot/undo-log.ts`).
 */
export type KeyBucket = Bucket<string>;

/**
 * A bucket of any items that are neither arrays nor Sets, in the same shapes: the reverse index
 * files its per-secondary cells this way (an object, not a key, so a lookup reaches the secondary
 * without a table probe).
 */
export type Bucket<T> = T | T[] | Set<T>;

const SMALL = 16;

/** The bucket with `item` added (the same bucket, changed in place, when it is a Set; a new array when an array). */
export function bucketWith<T>(bucket: Bucket<T> | undefined, item: T): Bucket<T> {
  if (bucket === undefined) return item;
  if (Array.isArray(bucket)) {
    if (bucket.includes(item)) return bucket;
    if (bucket.length < SMALL) return copyWith(bucket, item);
    return new Set([...bucket, item]);
  }
  if (bucket instanceof Set) {
    bucket.add(item);
    return bucket;
  }
  return bucket === item ? bucket : [bucket, item];
}

/**
 * A copy of `items` with `item` appended, of exactly length + 1 slots (as `concat` makes, not
 * `push`'s spare ones). A preallocated array filled by a loop: `concat` cost about 110 ns a call
 * against 12-30 (filling 2-, 3- and 4-item buckets, Node 20), a third of the reverse index's
 * bucket work in a 100k sync, where 3 of each primary's 5 secondaries grow an array.
 */
function copyWith<T>(items: readonly T[], item: T): T[] {
  const n = items.length;
  const out = new Array<T>(n + 1);
  for (let i = 0; i < n; i++) out[i] = items[i]!;
  out[n] = item;
  return out;
}

/** The bucket without `item`; undefined when nothing is left, the bare item when one is. */
export function bucketWithout<T>(bucket: Bucket<T> | undefined, item: T): Bucket<T> | undefined {
  if (bucket === undefined) return undefined;
  if (Array.isArray(bucket)) {
    const at = bucket.indexOf(item);
    if (at < 0) return bucket;
    if (bucket.length === 2) return bucket[1 - at]!;
    bucket.splice(at, 1);
    return bucket;
  }
  if (bucket instanceof Set) {
    bucket.delete(item);
    // Back to an array at half the limit, so one item coming and going does not convert every time.
    return bucket.size <= SMALL / 2 ? (bucket.size === 1 ? bucket.values().next().value : [...bucket]) : bucket;
  }
  return bucket === item ? undefined : bucket;
}

/** Files `key` under `value` of an index. */
export function bucketAdd(index: Map<string, KeyBucket>, value: string, key: string): void {
  const bucket = index.get(value);
  const next = bucketWith(bucket, key);
  if (next !== bucket) index.set(value, next);
}

/** Takes `key` out of `value` of an index; a value left with no key disappears. */
export function bucketRemove(index: Map<string, KeyBucket>, value: string, key: string): void {
  const bucket = index.get(value);
  const next = bucketWithout(bucket, key);
  if (next === undefined) index.delete(value);
  else if (next !== bucket) index.set(value, next);
}

/** Calls `fn` with each item of a bucket (none for undefined). */
export function bucketForEach<T>(bucket: Bucket<T> | undefined, fn: (item: T) => void): void {
  if (bucket === undefined) return;
  if (Array.isArray(bucket)) for (let i = 0; i < bucket.length; i++) fn(bucket[i]!);
  else if (bucket instanceof Set) for (const item of bucket) fn(item);
  else fn(bucket);
}
