/**
 * The keys filed under one value of an index, in the cheapest shape for their number: a bare
 * string for one (the key string itself, shared with the other structures that hold it), a small
 * array up to {@link SMALL} (scanning a few pointers beats hashing, and a 5-key array is about a
 * third of a 5-key Set), a Set beyond. Buckets change in place: snapshots do not read them for
 * keys changed since they were taken (see `snapshot/undo-log.ts`).
 */
export type KeyBucket = string | string[] | Set<string>;

const SMALL = 16;

/** The bucket with `key` added (the same bucket, changed in place, when it is an array or a Set). */
export function bucketWith(bucket: KeyBucket | undefined, key: string): KeyBucket {
  if (bucket === undefined) return key;
  if (typeof bucket === 'string') return bucket === key ? bucket : [bucket, key];
  if (Array.isArray(bucket)) {
    if (bucket.includes(key)) return bucket;
    if (bucket.length < SMALL) {
      bucket.push(key);
      return bucket;
    }
    return new Set([...bucket, key]);
  }
  bucket.add(key);
  return bucket;
}

/** The bucket without `key`; undefined when nothing is left, the bare key when one is. */
export function bucketWithout(bucket: KeyBucket | undefined, key: string): KeyBucket | undefined {
  if (bucket === undefined) return undefined;
  if (typeof bucket === 'string') return bucket === key ? undefined : bucket;
  if (Array.isArray(bucket)) {
    const at = bucket.indexOf(key);
    if (at < 0) return bucket;
    if (bucket.length === 2) return bucket[1 - at]!;
    bucket.splice(at, 1);
    return bucket;
  }
  bucket.delete(key);
  // Back to an array at half the limit, so one key coming and going does not convert every time.
  return bucket.size <= SMALL / 2 ? (bucket.size === 1 ? bucket.values().next().value : [...bucket]) : bucket;
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

/** Calls `fn` with each key of a bucket (none for undefined). */
export function bucketForEach(bucket: KeyBucket | undefined, fn: (key: string) => void): void {
  if (bucket === undefined) return;
  if (typeof bucket === 'string') fn(bucket);
  else if (Array.isArray(bucket)) for (let i = 0; i < bucket.length; i++) fn(bucket[i]!);
  else for (const key of bucket) fn(key);
}
