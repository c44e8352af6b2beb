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
 * 1.7 KB object. Chunking shares that cost among ~8 items (about 40 bytes each, a hash included)
 * and stores no separate key: it is read from the item (objects are frozen, so a name cannot
 * change), and only after the hash matched. A write
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
  #chunks: IMap<number, Chunk<R>>;
  #bits: number;
  #size: number;
  /** Mutable mode only: chunks this batch created, safe to change in place. */
  #owned: Set<Chunk<R>> | undefined;

  private constructor(
    keyOf: (item: R) => string,
    chunks: IMap<number, Chunk<R>>,
    bits: number,
    size: number,
    owned: Set<Chunk<R>> | undefined,
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

  get(key: string): R | undefined {
    const hash = hashKey(key);
    const chunk = this.#chunks.get(hash & ((1 << this.#bits) - 1));
    if (chunk === undefined) return undefined;
    const at = this.#indexOf(chunk, hash, key);
    return at < 0 ? undefined : (chunk[at + 1] as R);
  }

  /** Inserts or replaces the item with this key; returns the table to keep. */
  set(key: string, item: R): ChunkTable<R> {
    const hash = hashKey(key);
    const slot = hash & ((1 << this.#bits) - 1);
    const chunk = this.#chunks.get(slot);
    let next: Chunk<R>;
    let grew = false;
    if (chunk === undefined) {
      next = [hash, item];
      grew = true;
    } else {
      const at = this.#indexOf(chunk, hash, key);
      next = this.#writable(chunk);
      if (at < 0) {
        next.push(hash, item);
        grew = true;
      } else {
        next[at + 1] = item;
      }
    }
    const size = grew ? this.#size + 1 : this.#size;
    const table = this.#with(this.#chunks.set(slot, next), size, next);
    return size > CHUNK_TARGET << this.#bits ? table.#rehash(this.#bits + 1) : table;
  }

  /** Removes the item with this key if present; returns the table to keep. */
  delete(key: string): ChunkTable<R> {
    const hash = hashKey(key);
    const slot = hash & ((1 << this.#bits) - 1);
    const chunk = this.#chunks.get(slot);
    if (chunk === undefined) return this;
    const at = this.#indexOf(chunk, hash, key);
    if (at < 0) return this;
    if (chunk.length === 2) return this.#with(this.#chunks.delete(slot), this.#size - 1, undefined);
    const next = this.#writable(chunk);
    next.splice(at, 2);
    return this.#with(this.#chunks.set(slot, next), this.#size - 1, next);
  }

  *values(): IterableIterator<R> {
    for (const chunk of this.#chunks.values()) {
      for (let i = 1; i < chunk.length; i += 2) yield chunk[i] as R;
    }
  }

  /** Calls `fn` for every item; several times faster than iterating `values()`. */
  forEach(fn: (item: R) => void): void {
    this.#chunks.forEach((chunk) => {
      for (let i = 1; i < chunk.length; i += 2) fn(chunk[i] as R);
    });
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

  /**
   * Position of the key's hash in a chunk, or -1. Hashes are compared first, inline, so only a
   * matching item is dereferenced: with 100k objects spread over memory, reading each
   * candidate's name would cost a cache miss per candidate.
   */
  #indexOf(chunk: Chunk<R>, hash: number, key: string): number {
    for (let i = 0; i < chunk.length; i += 2) {
      if (chunk[i] === hash && this.#keyOf(chunk[i + 1] as R) === key) return i;
    }
    return -1;
  }

  /** A chunk that may be changed: itself when this batch created it, else a copy. */
  #writable(chunk: Chunk<R>): Chunk<R> {
    if (this.#owned?.has(chunk)) return chunk;
    const copy = chunk.slice();
    this.#owned?.add(copy);
    return copy;
  }

  #with(chunks: IMap<number, Chunk<R>>, size: number, created: Chunk<R> | undefined): ChunkTable<R> {
    if (this.#owned === undefined) return new ChunkTable(this.#keyOf, chunks, this.#bits, size, undefined);
    if (created !== undefined) this.#owned.add(created);
    this.#chunks = chunks;
    this.#size = size;
    return this;
  }

  #rehash(bits: number): ChunkTable<R> {
    const mask = (1 << bits) - 1;
    const bySlot = new Map<number, Chunk<R>>();
    this.#chunks.forEach((chunk) => {
      for (let i = 0; i < chunk.length; i += 2) {
        const hash = chunk[i] as number;
        const target = bySlot.get(hash & mask);
        if (target === undefined) bySlot.set(hash & mask, [hash, chunk[i + 1] as R]);
        else target.push(hash, chunk[i + 1] as R);
      }
    });
    const chunks = IMap<number, Chunk<R>>().withMutations((m) => {
      for (const [slot, chunk] of bySlot) m.set(slot, chunk);
    });
    if (this.#owned === undefined) return new ChunkTable(this.#keyOf, chunks, bits, this.#size, undefined);
    this.#chunks = chunks.asMutable();
    this.#bits = bits;
    this.#owned = new Set(bySlot.values());
    return this;
  }
}

/** Hashes and items, interleaved: `[hash0, item0, hash1, item1, ...]`. */
type Chunk<R> = (number | R)[];

/**
 * A well-mixed 30-bit hash of a key (31-multiplier string hash, then murmur3's finalizer); 30
 * bits so that it is a small integer V8 stores inline in the chunk, with or without pointer
 * compression.
 */
function hashKey(key: string): number {
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (Math.imul(31, h) + key.charCodeAt(i)) | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) & 0x3fffffff;
}
