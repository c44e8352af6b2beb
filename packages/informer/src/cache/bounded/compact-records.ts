/**
 * The records a {@link BoundedStore} keeps of every object the server has, in a layout of a few
 * dozen bytes each: with 100,000 primaries and a bound of 1,000, these records are most of what
 * the cache holds, so their size sets the heap of a bounded cache.
 *
 * One slot per object, its fields in typed arrays (a struct of arrays, in pages of
 * {@link PAGE_SIZE} slots so growth copies nothing and leaves at most one page unused; a page
 * whose records are all removed is freed, and made again when free slots run out):
 *
 * | field | held as | bytes |
 * |---|---|---|
 * | name | the object's own name string, in a page array | 8 (+ the string) |
 * | namespace | an interned id | 4 |
 * | resourceVersion | a number (kube-apiserver's are etcd revisions), else a string on the side | 8 |
 * | uid | 16 bytes when it is a lowercase UUID, else a string on the side | 16 + 1 |
 * | generation | a 32-bit number, else a number on the side | 4 |
 * | finalizers | an interned, counted list (most objects share one list or none) | 4 |
| reconcile stamp | a 32-bit tick of the controller's last reconcile (0: none), for its max-interval sweep | 4 |
 *
 * Names are found through an open-addressing hash table of slot numbers (4 bytes a cell, at
 * most three quarters full) rather than a `Map` (about 37 bytes an entry at 100,000). Measured
 * with 100,000 records of a ConfigMap's metadata: 170 bytes a record as one tab-separated
 * string in nested `Map`s, about 75 here (the name string included; 79 with the reconcile stamp).
 *
 * @module
 */
import type { ObjectMeta, ResourceID } from '@kindex/core';

/** Slots per page. */
export const PAGE_SIZE = 1024;
const PAGE_BITS = 10;
const PAGE_MASK = PAGE_SIZE - 1;

/** resourceVersion sentinels (a stored version is >= 0). */
const RV_NONE = -1;
const RV_TEXT = -2;
/** generation sentinels (a stored generation is below both). */
const GEN_NONE = 0xffffffff;
const GEN_OTHER = 0xfffffffe;
/** uid flags. */
const UID_NONE = 1;
const UID_TEXT = 2;

const DECIMAL = /^(0|[1-9][0-9]{0,15})$/;

/** The fields a record keeps, as the minimal object that stands for an evicted one has them. */
export interface RecordMeta {
  readonly name: string;
  readonly namespace?: string;
  readonly resourceVersion?: string;
  readonly uid?: string;
  readonly generation?: number;
  readonly finalizers?: readonly string[];
}

/** The slots of one page: one buffer, one view per field. */
class Page {
  readonly names: Array<string | undefined> = new Array<string | undefined>(PAGE_SIZE).fill(undefined);
  readonly rv: Float64Array;
  readonly uid: Uint32Array;
  readonly gen: Uint32Array;
  readonly fin: Uint32Array;
  readonly ns: Uint32Array;
  readonly stamp: Uint32Array;
  readonly flags: Uint8Array;

  constructor() {
    // 41 bytes a slot; the widest fields first so every view is aligned.
    const buffer = new ArrayBuffer(PAGE_SIZE * 41);
    this.rv = new Float64Array(buffer, 0, PAGE_SIZE);
    this.uid = new Uint32Array(buffer, PAGE_SIZE * 8, PAGE_SIZE * 4);
    this.gen = new Uint32Array(buffer, PAGE_SIZE * 24, PAGE_SIZE);
    this.fin = new Uint32Array(buffer, PAGE_SIZE * 28, PAGE_SIZE);
    this.ns = new Uint32Array(buffer, PAGE_SIZE * 32, PAGE_SIZE);
    this.stamp = new Uint32Array(buffer, PAGE_SIZE * 36, PAGE_SIZE);
    this.flags = new Uint8Array(buffer, PAGE_SIZE * 40, PAGE_SIZE);
  }
}

/**
 * Values shared by many slots (namespaces, finalizer lists), each with an id (from 1) and a count
 * of the slots that use it, dropped when none does.
 */
class Interned<T> {
  readonly #ids = new Map<string, number>();
  readonly #values: Array<T | undefined> = [undefined];
  readonly #keys: string[] = [''];
  readonly #counts: number[] = [0];
  readonly #free: number[] = [];

  /** The id of the value under `key` (made by `make` the first time), counted once more. */
  acquire(key: string, make: () => T): number {
    let id = this.#ids.get(key);
    if (id === undefined) {
      id = this.#free.pop() ?? this.#values.length;
      this.#ids.set(key, id);
      this.#values[id] = make();
      this.#keys[id] = key;
      this.#counts[id] = 0;
    }
    this.#counts[id]!++;
    return id;
  }

  /** One slot less uses `id`. */
  release(id: number): void {
    if (--this.#counts[id]! > 0) return;
    this.#ids.delete(this.#keys[id]!);
    this.#values[id] = undefined;
    this.#keys[id] = '';
    this.#free.push(id);
  }

  value(id: number): T {
    return this.#values[id]!;
  }

  /** The id of the value under `key`, or 0 when no slot uses it. */
  idOf(key: string): number {
    return this.#ids.get(key) ?? 0;
  }

  clear(): void {
    this.#ids.clear();
    this.#values.length = 1;
    this.#keys.length = 1;
    this.#counts.length = 1;
    this.#free.length = 0;
  }
}

/** FNV-1a over the name's UTF-16 units, mixed with the namespace id. */
function hashOf(namespaceId: number, name: string): number {
  let h = Math.imul(namespaceId, 0x9e3779b1) ^ 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  h ^= h >>> 15;
  return Math.imul(h, 0x2c1b3c6d) ^ (h >>> 12);
}

/** Records of objects by namespace and name, one compact slot each (see the module comment). */
export class CompactRecords {
  /** Undefined where a page was freed (every record of it removed). */
  readonly #pages: Array<Page | undefined> = [];
  /** Records in each page. */
  readonly #used: number[] = [];
  /** Freed pages, made again once #free is empty. */
  readonly #freePages: number[] = [];
  /** Open addressing, linear probing: slot + 1 per cell, 0 when empty. */
  #table = new Int32Array(16);
  #size = 0;
  /** Slots below this were used once; free ones are in #free. */
  #high = 0;
  readonly #free: number[] = [];
  readonly #namespaces = new Interned<string>();
  readonly #finalizers = new Interned<readonly string[]>();
  /** The rare values that do not fit their typed field, by slot. */
  readonly #rvText = new Map<number, string>();
  readonly #uidText = new Map<number, string>();
  readonly #genOther = new Map<number, number>();

  /** Records held. */
  get size(): number {
    return this.#size;
  }

  /** The slot of the object with this ID or store key (`namespace/name`, or `name`), or -1. */
  findKey(idOrKey: ResourceID | string): number {
    if (typeof idOrKey !== 'string') return this.find(idOrKey.namespace ?? '', idOrKey.name);
    const slash = idOrKey.indexOf('/');
    return slash < 0 ? this.find('', idOrKey) : this.find(idOrKey.slice(0, slash), idOrKey.slice(slash + 1));
  }

  /** The slot of the object, or -1 when there is no record of it. */
  find(namespace: string, name: string): number {
    const nsId = this.#namespaces.idOf(namespace);
    if (nsId === 0) return -1;
    const table = this.#table;
    const mask = table.length - 1;
    for (let cell = hashOf(nsId, name) & mask; ; cell = (cell + 1) & mask) {
      const entry = table[cell]!;
      if (entry === 0) return -1;
      const slot = entry - 1;
      const page = this.#pages[slot >> PAGE_BITS]!;
      const at = slot & PAGE_MASK;
      if (page.ns[at] === nsId && page.names[at] === name) return slot;
    }
  }

  /**
   * Records `meta` under its namespace and name (its own name string is kept), over any record
   * of the same object. Returns the slot.
   */
  put(meta: ObjectMeta & { readonly name: string }): number {
    const namespace = meta.namespace ?? '';
    let slot = this.find(namespace, meta.name);
    if (slot < 0) {
      if (this.#free.length === 0 && this.#freePages.length > 0) this.#reopen(this.#freePages.pop()!);
      slot = this.#free.pop() ?? this.#high++;
      if (slot >> PAGE_BITS === this.#pages.length) {
        this.#pages.push(new Page());
        this.#used.push(0);
      }
      this.#used[slot >> PAGE_BITS]!++;
      const page = this.#pages[slot >> PAGE_BITS]!;
      const at = slot & PAGE_MASK;
      const nsId = this.#namespaces.acquire(namespace, () => namespace);
      page.names[at] = meta.name;
      page.ns[at] = nsId;
      page.fin[at] = 0;
      page.stamp[at] = 0; // a new object: not reconciled yet (an update keeps its stamp)
      this.#size++;
      if (this.#size * 4 > this.#table.length * 3) this.#rehash(this.#table.length * 2);
      else this.#link(slot, nsId, meta.name);
    } else this.#clearFields(slot);
    this.#setFields(slot, meta);
    return slot;
  }

  /** Drops the record in `slot`. */
  remove(slot: number): void {
    const page = this.#pages[slot >> PAGE_BITS]!;
    const at = slot & PAGE_MASK;
    const name = page.names[at]!;
    const nsId = page.ns[at]!;
    this.#unlink(slot, nsId, name);
    this.#clearFields(slot);
    this.#namespaces.release(nsId);
    page.names[at] = undefined;
    this.#free.push(slot);
    this.#size--;
    if (--this.#used[slot >> PAGE_BITS]! === 0) this.#freePage(slot >> PAGE_BITS);
  }

  /** Pages held (each with at least one record): what the records cost is about 41 KB each. */
  get pagesHeld(): number {
    return this.#pages.length - this.#freePages.length;
  }

  /** Drops page `p`, whose last record went: its slots leave the free list. */
  #freePage(p: number): void {
    this.#pages[p] = undefined;
    const free = this.#free;
    let kept = 0;
    for (let i = 0; i < free.length; i++) if (free[i]! >> PAGE_BITS !== p) free[kept++] = free[i]!;
    free.length = kept;
    this.#freePages.push(p);
  }

  /** Makes freed page `p` again, its slots (those ever handed out) free. */
  #reopen(p: number): void {
    this.#pages[p] = new Page();
    const end = Math.min((p + 1) << PAGE_BITS, this.#high);
    for (let slot = end - 1; slot >= p << PAGE_BITS; slot--) this.#free.push(slot);
  }

  /** The resourceVersion of the record in `slot`, '' when it has none. */
  resourceVersionOf(slot: number): string {
    const rv = this.#pages[slot >> PAGE_BITS]!.rv[slot & PAGE_MASK]!;
    return rv >= 0 ? String(rv) : rv === RV_TEXT ? this.#rvText.get(slot)! : '';
  }

  nameOf(slot: number): string {
    return this.#pages[slot >> PAGE_BITS]!.names[slot & PAGE_MASK]!;
  }

  namespaceOf(slot: number): string {
    return this.#namespaces.value(this.#pages[slot >> PAGE_BITS]!.ns[slot & PAGE_MASK]!);
  }

  /** Every field of the record in `slot`; namespace left out when '' (cluster-scoped). */
  metaOf(slot: number): RecordMeta {
    const page = this.#pages[slot >> PAGE_BITS]!;
    const at = slot & PAGE_MASK;
    const namespace = this.#namespaces.value(page.ns[at]!);
    const resourceVersion = this.resourceVersionOf(slot);
    const flags = page.flags[at]!;
    const uid = flags & UID_NONE ? '' : flags & UID_TEXT ? this.#uidText.get(slot)! : uuidAt(page.uid, at * 4);
    const gen = page.gen[at]!;
    const generation = gen === GEN_NONE ? undefined : gen === GEN_OTHER ? this.#genOther.get(slot)! : gen;
    const fin = page.fin[at]!;
    return {
      name: page.names[at]!,
      ...(namespace !== '' ? { namespace } : {}),
      ...(resourceVersion !== '' ? { resourceVersion } : {}),
      ...(uid !== '' ? { uid } : {}),
      ...(generation !== undefined ? { generation } : {}),
      ...(fin !== 0 ? { finalizers: this.#finalizers.value(fin) } : {}),
    };
  }

  /** The reconcile stamp of the record in `slot` (0: none). */
  stampOf(slot: number): number {
    return this.#pages[slot >> PAGE_BITS]!.stamp[slot & PAGE_MASK]!;
  }

  /** Sets the reconcile stamp of the record in `slot` (kept over updates of the object). */
  setStamp(slot: number, tick: number): void {
    this.#pages[slot >> PAGE_BITS]!.stamp[slot & PAGE_MASK] = tick;
  }

  /** Slots below this may be in use: the range a walk by slot number covers. */
  get slotLimit(): number {
    return this.#high;
  }

  /** Whether `slot` (below {@link slotLimit}) holds a record. */
  inUse(slot: number): boolean {
    return this.#pages[slot >> PAGE_BITS]?.names[slot & PAGE_MASK] !== undefined;
  }

  /** Calls `f` with every slot in use; `f` may remove the slot it is given, nothing else. */
  forEach(f: (slot: number) => void): void {
    for (let slot = 0; slot < this.#high; slot++) {
      if (this.#pages[slot >> PAGE_BITS]?.names[slot & PAGE_MASK] !== undefined) f(slot);
    }
  }

  clear(): void {
    this.#pages.length = 0;
    this.#used.length = 0;
    this.#freePages.length = 0;
    this.#table = new Int32Array(16);
    this.#size = 0;
    this.#high = 0;
    this.#free.length = 0;
    this.#namespaces.clear();
    this.#finalizers.clear();
    this.#rvText.clear();
    this.#uidText.clear();
    this.#genOther.clear();
  }

  #setFields(slot: number, meta: ObjectMeta): void {
    const page = this.#pages[slot >> PAGE_BITS]!;
    const at = slot & PAGE_MASK;
    const rv = meta.resourceVersion;
    if (rv === undefined || rv === '') page.rv[at] = RV_NONE;
    else if (DECIMAL.test(rv) && Number.isSafeInteger(Number(rv))) page.rv[at] = Number(rv);
    else {
      page.rv[at] = RV_TEXT;
      this.#rvText.set(slot, rv);
    }
    const uid = meta.uid;
    if (uid === undefined || uid === '') page.flags[at] = UID_NONE;
    else if (parseUuid(uid, page.uid, at * 4)) page.flags[at] = 0;
    else {
      page.flags[at] = UID_TEXT;
      this.#uidText.set(slot, uid);
    }
    const generation = meta.generation;
    if (generation === undefined) page.gen[at] = GEN_NONE;
    else if (Number.isInteger(generation) && generation >= 0 && generation < GEN_OTHER) page.gen[at] = generation;
    else {
      page.gen[at] = GEN_OTHER;
      this.#genOther.set(slot, Number(generation));
    }
    const finalizers = meta.finalizers;
    if (finalizers !== undefined && finalizers.length > 0) {
      // A finalizer is a qualified name: it holds no NUL.
      page.fin[at] = this.#finalizers.acquire(finalizers.join('\0'), () => Object.freeze([...finalizers]));
    }
  }

  /** Releases what the fields of `slot` hold outside the page (not the name nor namespace). */
  #clearFields(slot: number): void {
    const page = this.#pages[slot >> PAGE_BITS]!;
    const at = slot & PAGE_MASK;
    if (page.rv[at] === RV_TEXT) this.#rvText.delete(slot);
    if (page.flags[at]! & UID_TEXT) this.#uidText.delete(slot);
    if (page.gen[at] === GEN_OTHER) this.#genOther.delete(slot);
    if (page.fin[at] !== 0) this.#finalizers.release(page.fin[at]!);
    page.fin[at] = 0;
  }

  #link(slot: number, nsId: number, name: string): void {
    const table = this.#table;
    const mask = table.length - 1;
    let cell = hashOf(nsId, name) & mask;
    while (table[cell] !== 0) cell = (cell + 1) & mask;
    table[cell] = slot + 1;
  }

  /** Removes `slot` from the table, shifting back the entries after it (no tombstones). */
  #unlink(slot: number, nsId: number, name: string): void {
    const table = this.#table;
    const mask = table.length - 1;
    let hole = hashOf(nsId, name) & mask;
    while (table[hole] !== slot + 1) hole = (hole + 1) & mask;
    table[hole] = 0;
    for (let cell = (hole + 1) & mask; table[cell] !== 0; cell = (cell + 1) & mask) {
      const other = table[cell]! - 1;
      const home = hashOf(this.#pages[other >> PAGE_BITS]!.ns[other & PAGE_MASK]!, this.nameOf(other)) & mask;
      // The entry may move into the hole unless its home lies cyclically in (hole, cell].
      const stays = hole <= cell ? hole < home && home <= cell : hole < home || home <= cell;
      if (stays) continue;
      table[hole] = table[cell]!;
      table[cell] = 0;
      hole = cell;
    }
  }

  #rehash(capacity: number): void {
    this.#table = new Int32Array(capacity);
    this.forEach((slot) => this.#link(slot, this.#pages[slot >> PAGE_BITS]!.ns[slot & PAGE_MASK]!, this.nameOf(slot)));
  }
}

/**
 * Writes `uid` into four words from `from` when it is a lowercase UUID (one pass, no regular
 * expression nor substring: this runs for every event); false when it is not (the words are then
 * meaningless).
 */
function parseUuid(uid: string, words: Uint32Array, from: number): boolean {
  if (uid.length !== 36) return false;
  let word = 0;
  let digits = 0;
  for (let i = 0; i < 36; i++) {
    const c = uid.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 0x2d) return false; // '-'
      continue;
    }
    const digit = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : -1;
    if (digit < 0) return false;
    word = (word << 4) | digit;
    if (++digits % 8 === 0) words[from + digits / 8 - 1] = word >>> 0;
  }
  return true;
}

/** The UUID held in four words from `from`, in its lowercase text form. */
function uuidAt(words: Uint32Array, from: number): string {
  let hex = '';
  for (let w = 0; w < 4; w++) hex += words[from + w]!.toString(16).padStart(8, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
