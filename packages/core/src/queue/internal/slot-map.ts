/**
 * A map from keys to numbers for maps that hold a few entries at a time and are emptied and
 * refilled all the time (the items waiting and being processed, the waits of the items just
 * added): up to 16 entries (by default) live in two fixed arrays, found by a linear scan; past
 * that, every entry moves to a `Map` until it empties again (a scan of 16 in front of every
 * lookup of a large backlog would cost more than the map). A `Map` alone reallocated its hash
 * table each time deletes emptied it and again as it grew back (V8 shrinks a table that falls
 * under half full): at one event at a time that was a table per event, and at 8,000 events/s,
 * where one `tryGet` loop hands out ten keys, about 400 bytes of tables per event and a runtime
 * call per resize (seen in allocation profiles). The arrays are allocated once. Each key is in
 * the arrays or in the map, never both.
 */
export class SlotMap<K> {
  readonly #keys: (K | undefined)[];
  /** Float64: a timestamp stored here is no heap number. */
  readonly #values: Float64Array;
  #used = 0;
  readonly #rest = new Map<K, number>();

  /** `inline`: how many entries the arrays hold before the map is used. Defaults to 16. */
  constructor(inline = 16) {
    this.#keys = new Array<K | undefined>(inline).fill(undefined);
    this.#values = new Float64Array(inline);
  }

  get size(): number {
    return this.#used + this.#rest.size;
  }

  has(key: K): boolean {
    return this.#find(key) >= 0 || (this.#rest.size !== 0 && this.#rest.has(key));
  }

  get(key: K): number | undefined {
    const at = this.#find(key);
    if (at >= 0) return this.#values[at];
    return this.#rest.size === 0 ? undefined : this.#rest.get(key);
  }

  set(key: K, value: number): void {
    const at = this.#find(key);
    if (at >= 0) this.#values[at] = value;
    else if (this.#rest.size !== 0) this.#rest.set(key, value);
    else if (this.#used < this.#keys.length) {
      this.#keys[this.#used] = key;
      this.#values[this.#used++] = value;
    } else {
      this.#spill();
      this.#rest.set(key, value);
    }
  }

  /** Removes `key`; returns its value, or undefined if it had none. */
  take(key: K): number | undefined {
    const at = this.#find(key);
    if (at >= 0) {
      const value = this.#values[at];
      // The last entry fills the hole: order does not matter here.
      const last = --this.#used;
      this.#keys[at] = this.#keys[last];
      this.#values[at] = this.#values[last]!;
      this.#keys[last] = undefined;
      return value;
    }
    if (this.#rest.size === 0) return undefined;
    const value = this.#rest.get(key);
    if (value !== undefined) this.#rest.delete(key);
    return value;
  }

  /** Removes `key`; returns whether it was there. */
  delete(key: K): boolean {
    return this.take(key) !== undefined;
  }

  clear(): void {
    this.#keys.fill(undefined, 0, this.#used);
    this.#used = 0;
    this.#rest.clear();
  }

  /** Calls `f` with every value. */
  forEachValue(f: (value: number) => void): void {
    for (let i = 0; i < this.#used; i++) f(this.#values[i]!);
    for (const value of this.#rest.values()) f(value);
  }

  /**
   * Moves the arrays' entries to the map: past the arrays' size, every entry lives in the map
   * (no scan in front of each lookup) until it empties.
   */
  #spill(): void {
    for (let i = 0; i < this.#used; i++) this.#rest.set(this.#keys[i] as K, this.#values[i]!);
    this.#keys.fill(undefined, 0, this.#used);
    this.#used = 0;
  }

  #find(key: K): number {
    const keys = this.#keys;
    for (let i = 0; i < this.#used; i++) if (keys[i] === key) return i;
    return -1;
  }
}
