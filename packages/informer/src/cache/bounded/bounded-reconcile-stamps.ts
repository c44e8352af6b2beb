import { ResourceID, type ReconcileStamps } from '@kindex/core';
import type { CompactRecords } from './compact-records.js';

/**
 * The reconcile stamps of a controller's max-interval sweep (`ReconcileStamps`) kept in a
 * {@link BoundedStore}'s records: 4 bytes a primary, in memory or not, where a pending delay per
 * primary cost about 285 bytes. The set walked is every object the store has a record of.
 *
 * One holder at a time: a store shared by two controllers keeps the stamps of the one that
 * claimed it ({@link BoundedStore.claimReconcileStamps}); the other keeps its own.
 */
export class BoundedReconcileStamps implements ReconcileStamps {
  readonly #records: CompactRecords;
  readonly #release: () => void;
  /** The next slot a walk looks at. */
  #cursor = 0;

  constructor(records: CompactRecords, release: () => void) {
    this.#records = records;
    this.#release = release;
  }

  stamp(key: string, tick: number): void {
    const slot = this.#records.findKey(key);
    if (slot >= 0) this.#records.setStamp(slot, tick);
  }

  stampOf(key: string): number {
    const slot = this.#records.findKey(key);
    return slot < 0 ? 0 : this.#records.stampOf(slot);
  }

  /** Nothing to do: the store drops the record, stamp included, when the object goes. */
  forget(key: string): void {
    void key;
  }

  walk(limit: number, visit: (key: string, tick: number) => boolean): boolean {
    const records = this.#records;
    let visited = 0;
    for (; this.#cursor < records.slotLimit; this.#cursor++) {
      const slot = this.#cursor;
      if (!records.inUse(slot)) continue;
      if (visited === limit) return false;
      const key = ResourceID.keyOf(records.nameOf(slot), records.namespaceOf(slot) || undefined);
      if (!visit(key, records.stampOf(slot))) return false;
      visited++;
    }
    this.#cursor = 0;
    return true;
  }

  get size(): number {
    return this.#records.size;
  }

  /** Gives the stamps up: the store may be claimed again (by the next processor of its controller). */
  release(): void {
    this.#release();
  }
}
