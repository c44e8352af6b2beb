import { Map as IMap } from 'immutable';
import type { KubernetesObject } from '../../resource/kubernetes-object.js';
import { StoreSnapshot, type ObjectTable } from '../store-snapshot.js';
import type { ChunkTable } from './chunk-table.js';
import { emptyNames } from './names.js';
import { multimapAdd, multimapRemove, type StringMultimap } from './string-multimap.js';

/**
 * The next state of a store while one write is applied to it.
 *
 * A single write updates the persistent maps directly (a few path copies). A batch (`replace`,
 * `addIndexer` over existing content) works on transient `asMutable` copies, which immutable.js
 * changes in place without path copying: a 100k-object initial list costs one allocation per
 * entry instead of one path copy per entry. Either way the base snapshot is never changed.
 */
export class StoreDraft<R extends KubernetesObject> {
  readonly #batch: boolean;
  #objects: ObjectTable<R>;
  /** Batch only: namespaces whose by-name map is currently transient. */
  readonly #touched = new Map<string, ChunkTable<R>>();
  readonly #baseIndexes: IMap<string, StringMultimap>;
  readonly #indexes = new Map<string, StringMultimap>();
  size: number;

  constructor(base: StoreSnapshot<R>, batch: boolean) {
    this.#batch = batch;
    this.#objects = batch ? base.objects.asMutable() : base.objects;
    this.#baseIndexes = base.indexes;
    for (const [name, index] of base.indexes) this.#indexes.set(name, batch ? index.asMutable() : index);
    this.size = base.size;
  }

  get(namespace: string, name: string): R | undefined {
    return (this.#touched.get(namespace) ?? this.#objects.get(namespace))?.get(name);
  }

  put(namespace: string, name: string, obj: R): void {
    if (this.#batch) {
      this.#mutableByName(namespace).set(name, obj);
    } else {
      this.#objects = this.#objects.set(namespace, (this.#objects.get(namespace) ?? emptyNames<R>()).set(name, obj));
    }
  }

  remove(namespace: string, name: string): void {
    if (this.#batch) {
      this.#mutableByName(namespace).delete(name);
      return;
    }
    const byName = this.#objects.get(namespace)?.delete(name);
    if (byName === undefined) return;
    // Empty namespaces are dropped so `list(ns)` and memory never depend on history.
    this.#objects = byName.size === 0 ? this.#objects.delete(namespace) : this.#objects.set(namespace, byName);
  }

  addIndex(indexName: string, index: StringMultimap): void {
    this.#indexes.set(indexName, this.#batch ? index.asMutable() : index);
  }

  index(indexName: string, value: string, key: string): void {
    this.#indexes.set(indexName, multimapAdd(this.#indexes.get(indexName) as StringMultimap, value, key));
  }

  unindex(indexName: string, value: string, key: string): void {
    this.#indexes.set(indexName, multimapRemove(this.#indexes.get(indexName) as StringMultimap, value, key));
  }

  /** The snapshot holding everything written; the draft must not be used afterwards. */
  finish(resourceVersion: string | undefined): StoreSnapshot<R> {
    let objects = this.#objects;
    for (const [namespace, byName] of this.#touched) {
      objects = byName.size === 0 ? objects.delete(namespace) : objects.set(namespace, byName.asImmutable());
    }
    let indexes = this.#baseIndexes;
    for (const [name, index] of this.#indexes) {
      const done = this.#batch ? index.asImmutable() : index;
      if (indexes.get(name) !== done) indexes = indexes.set(name, done);
    }
    return new StoreSnapshot(this.#batch ? objects.asImmutable() : objects, indexes, this.size, resourceVersion);
  }

  #mutableByName(namespace: string): ChunkTable<R> {
    let byName = this.#touched.get(namespace);
    if (byName === undefined) {
      byName = (this.#objects.get(namespace) ?? emptyNames<R>()).asMutable();
      this.#touched.set(namespace, byName);
    }
    return byName;
  }
}
