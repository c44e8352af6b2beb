/**
 * The reverse-index stage: which secondary resources each primary has, kept from the
 * secondary-to-primary mapper's results (JOSDK's PrimaryToSecondaryIndex).
 *
 * An event source owns one {@link PrimaryToSecondaryIndex} per secondary cache when it has no
 * {@link PrimaryToSecondaryMapper}: it seeds it from the cache at start, feeds it every event
 * after the store applied it, and enqueues the primaries each call returns.
 *
 * @module
 */
import { Observable, Subject } from 'rxjs';
import type { KubernetesObject } from '../resource/kubernetes-object.js';
import { ResourceID } from '../resource/resource-id.js';
import { UNRECORDED, UndoLog, type UndoView } from '../snapshot/undo-log.js';
import { bucketForEach, bucketWith, bucketWithout, type KeyBucket } from '../store/internal/key-bucket.js';
import { MapperError } from './mapper-error.js';
import { inputsEqualOf, type SecondaryToPrimaryMapper } from './mappers.js';

/**
 * Which primaries one call touched: enqueue `newPrimaries ∪ oldPrimaries`.
 *
 * @example
 * ```ts
 * import { PrimaryToSecondaryIndex, ResourceID, type KubernetesObject, type ReverseIndexUpdate } from '@kindex/core';
 * declare const changed: KubernetesObject;
 * const index = new PrimaryToSecondaryIndex({ toPrimaryIds: (cm) => [ResourceID.of(cm.metadata!.labels!['app']!, cm.metadata!.namespace)] });
 *
 * // A secondary that moved from one primary to another must reconcile both.
 * const update: ReverseIndexUpdate = index.onAddOrUpdate(changed);
 * const toReconcile = [...update.newPrimaries, ...update.oldPrimaries];
 * ```
 */
export interface ReverseIndexUpdate {
  /** The primaries the secondary is indexed under after the call (P_new). */
  readonly newPrimaries: readonly ResourceID[];
  /** The primaries it was indexed under before the call (P_old); for a delete, the ones it left. */
  readonly oldPrimaries: readonly ResourceID[];
}

/**
 * Options of {@link PrimaryToSecondaryIndex}.
 *
 * @example
 * ```ts
 * import { PrimaryToSecondaryIndex, ResourceID, type PrimaryToSecondaryIndexOptions } from '@kindex/core';
 *
 * const options: PrimaryToSecondaryIndexOptions = {
 *   toPrimaryIds: (secret) => {
 *     const owner = secret.metadata?.annotations?.['example.com/database'];
 *     return owner ? [ResourceID.of(owner, secret.metadata?.namespace)] : [];
 *   },
 * };
 * const index = new PrimaryToSecondaryIndex(options);
 * ```
 */
export interface PrimaryToSecondaryIndexOptions<S extends KubernetesObject = KubernetesObject> {
  /** The mapper whose results the index records. Required. */
  toPrimaryIds: SecondaryToPrimaryMapper<S>;
  /**
   * When two versions of a secondary map alike without calling the mapper (see
   * `withInputsEqual`, which mappers can carry themselves). Defaults to the mapper's own, else
   * none (the mapper runs on every event).
   */
  mapperInputsEqual?: (a: S, b: S) => boolean;
}

/** The primaries a secondary is filed under: one interned ID bare (the usual owner), a frozen array beyond. */
type PrimaryRefs = ResourceID | readonly ResourceID[];

/** The live content, shared by the index and its snapshots. */
class IndexContent {
  /** Secondary key -> the primaries it is filed under. */
  readonly forward = new Map<string, PrimaryRefs>();
  /** Primary key -> its interned ID and the keys of its secondaries. */
  readonly reverse = new Map<string, { readonly id: ResourceID; secondaries: KeyBucket }>();
  /** Secondary key -> its refs before a write, for the snapshots open at the time. */
  readonly log = new UndoLog<string, PrimaryRefs>();
}

/**
 * A never-changing view of a {@link PrimaryToSecondaryIndex}. O(1) to take; take it together
 * with the secondary store's `snapshot()` (synchronously, between two events) for one consistent
 * view of both, and `release()` both when done (unreleased ones are released when collected).
 *
 * @example
 * ```ts
 * import { PrimaryToSecondaryIndex, ResourceID, type ReverseIndexSnapshot } from '@kindex/core';
 * const index = new PrimaryToSecondaryIndex({ toPrimaryIds: (cm) => [ResourceID.of(cm.metadata!.labels!['app']!, cm.metadata!.namespace)] });
 *
 * const view: ReverseIndexSnapshot = index.snapshot();
 * const configMapKeys = view.secondaryKeys(ResourceID.of('web', 'shop'));
 * view.release();
 * ```
 */
export class ReverseIndexSnapshot {
  /** Number of primaries with at least one secondary. */
  readonly primaryCount: number;
  /** Number of secondaries indexed under at least one primary. */
  readonly secondaryCount: number;
  readonly #content: IndexContent;
  readonly #view: UndoView<string, PrimaryRefs>;

  /** @internal Built by PrimaryToSecondaryIndex only. */
  constructor(content: IndexContent) {
    this.#content = content;
    this.primaryCount = content.reverse.size;
    this.secondaryCount = content.forward.size;
    this.#view = content.log.open(this);
  }

  /** Ends the view: the index stops keeping old entries for it. Reads afterwards throw. Idempotent. */
  release(): void {
    this.#view.release();
  }

  /** Keys of the secondaries indexed under a primary. O(secondaries + changes since the snapshot). */
  secondaryKeys(primary: ResourceID | string): ReadonlySet<string> {
    const out = new Set<string>();
    this.forEachSecondaryKey(typeof primary === 'string' ? primary : primary.key, (key) => out.add(key));
    return out;
  }

  /** Calls `fn` with the key of each secondary indexed under a primary (no Set built). */
  forEachSecondaryKey(primaryKey: string, fn: (secondaryKey: string) => void): void {
    const view = this.#view;
    bucketForEach(this.#content.reverse.get(primaryKey)?.secondaries, (key) => {
      if (view.valueAt(key) === UNRECORDED) fn(key);
    });
    view.forEachChanged((key, then) => {
      if (then !== undefined && refsInclude(then, primaryKey)) fn(key);
    });
  }

  /** Keys of the primaries a secondary is indexed under (the mapper's last good result). */
  primaryKeys(secondary: ResourceID | string): ReadonlySet<string> {
    const key = typeof secondary === 'string' ? secondary : secondary.key;
    const then = this.#view.valueAt(key);
    return keySet(then === UNRECORDED ? this.#content.forward.get(key) : then);
  }
}

const NONE: readonly ResourceID[] = Object.freeze([]);

/**
 * The reverse index from primary to secondary resources, maintained from a
 * {@link SecondaryToPrimaryMapper}.
 *
 * Semantics (JOSDK InformerEventSource, REFERENCE.md section 1): on add or update of a secondary
 * S, with `P_new = toPrimaryIds(S)` and `P_old` the primaries S was indexed under, S is added
 * under every `P_new` and removed from every `P_old - P_new` (empty keys dropped); the caller
 * enqueues `P_new ∪ P_old`, so when a reference moves both primaries are reconciled. On delete,
 * S leaves every primary it was under.
 *
 * Better than JOSDK under faults: the index remembers what each secondary mapped to (one
 * entry per secondary), so it never re-runs the mapper on an old version. A delete therefore
 * always cleans up, even when the mapper would now throw, and the mapper runs at most once per
 * event: not at all when the mapper's inputs did not change (`mapperInputsEqual`). When the
 * mapper throws (or returns something other than ResourceIDs) for an update, the secondary
 * keeps its previous entries (nothing is lost), the failure is reported on `errors$` with the
 * object's key, and the call returns its previous primaries as both P_new and P_old.
 *
 * Lean: plain mutable Maps (one entry per secondary, one per primary with its interned ID, the
 * secondary's key string shared by both sides); `snapshot()` is O(1) through an undo log that
 * keeps old entries only while a snapshot is open.
 *
 * @example
 * ```ts
 * import { PrimaryToSecondaryIndex, ResourceID, WorkQueue, type KubernetesObject, type StoreReader } from '@kindex/core';
 * type ConfigMap = KubernetesObject;
 * declare function ownerIds(configMap: ConfigMap): ResourceID[];
 * declare const configMaps: StoreReader<ConfigMap>;
 * declare const changedConfigMap: ConfigMap;
 * declare const queue: WorkQueue;
 * declare const webPageId: ResourceID;
 * const index = new PrimaryToSecondaryIndex<ConfigMap>({ toPrimaryIds: (cm) => ownerIds(cm) });
 * index.seed(configMaps.list()); // at start, before the first reconcile (JOSDK bug #2869)
 * const { newPrimaries, oldPrimaries } = index.onAddOrUpdate(changedConfigMap);
 * for (const id of [...newPrimaries, ...oldPrimaries]) queue.add(id.key);
 * index.secondaryKeys(webPageId); // keys to resolve in the ConfigMap store
 * ```
 */
export class PrimaryToSecondaryIndex<S extends KubernetesObject = KubernetesObject> {
  readonly #toPrimaryIds: SecondaryToPrimaryMapper<S>;
  readonly #inputsEqual: ((a: S, b: S) => boolean) | undefined;
  readonly #errors = new Subject<MapperError>();
  readonly #content = new IndexContent();

  /** Mapper failures the index reported and moved past. Hot: subscribe before feeding it. */
  readonly errors$: Observable<MapperError> = this.#errors.asObservable();

  constructor(options: PrimaryToSecondaryIndexOptions<S>) {
    this.#toPrimaryIds = options.toPrimaryIds;
    this.#inputsEqual = options.mapperInputsEqual ?? inputsEqualOf(options.toPrimaryIds);
  }

  /** The current content as a snapshot that never changes. O(1); `release()` it when done. */
  snapshot(): ReverseIndexSnapshot {
    return new ReverseIndexSnapshot(this.#content);
  }

  /** Snapshots taken and not yet released (nor collected). */
  get openSnapshots(): number {
    return this.#content.log.openCount;
  }

  /** Number of primaries with at least one secondary. */
  get primaryCount(): number {
    return this.#content.reverse.size;
  }

  /** Number of secondaries indexed under at least one primary. */
  get secondaryCount(): number {
    return this.#content.forward.size;
  }

  /** Keys of the secondaries indexed under a primary. O(secondaries). */
  secondaryKeys(primary: ResourceID | string): ReadonlySet<string> {
    const out = new Set<string>();
    bucketForEach(this.#content.reverse.get(typeof primary === 'string' ? primary : primary.key)?.secondaries, (key) => out.add(key));
    return out;
  }

  /** Calls `fn` with the key of each secondary indexed under a primary: the lookup path, no Set built. */
  forEachSecondaryKey(primaryKey: string, fn: (secondaryKey: string) => void): void {
    bucketForEach(this.#content.reverse.get(primaryKey)?.secondaries, fn);
  }

  /** Keys of the primaries a secondary is indexed under. */
  primaryKeys(secondary: ResourceID | string): ReadonlySet<string> {
    return keySet(this.#content.forward.get(typeof secondary === 'string' ? secondary : secondary.key));
  }

  /**
   * Replaces the whole content with the mapping of these secondaries (the cache's content at
   * start, or after a cache was rebuilt), in one pass. Mapper failures are reported and leave
   * that secondary unindexed.
   */
  seed(secondaries: Iterable<S>): void {
    this.clear();
    for (const secondary of secondaries) {
      const key = this.#keyOf(secondary);
      if (key === undefined) continue;
      const mapped = this.#map(secondary, key);
      if (mapped !== undefined && mapped.length > 0) this.#file(key, undefined, this.#intern(mapped));
    }
  }

  /**
   * Records a created or updated secondary. O(primaries of S). With `old` (the version it
   * replaces) and a mapper whose inputs did not change, the mapper is not called.
   * @returns P_new and P_old; enqueue both.
   */
  onAddOrUpdate(secondary: S, old?: S): ReverseIndexUpdate {
    const key = this.#keyOf(secondary);
    if (key === undefined) return { newPrimaries: NONE, oldPrimaries: NONE };
    const before = this.#content.forward.get(key);
    if (before !== undefined && old !== undefined && this.#inputsEqual !== undefined && this.#sameInputs(old, secondary)) {
      const same = refsArray(before);
      return { newPrimaries: same, oldPrimaries: same };
    }
    const mapped = this.#map(secondary, key);
    if (mapped === undefined) {
      const previous = refsArray(before);
      return { newPrimaries: previous, oldPrimaries: previous };
    }
    const after = mapped.length === 0 ? undefined : this.#intern(mapped);
    if (sameRefs(before, after)) {
      // The common update (a MODIFIED event that keeps its references): nothing to write.
      const same = refsArray(before);
      return { newPrimaries: same, oldPrimaries: same };
    }
    this.#file(key, before, after);
    return { newPrimaries: refsArray(after), oldPrimaries: refsArray(before) };
  }

  /**
   * Forgets a deleted secondary; tolerates one it never saw. Does not call the mapper unless the
   * secondary was never recorded (then its mapping is only used for the result).
   * @returns the primaries it was indexed under, as `oldPrimaries`; enqueue them.
   */
  onDelete(secondary: S | ResourceID): ReverseIndexUpdate {
    const key = secondary instanceof ResourceID ? secondary.key : this.#keyOf(secondary);
    if (key === undefined) return { newPrimaries: NONE, oldPrimaries: NONE };
    const before = this.#content.forward.get(key);
    if (before === undefined) {
      // Never recorded (say, the index was not seeded): still tell the caller whom it concerned.
      const mapped = secondary instanceof ResourceID ? undefined : this.#map(secondary, key);
      return { newPrimaries: NONE, oldPrimaries: mapped ?? NONE };
    }
    this.#file(key, before, undefined);
    return { newPrimaries: NONE, oldPrimaries: refsArray(before) };
  }

  /** Forgets everything. */
  clear(): void {
    const content = this.#content;
    if (content.log.recording) for (const [key, refs] of content.forward) content.log.recordBeforeWrite(key, refs);
    content.forward.clear();
    content.reverse.clear();
  }

  #sameInputs(old: S, secondary: S): boolean {
    try {
      return this.#inputsEqual!(old, secondary);
    } catch {
      return false; // a failing comparison only costs a mapper call
    }
  }

  /** Moves a secondary's entries from `before` to `after` (undefined: none). */
  #file(key: string, before: PrimaryRefs | undefined, after: PrimaryRefs | undefined): void {
    const content = this.#content;
    if (content.log.recording) content.log.recordBeforeWrite(key, before);
    if (after === undefined) content.forward.delete(key);
    else content.forward.set(key, after);
    forEachRef(before, (id) => {
      if (refsInclude(after, id.key)) return;
      const entry = content.reverse.get(id.key);
      if (entry === undefined) return;
      const rest = bucketWithout(entry.secondaries, key);
      if (rest === undefined) content.reverse.delete(id.key);
      else entry.secondaries = rest;
    });
    forEachRef(after, (id) => {
      if (refsInclude(before, id.key)) return;
      const entry = content.reverse.get(id.key);
      if (entry === undefined) content.reverse.set(id.key, { id, secondaries: key });
      else entry.secondaries = bucketWith(entry.secondaries, key);
    });
  }

  /** The mapper's IDs as refs, reusing each primary's interned ID (one ResourceID per primary, shared by all its secondaries). */
  #intern(mapped: readonly ResourceID[]): PrimaryRefs {
    const reverse = this.#content.reverse;
    if (mapped.length === 1) return reverse.get(mapped[0]!.key)?.id ?? mapped[0]!;
    return Object.freeze(mapped.map((id) => reverse.get(id.key)?.id ?? id));
  }

  #keyOf(secondary: S): string | undefined {
    try {
      return ResourceID.keyOfResource(secondary);
    } catch (cause) {
      this.#errors.next(new MapperError(undefined, 'secondary has no valid metadata.name', { cause }));
      return undefined;
    }
  }

  /** The mapper's result deduplicated by key, or undefined after reporting a failure. */
  #map(secondary: S, key: string): ResourceID[] | undefined {
    let result: Iterable<ResourceID>;
    try {
      result = this.#toPrimaryIds(secondary);
      if (result === null || typeof (result as Partial<Iterable<unknown>>)[Symbol.iterator] !== 'function') {
        this.#errors.next(
          new MapperError(key, `mapper returned ${result === null ? 'null' : typeof result}, not an iterable of ResourceIDs`),
        );
        return undefined;
      }
      const out: ResourceID[] = [];
      for (const id of result) {
        if (!(id instanceof ResourceID)) {
          this.#errors.next(new MapperError(key, `mapper returned ${id === null ? 'null' : typeof id} among its ResourceIDs`));
          return undefined;
        }
        if (!out.some((seen) => seen.key === id.key)) out.push(id);
      }
      return out;
    } catch (cause) {
      this.#errors.next(new MapperError(key, 'mapper threw', { cause }));
      return undefined;
    }
  }
}

function forEachRef(refs: PrimaryRefs | undefined, fn: (id: ResourceID) => void): void {
  if (refs === undefined) return;
  if (refs instanceof ResourceID) fn(refs);
  else for (const id of refs) fn(id);
}

function refsInclude(refs: PrimaryRefs | undefined, primaryKey: string): boolean {
  if (refs === undefined) return false;
  if (refs instanceof ResourceID) return refs.key === primaryKey;
  return refs.some((id) => id.key === primaryKey);
}

function refsArray(refs: PrimaryRefs | undefined): readonly ResourceID[] {
  return refs === undefined ? NONE : refs instanceof ResourceID ? [refs] : refs;
}

function sameRefs(a: PrimaryRefs | undefined, b: PrimaryRefs | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  const left = refsArray(a);
  const right = refsArray(b);
  return left.length === right.length && left.every((id) => refsInclude(b, id.key));
}

function keySet(refs: PrimaryRefs | undefined): ReadonlySet<string> {
  const out = new Set<string>();
  forEachRef(refs, (id) => out.add(id.key));
  return out;
}
