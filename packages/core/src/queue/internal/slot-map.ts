/**
 * A map from keys to numbers whose first entry lives in two fields, the others in a `Map`: for
 * maps that hold one entry most of the time and are emptied and refilled at every item (the items
 * being processed, the wait of the item just added). At one event per millisecond each such map
 * holds one item at a time, and a `Map` there reallocated its hash table whenever a delete emptied
 * it and touched cold memory on every call (seen in CPU profiles); with one entry, this one touches no table.
 * Each key is in the slot or in the map, never both.
 */
export class SlotMap<K> {
  #slotKey: K | undefined = undefined;
  #slotValue = 0;
  #slotUsed = false;
  readonly #rest = new Map<K, number>();

  get size(): number {
    return (this.#slotUsed ? 1 : 0) + this.#rest.size;
  }

  has(key: K): boolean {
    return (this.#slotUsed && this.#slotKey === key) || (this.#rest.size !== 0 && this.#rest.has(key));
  }

  get(key: K): number | undefined {
    if (this.#slotUsed && this.#slotKey === key) return this.#slotValue;
    return this.#rest.size === 0 ? undefined : this.#rest.get(key);
  }

  set(key: K, value: number): void {
    if (this.#slotUsed && this.#slotKey === key) this.#slotValue = value;
    else if (this.#rest.size !== 0 && this.#rest.has(key)) this.#rest.set(key, value);
    else if (!this.#slotUsed) {
      this.#slotKey = key;
      this.#slotValue = value;
      this.#slotUsed = true;
    } else this.#rest.set(key, value);
  }

  /** Removes `key`; returns its value, or undefined if it had none. */
  take(key: K): number | undefined {
    if (this.#slotUsed && this.#slotKey === key) {
      this.#slotUsed = false;
      this.#slotKey = undefined;
      return this.#slotValue;
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
    this.#slotUsed = false;
    this.#slotKey = undefined;
    this.#rest.clear();
  }

  /** Calls `f` with every value. */
  forEachValue(f: (value: number) => void): void {
    if (this.#slotUsed) f(this.#slotValue);
    for (const value of this.#rest.values()) f(value);
  }
}
