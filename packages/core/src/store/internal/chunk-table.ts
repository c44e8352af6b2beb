import { Map as IMap } from 'immutable';
/** Average items per chunk before the table doubles its chunk count. */
const CHUNK_TARGET = 8;

/**
 * A persistent hash table of items that carry their own string key, whose slots are small
 * chunks (plain arrays of about {@link CHUNK_TARGET} items) held in an immutable.js Map. The
 * store keeps each namespace's objects in one (keyed by `metadata.name`), and large index
 * buckets keep their object keys in one (keyed by themselves).
 *
 * Why not an immutable Map or Set: each of their entries costs a leaf node plus a
 * `[key, value]` array, about 170 bytes without pointer compression, i.e. 10% of a typical
 * 1.7 KB object. Chunking shares that cost among ~8 items (about 30 bytes each) and stores no
 * separate key: it is read from the item (objects are frozen, so a name cannot change). A write
 * copies one chunk (a few pointers) plus the Map's path, so updates stay O(log n) and every
 * version remains intact. The chunk count doubles when the average chunk reaches the target,
 * rehashing once per doubling (amortized O(1) per insert); it never shrinks, as emptied chunks
 * are dropped anyway.
 *
 * Mutable mode (`asMutable`) serves batches: the Map is transient and chunks created by this
 * batch are changed in place, so loading 100k objects allocates each chunk about once.
 */
export class ChunkTable<R> {
  readonly #keyOf: (item: R) => string;
  #chunks: IMap<number, R[]>;
  #bits: number;
  #size: number;
  /** Mutable mode only: chunks this batch created, safe to change in place. */
  #owned: Set<R[]> | undefined;

  private constructor(
    keyOf: (item: R) => string,
    chunks: IMap<number, R[]>,
    bits: number,
    size: number,
    owned: Set<R[]> | undefined,
  ) {
    this.#keyOf = keyOf;
    this.#chunks = chunks;
    this.#bits = bits;
    this.#size = size;
    this.#owned = owned;
  }

  /** An empty table whose items are keyed by `keyOf` (a pure function of a frozen item). */
  static empty<R>(keyOf: (item: R) => string): ChunkTable<R> {
    return new ChunkTable<R>(keyOf, IMap(), 0, 0, undefined);
  }

  get size(): number {
    return this.#size;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  get(name: string): R | undefined {
    const chunk = this.#chunks.get(hashName(name) & ((1 << this.#bits) - 1));
    if (chunk === undefined) return undefined;
    const at = this.#indexOf(chunk, name);
    return at < 0 ? undefined : chunk[at];
  }

  /** Inserts or replaces the object with this name; returns the table to keep. */
  set(name: string, obj: R): ChunkTable<R> {
    const slot = hashName(name) & ((1 << this.#bits) - 1);
    const chunk = this.#chunks.get(slot);
    let next: R[];
    let grew = false;
    if (chunk === undefined) {
      next = [obj];
      grew = true;
    } else {
      const at = this.#indexOf(chunk, name);
      next = this.#writable(chunk);
      if (at < 0) {
        next.push(obj);
        grew = true;
      } else {
        next[at] = obj;
      }
    }
    const size = grew ? this.#size + 1 : this.#size;
    const table = this.#with(this.#chunks.set(slot, next), size, next);
    return size > CHUNK_TARGET << this.#bits ? table.#rehash(this.#bits + 1) : table;
  }

  /** Removes the object with this name if present; returns the table to keep. */
  delete(name: string): ChunkTable<R> {
    const slot = hashName(name) & ((1 << this.#bits) - 1);
    const chunk = this.#chunks.get(slot);
    if (chunk === undefined) return this;
    const at = this.#indexOf(chunk, name);
    if (at < 0) return this;
    if (chunk.length === 1) return this.#with(this.#chunks.delete(slot), this.#size - 1, undefined);
    const next = this.#writable(chunk);
    next.splice(at, 1);
    return this.#with(this.#chunks.set(slot, next), this.#size - 1, next);
  }

  *values(): IterableIterator<R> {
    for (const chunk of this.#chunks.values()) yield* chunk;
  }

  /** A mutable copy for a batch; the receiver stays as it is. */
  asMutable(): ChunkTable<R> {
    return new ChunkTable(this.#keyOf, this.#chunks.asMutable(), this.#bits, this.#size, new Set());
  }

  /** Ends mutable mode: the table becomes persistent again (this very object). */
  asImmutable(): ChunkTable<R> {
    if (this.#owned !== undefined) {
      this.#chunks = this.#chunks.asImmutable();
      this.#owned = undefined;
    }
    return this;
  }

  #indexOf(chunk: readonly R[], key: string): number {
    const keyOf = this.#keyOf;
    for (let i = 0; i < chunk.length; i++) if (keyOf(chunk[i]!) === key) return i;
    return -1;
  }

  /** A chunk that may be changed: itself when this batch created it, else a copy. */
  #writable(chunk: R[]): R[] {
    if (this.#owned?.has(chunk)) return chunk;
    const copy = chunk.slice();
    this.#owned?.add(copy);
    return copy;
  }

  #with(chunks: IMap<number, R[]>, size: number, created: R[] | undefined): ChunkTable<R> {
    if (this.#owned === undefined) return new ChunkTable(this.#keyOf, chunks, this.#bits, size, undefined);
    if (created !== undefined) this.#owned.add(created);
    this.#chunks = chunks;
    this.#size = size;
    return this;
  }

  #rehash(bits: number): ChunkTable<R> {
    const mask = (1 << bits) - 1;
    const byslot = new Map<number, R[]>();
    for (const obj of this.values()) {
      const slot = hashName(this.#keyOf(obj)) & mask;
      const chunk = byslot.get(slot);
      if (chunk === undefined) byslot.set(slot, [obj]);
      else chunk.push(obj);
    }
    const chunks = IMap<number, R[]>().withMutations((m) => {
      for (const [slot, chunk] of byslot) m.set(slot, chunk);
    });
    if (this.#owned === undefined) return new ChunkTable(this.#keyOf, chunks, bits, this.#size, undefined);
    this.#chunks = chunks.asMutable();
    this.#bits = bits;
    this.#owned = new Set(byslot.values());
    return this;
  }
}

/** A well-mixed 32-bit hash of a name (31-multiplier string hash, then murmur3's finalizer). */
function hashName(name: string): number {
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (Math.imul(31, h) + name.charCodeAt(i)) | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
