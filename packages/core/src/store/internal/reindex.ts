// Index maintenance of an IndexedStore, apart from its table writes: what an indexer yields for an
// object coming in (checked, since indexers are user code) and how one write moves its entries.
import type { KubernetesObject } from '../../resource/kubernetes-object.js';
import { bucketAdd, bucketRemove } from '../../internal/key-bucket.js';
import { IndexerError, type StoreError } from '../store-error.js';
import { NO_VALUES, storedValues, type IndexFunction, type StoreContent } from './store-content.js';

/** Where a failing indexer is reported (the store's `errors$`). */
export type ReportStoreError = (error: StoreError) => void;

/** Moves one object's index entries from what `old` indexes to what `obj` indexes. */
export function reindex<R extends KubernetesObject>(
  content: StoreContent<R>,
  key: string,
  old: R | undefined,
  obj: R | undefined,
  report: ReportStoreError,
): void {
  for (const [indexName, indexer] of content.indexers) {
    const before = old === undefined ? NO_VALUES : storedValues(indexer, old);
    const after = obj === undefined ? NO_VALUES : indexValues(indexName, indexer, obj, key, report);
    if (sameValues(before, after)) continue; // the common update: labels untouched
    const index = content.indexes.get(indexName)!;
    for (const value of before) if (!has(after, value)) bucketRemove(index, value, key);
    for (const value of after) if (!has(before, value)) bucketAdd(index, value, key);
  }
}

/** Values of an object being indexed; a failure is reported and indexes it nowhere. */
export function indexValues<R>(
  indexName: string,
  indexer: IndexFunction<R>,
  obj: R,
  key: string,
  report: ReportStoreError,
): readonly string[] {
  let values: unknown;
  try {
    values = indexer(obj);
  } catch (cause) {
    report(new IndexerError(key, indexName, 'indexer threw', { cause }));
    return NO_VALUES;
  }
  if (!Array.isArray(values)) {
    report(new IndexerError(key, indexName, `indexer returned ${describe(values)}, not an array of strings`));
    return NO_VALUES;
  }
  for (let i = 0; i < values.length; i++) {
    if (typeof values[i] !== 'string') {
      report(new IndexerError(key, indexName, `indexer returned ${describe(values[i])} at [${i}], not a string`));
      return NO_VALUES;
    }
  }
  return values.length === 0 ? NO_VALUES : (values as readonly string[]);
}

function sameValues(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Membership in an indexer's result: a scan for the usual handful of values, a set beyond. */
function has(values: readonly string[], value: string): boolean {
  if (values.length <= 16) return values.includes(value);
  let set = largeValueSets.get(values);
  if (set === undefined) largeValueSets.set(values, (set = new Set(values)));
  return set.has(value);
}

const largeValueSets = new WeakMap<readonly string[], ReadonlySet<string>>();

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : typeof value;
}
