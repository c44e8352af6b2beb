import { MapReconcileStamps, type IndexedStore, type KubernetesObject, type ReconcileStamps } from '@kindex/core';
import { asBounded } from './bounded-store.js';

/** Stamps claimed from a store, given back with `release`. */
type Releasable = ReconcileStamps & { release(): void };

/**
 * The reconcile stamps of a bounded `InformerCache` (one store per namespace, or one for all):
 * each store's records hold the stamps of its objects (`BoundedReconcileStamps`), claimed
 * when first used; a store another controller already claimed keeps this controller's stamps in
 * a `MapReconcileStamps` instead. A walk goes through the stores in turn, then that map.
 */
export class CacheReconcileStamps<R extends KubernetesObject = KubernetesObject> implements ReconcileStamps {
  readonly #stores: () => readonly IndexedStore<R>[];
  readonly #storeOf: (key: string) => IndexedStore<R> | undefined;
  /** The stamps claimed (or not: null) of each store met so far. */
  readonly #claimed = new Map<IndexedStore<R>, Releasable | null>();
  readonly #fallback = new MapReconcileStamps();
  /** The stores of the pass in progress (as they were when it began), and where it is. */
  #pass: ReconcileStamps[] = [];
  #at = 0;

  constructor(stores: () => readonly IndexedStore<R>[], storeOf: (key: string) => IndexedStore<R> | undefined) {
    this.#stores = stores;
    this.#storeOf = storeOf;
  }

  stamp(key: string, tick: number): void {
    const store = this.#storeOf(key);
    if (store !== undefined) this.#of(store).stamp(key, tick);
  }

  stampOf(key: string): number {
    const store = this.#storeOf(key);
    return store === undefined ? 0 : this.#of(store).stampOf(key);
  }

  forget(key: string): void {
    this.#fallback.forget(key);
  }

  walk(limit: number, visit: (key: string, tick: number) => boolean): boolean {
    if (this.#pass.length === 0) this.#pass = this.#begin();
    let left = limit;
    const counted = (key: string, tick: number): boolean => {
      if (!visit(key, tick)) return false;
      left--;
      return true;
    };
    while (this.#at < this.#pass.length) {
      if (left === 0) return false;
      if (!this.#pass[this.#at]!.walk(left, counted)) return false;
      this.#at++;
    }
    this.#pass = [];
    this.#at = 0;
    return true;
  }

  get size(): number {
    let n = this.#fallback.size;
    for (const store of this.#stores()) {
      const stamps = this.#of(store);
      if (stamps !== this.#fallback) n += stamps.size;
    }
    return n;
  }

  /** The stamps a new pass walks: each store's now (a store that left the cache is given back), then the map. */
  #begin(): ReconcileStamps[] {
    const stores = new Set(this.#stores());
    for (const [store, stamps] of this.#claimed) {
      if (stores.has(store)) continue;
      stamps?.release();
      this.#claimed.delete(store);
    }
    return [...new Set([...stores].map((s) => this.#of(s))), this.#fallback];
  }

  /** Gives back the stores' stamps claimed (the controller stops). */
  release(): void {
    for (const stamps of this.#claimed.values()) stamps?.release();
    this.#claimed.clear();
  }

  /** Where the stamps of `store`'s objects go: its records, or the map when it is not ours. */
  #of(store: IndexedStore<R>): ReconcileStamps {
    let stamps = this.#claimed.get(store);
    if (stamps === undefined) {
      stamps = asBounded(store)?.claimReconcileStamps() ?? null;
      this.#claimed.set(store, stamps);
    }
    return stamps ?? this.#fallback;
  }
}
