import type { KubernetesObject } from '../../resource/kubernetes-object.js';
import type { ResourceID } from '../../resource/resource-id.js';
import { UndoLog } from '../../snapshot/undo-log.js';
import type { KeyBucket } from '../../internal/key-bucket.js';

/** Computes the indexed values of one object (the public `Indexer`, restated to avoid a cycle). */
export type IndexFunction<R> = (obj: R) => readonly string[];

export const NO_VALUES: readonly string[] = Object.freeze([]);

/**
 * The live content of an {@link IndexedStore}, shared with its snapshots: plain mutable Maps, so
 * a write costs a Map write, plus the undo log that keeps snapshots unchanged.
 *
 * Objects are filed by namespace ('' for cluster-scoped) then by name: the name key is the
 * object's own `metadata.name` string, so the table allocates no key string per object.
 */
export class StoreContent<R extends KubernetesObject> {
  readonly objects = new Map<string, Map<string, R>>();
  readonly indexes = new Map<string, Map<string, KeyBucket>>();
  readonly indexers = new Map<string, IndexFunction<R>>();
  /** Key (`namespace/name`) -> the object before a write, for the snapshots open at the time. */
  readonly log = new UndoLog<string, R>();
  indexNames: readonly string[] = NO_VALUES;
  size = 0;
  resourceVersion: string | undefined;

  get(namespace: string, name: string): R | undefined {
    return this.objects.get(namespace)?.get(name);
  }

  /** The object under an ID or key, without allocating an ID (two slices for a namespaced key). */
  lookup(idOrKey: ResourceID | string): R | undefined {
    if (typeof idOrKey !== 'string') return this.objects.get(idOrKey.namespace ?? '')?.get(idOrKey.name);
    const slash = idOrKey.indexOf('/');
    return slash < 0 ? this.objects.get('')?.get(idOrKey) : this.objects.get(idOrKey.slice(0, slash))?.get(idOrKey.slice(slash + 1));
  }
}

/** Namespace ('' when cluster-scoped) and name of an ID or key. */
export function splitKey(idOrKey: ResourceID | string): [namespace: string, name: string] {
  if (typeof idOrKey !== 'string') return [idOrKey.namespace ?? '', idOrKey.name];
  const slash = idOrKey.indexOf('/');
  return slash < 0 ? ['', idOrKey] : [idOrKey.slice(0, slash), idOrKey.slice(slash + 1)];
}

/**
 * Values of an object already in the store (or leaving it). A failure was reported when the
 * object came in, and kept it out of the index then, so it means "no values" now.
 */
export function storedValues<R>(indexer: IndexFunction<R>, obj: R): readonly string[] {
  try {
    const values: unknown = indexer(obj);
    return Array.isArray(values) && values.every((v) => typeof v === 'string') ? values : NO_VALUES;
  } catch {
    return NO_VALUES;
  }
}
