/**
 * When each primary was last reconciled, for the max-reconciliation-interval sweep of the
 * {@link EventProcessor}: the port through which the processor keeps one small number per
 * primary where the primaries are (a bounded primary cache keeps it in its compact records, 4
 * bytes a primary), instead of a pending delay per primary in the queue (about 285 bytes each).
 *
 * A stamp is an opaque unsigned 32-bit tick the processor computes (0 means none); only the
 * processor compares them, modulo 2^32.
 *
 * @module
 */

/**
 * Where the event processor keeps, per primary, the tick of its last reconcile, and walks them
 * for the max-interval sweep. Pass one as `reconcileStamps` in `EventProcessorOptions`; without
 * it the processor keeps them in a {@link MapReconcileStamps}.
 *
 * Contract: `walk` resumes where the previous call stopped, visits each primary that stays in
 * the set once per pass (primaries added during a pass may wait for the next), and never visits
 * a removed one. Stamps written with {@link ReconcileStamps.stamp} for a primary the holder does
 * not know may be dropped: the holder is the set of primaries.
 *
 * @example
 * ```ts
 * import { EventProcessor, MapReconcileStamps, type ReconcileStamps } from '@kindex/core';
 *
 * const stamps: ReconcileStamps = new MapReconcileStamps();
 * const processor = new EventProcessor({ dispatch: async () => {}, reconcileStamps: stamps });
 * ```
 */
export interface ReconcileStamps {
  /** Records that the primary with this key was reconciled at `tick` (1 to 2^32-1). */
  stamp(key: string, tick: number): void;
  /** The tick of the primary's last reconcile; 0 when it has none or is unknown. */
  stampOf(key: string): number;
  /** The primary was deleted: its stamp goes (a holder that drops it by itself may ignore this). */
  forget(key: string): void;
  /**
   * Visits up to `limit` primaries from where the last call stopped, with their stamps (0 for
   * none). `visit` returns false to stop before that primary: the next call starts with it.
   * Returns true when this call reached the end of the set (the next call starts a new pass).
   */
  walk(limit: number, visit: (key: string, tick: number) => boolean): boolean;
  /** Primaries held. */
  readonly size: number;
}

/**
 * The stamps in a `Map` from key to tick: the processor's default, whose set is every primary it
 * reconciled and not seen deleted. About 40 bytes a primary beside its key string (kept as the
 * first stamp gave it).
 *
 * @example
 * ```ts
 * import { MapReconcileStamps } from '@kindex/core';
 *
 * const stamps = new MapReconcileStamps();
 * stamps.stamp('shop/web', 7);
 * console.log(stamps.stampOf('shop/web')); // 7
 * ```
 */
export class MapReconcileStamps implements ReconcileStamps {
  readonly #ticks = new Map<string, number>();
  /** A live iterator: a Map's iterator skips deleted entries and reaches ones added later. */
  #cursor: Iterator<[string, number]> | undefined;
  /** The entry the last walk stopped before, visited first by the next one. */
  #held: [string, number] | undefined;

  stamp(key: string, tick: number): void {
    this.#ticks.set(key, tick);
  }

  stampOf(key: string): number {
    return this.#ticks.get(key) ?? 0;
  }

  forget(key: string): void {
    this.#ticks.delete(key);
    if (this.#held?.[0] === key) this.#held = undefined;
  }

  walk(limit: number, visit: (key: string, tick: number) => boolean): boolean {
    this.#cursor ??= this.#ticks.entries();
    for (let visited = 0; visited < limit; visited++) {
      let entry = this.#held;
      this.#held = undefined;
      if (entry !== undefined) entry = [entry[0], this.#ticks.get(entry[0]) ?? 0];
      else {
        const next = this.#cursor.next();
        if (next.done === true) {
          this.#cursor = undefined;
          return true;
        }
        entry = next.value;
      }
      if (!visit(entry[0], entry[1])) {
        this.#held = entry;
        return false;
      }
    }
    return false;
  }

  get size(): number {
    return this.#ticks.size;
  }
}
