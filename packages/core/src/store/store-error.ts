import type { InvalidResourceError } from '../resource/resource-id.js';

/**
 * An indexer threw, or returned something other than an array of strings, for one object.
 *
 * @example
 * ```ts
 * import { IndexedStore, IndexerError } from '@kindex/core';
 * const store = new IndexedStore();
 *
 * // An indexer that throws does not break the store: the error goes to errors$.
 * store.errors$.subscribe((error) => {
 *   if (error instanceof IndexerError) console.warn(`index ${error.indexName} skipped ${error.objectKey}: ${error.message}`);
 * });
 * ```
 */
export class IndexerError extends Error {
  override readonly name = 'IndexerError';
  readonly code = 'KINDEX_INDEXER_FAILED';
  /** `namespace/name` of the object kept out of the index. */
  readonly objectKey: string;
  /** The index the object is missing from. */
  readonly indexName: string;

  constructor(objectKey: string, indexName: string, problem: string, options?: { cause?: unknown }) {
    super(`object ${objectKey}: indexer ${JSON.stringify(indexName)}: ${problem}`, options);
    this.objectKey = objectKey;
    this.indexName = indexName;
  }
}

/**
 * A lookup named an index that was never added with `addIndexer`.
 *
 * @example
 * ```ts
 * import { IndexedStore, UnknownIndexError } from '@kindex/core';
 * const store = new IndexedStore();
 *
 * try {
 *   store.byIndex('byNode', 'node-1');
 * } catch (error) {
 *   if (error instanceof UnknownIndexError) store.addIndexer(error.indexName, () => []);
 * }
 * ```
 */
export class UnknownIndexError extends Error {
  override readonly name = 'UnknownIndexError';
  readonly code = 'KINDEX_UNKNOWN_INDEX';
  readonly indexName: string;

  constructor(indexName: string, known: readonly string[]) {
    super(`no index named ${JSON.stringify(indexName)} (known: ${known.map((n) => JSON.stringify(n)).join(', ') || 'none'})`);
    this.indexName = indexName;
  }
}

/**
 * `addIndexer` was called twice with one name.
 *
 * @example
 * ```ts
 * import { DuplicateIndexerError, IndexedStore } from '@kindex/core';
 * const store = new IndexedStore({ indexers: { byApp: (o) => [o.metadata?.labels?.['app'] ?? ''] } });
 *
 * try {
 *   store.addIndexer('byApp', (o) => [o.metadata?.name ?? '']);
 * } catch (error) {
 *   if (!(error instanceof DuplicateIndexerError)) throw error; // someone else registered it first: use theirs
 * }
 * ```
 */
export class DuplicateIndexerError extends Error {
  override readonly name = 'DuplicateIndexerError';
  readonly code = 'KINDEX_DUPLICATE_INDEXER';
  readonly indexName: string;

  constructor(indexName: string) {
    super(`an indexer named ${JSON.stringify(indexName)} already exists`);
    this.indexName = indexName;
  }
}

/**
 * What a store reports on `errors$` and then moves past: a rejected object
 * ({@link InvalidResourceError}) or an object kept out of one index ({@link IndexerError}).
 *
 * @example
 * ```ts
 * import { IndexedStore, type StoreError } from '@kindex/core';
 * const store = new IndexedStore();
 *
 * store.errors$.subscribe((error: StoreError) => console.warn(`${error.name}: ${error.message}`));
 * ```
 */
export type StoreError = InvalidResourceError | IndexerError;
