/**
 * Consistent O(1) snapshots of mutable structures: the undo log behind {@link IndexedStore} and
 * {@link PrimaryToSecondaryIndex} snapshots.
 *
 * A structure keeps its content in plain mutable Maps, so a write costs a Map write. To keep a
 * snapshot's view unchanged while the structure goes on changing, the structure tells its
 * {@link UndoLog} the value a key had before each write (`recordBeforeWrite`). The log keeps
 * that value only while some snapshot that predates the write is open, and only once per key
 * per snapshot generation: with no open snapshot a write records nothing and allocates nothing.
 *
 * Layers: each `open()` that follows a write starts a layer; a layer remembers, for the keys
 * first written after it was opened (and before the next layer), the value they had when it
 * opened. A snapshot at layer L reads key k from the first layer at or after L that holds k,
 * else from the live structure. Releasing a layer folds what it holds into the layer before it
 * (whose readers need it), so memory is bounded by the writes made while snapshots are open.
 *
 * Leak guard: a snapshot nobody releases is released when it is garbage collected
 * (`FinalizationRegistry`); `openCount` exposes how many are open, for tests and metrics.
 *
 * @module
 */

/** Returned by {@link UndoView.valueAt} for a key the view's layers never recorded. */
export const UNRECORDED: unique symbol = Symbol('unrecorded');

/** What a key held when a layer opened: a value, or absence. */
const ABSENT: unique symbol = Symbol('absent');

class Layer<K, V> {
  /** Key -> its value when this layer opened (ABSENT: not there). */
  entries = new Map<K, V | typeof ABSENT>();
  older: Layer<K, V> | undefined;
  newer: Layer<K, V> | undefined;
  /** Open views on this layer. */
  holders = 0;
}

/**
 * The undo log of one mutable structure. Not thread-safe by design (nor need it be): a write and
 * its `recordBeforeWrite` run to completion together.
 */
export class UndoLog<K, V> {
  #newest: Layer<K, V> | undefined;
  #open = 0;
  readonly #guard = new FinalizationRegistry<Layer<K, V>>((layer) => this.#release(layer));

  /** Snapshots taken and not yet released (or collected). */
  get openCount(): number {
    return this.#open;
  }

  /**
   * Call before changing `key`, with the value it holds now (undefined: absent). O(1); a no-op
   * when no snapshot is open or when the newest layer already holds the key.
   */
  recordBeforeWrite(key: K, current: V | undefined): void {
    const layer = this.#newest;
    if (layer === undefined || layer.entries.has(key)) return;
    layer.entries.set(key, current === undefined ? ABSENT : current);
  }

  /** Whether a write must call `recordBeforeWrite` at all: some snapshot is open. */
  get recording(): boolean {
    return this.#newest !== undefined;
  }

  /**
   * Opens a view of the structure as it is now. O(1). `owner` is the object handed to the
   * snapshot's reader: when it is collected without `release`, the view is released then.
   */
  open(owner: object): UndoView<K, V> {
    let layer = this.#newest;
    if (layer === undefined || layer.entries.size > 0) {
      // Nothing written since the newest layer opened: share it instead of stacking another.
      const fresh = new Layer<K, V>();
      fresh.older = layer;
      if (layer !== undefined) layer.newer = fresh;
      this.#newest = layer = fresh;
    }
    layer.holders++;
    this.#open++;
    const view = new UndoView<K, V>(layer, this);
    this.#guard.register(owner, layer, view);
    return view;
  }

  /** @internal Called by {@link UndoView.release}. */
  close(view: UndoView<K, V>, layer: Layer<K, V>): void {
    this.#guard.unregister(view);
    this.#release(layer);
  }

  #release(layer: Layer<K, V>): void {
    this.#open--;
    if (--layer.holders > 0) return;
    const { older, newer } = layer;
    if (older !== undefined) {
      // Older readers reach this layer's entries after their own: keep them, older entries win.
      // Fold the smaller map into the larger one.
      if (older.entries.size >= layer.entries.size) {
        for (const [k, v] of layer.entries) if (!older.entries.has(k)) older.entries.set(k, v);
      } else {
        for (const [k, v] of older.entries) layer.entries.set(k, v);
        older.entries = layer.entries;
      }
      older.newer = newer;
    }
    if (newer !== undefined) newer.older = older;
    if (this.#newest === layer) this.#newest = older;
    layer.entries = new Map();
  }
}

/**
 * One snapshot's access to the values its structure held when it was taken. The structure's
 * reader combines it with the live content: `valueAt(key)` wins where it is not
 * {@link UNRECORDED}.
 */
export class UndoView<K, V> {
  #layer: Layer<K, V> | undefined;
  readonly #log: UndoLog<K, V>;

  /** @internal Built by {@link UndoLog.open}. */
  constructor(layer: Layer<K, V>, log: UndoLog<K, V>) {
    this.#layer = layer;
    this.#log = log;
  }

  /** Whether the view was released (reads through it are then refused). */
  get released(): boolean {
    return this.#layer === undefined;
  }

  /**
   * The value `key` had when the view was taken (undefined: absent), or {@link UNRECORDED} when
   * it has not changed since: read the live structure then. O(layers newer than the view),
   * usually one.
   */
  valueAt(key: K): V | undefined | typeof UNRECORDED {
    for (let layer: Layer<K, V> | undefined = this.#live(); layer !== undefined; layer = layer.newer) {
      const v = layer.entries.get(key);
      if (v !== undefined) return v === ABSENT ? undefined : v;
      // A recorded value is never undefined (absence is ABSENT), so `get` alone decides.
    }
    return UNRECORDED;
  }

  /** Whether any key changed since the view was taken: when not, the live structure is the view. */
  get changed(): boolean {
    for (let layer: Layer<K, V> | undefined = this.#live(); layer !== undefined; layer = layer.newer) {
      if (layer.entries.size > 0) return true;
    }
    return false;
  }

  /**
   * Every key changed since the view was taken, with its value then (undefined: absent). Each key
   * once, the value of the layer nearest the view.
   */
  forEachChanged(fn: (key: K, then: V | undefined) => void): void {
    const first = this.#live();
    if (first.newer === undefined) {
      for (const [k, v] of first.entries) fn(k, v === ABSENT ? undefined : v);
      return;
    }
    const seen = new Set<K>();
    for (let layer: Layer<K, V> | undefined = first; layer !== undefined; layer = layer.newer) {
      for (const [k, v] of layer.entries) {
        if (seen.has(k)) continue;
        seen.add(k);
        fn(k, v === ABSENT ? undefined : v);
      }
    }
  }

  /** Ends the view; its layer's memory is freed once no other view needs it. Idempotent. */
  release(): void {
    const layer = this.#layer;
    if (layer === undefined) return;
    this.#layer = undefined;
    this.#log.close(this, layer);
  }

  #live(): Layer<K, V> {
    const layer = this.#layer;
    if (layer === undefined) throw new ReleasedSnapshotError();
    return layer;
  }
}

/**
 * A snapshot was read after `release()`: its content is gone. Take a new snapshot instead.
 *
 * @example
 * ```ts
 * import { IndexedStore, ReleasedSnapshotError } from '@kindex/core';
 * const store = new IndexedStore();
 *
 * const view = store.snapshot();
 * view.release();
 * try {
 *   view.get('shop/web');
 * } catch (error) {
 *   if (error instanceof ReleasedSnapshotError) console.log('take a new snapshot');
 * }
 * ```
 */
export class ReleasedSnapshotError extends Error {
  override readonly name = 'ReleasedSnapshotError';
  readonly code = 'KINDEX_SNAPSHOT_RELEASED';
  constructor() {
    super('snapshot read after release(): take a new snapshot() for a new consistent view');
  }
}
