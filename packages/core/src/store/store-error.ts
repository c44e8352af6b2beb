import type { InvalidResourceError } from '../resource/resource-id.js';

/** An indexer threw, or returned something other than an array of strings, for one object. */
export class IndexerError extends Error {
  override readonly name = 'IndexerError';
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

/** A lookup named an index that was never added with `addIndexer`. */
export class UnknownIndexError extends Error {
  override readonly name = 'UnknownIndexError';
  readonly indexName: string;

  constructor(indexName: string, known: readonly string[]) {
    super(`no index named ${JSON.stringify(indexName)} (known: ${known.map((n) => JSON.stringify(n)).join(', ') || 'none'})`);
    this.indexName = indexName;
  }
}

/** `addIndexer` was called twice with one name. */
export class DuplicateIndexerError extends Error {
  override readonly name = 'DuplicateIndexerError';
  readonly indexName: string;

  constructor(indexName: string) {
    super(`an indexer named ${JSON.stringify(indexName)} already exists`);
    this.indexName = indexName;
  }
}

/**
 * What a store reports on `errors$` and then moves past: a rejected object
 * ({@link InvalidResourceError}) or an object kept out of one index ({@link IndexerError}).
 */
export type StoreError = InvalidResourceError | IndexerError;
