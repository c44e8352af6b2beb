/**
 * A map from keys to numbers whose first entries (16 by default) live in two fixed arrays, found
 * by a linear scan, and the others in a `Map`: for maps that hold a few entries at a time and are
 * emptied and refilled all the time (the items being processed, the waits of the items just
 * added). A `Map` there reallocated its hash table each time deletes emptied it and again as it
 * grew back (V8 shrinks a table that falls under half full): at 8,000 events/s the queue's maps
 * went from empty to ten entries (the keys one `tryGet` loop hands out) and back at every batch,
 * about 400 bytes of tables per event and a runtime call per resize (seen in allocation profiles).
 * These arrays are allocated once. Each key is in the arrays or in the map, never both.
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
    else if (this.#rest.size !== 0 && this.#rest.has(key)) this.#rest.set(key, value);
    else if (this.#used < this.#keys.length) {
      this.#keys[this.#used] = key;
      this.#values[this.#used++] = value;
    } else this.#rest.set(key, value);
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

  #find(key: K): number {
    const keys = this.#keys;
    for (let i = 0; i < this.#used; i++) if (keys[i] === key) return i;
    return -1;
  }
}
