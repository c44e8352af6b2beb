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
import { namedMetadataOf, type NamedMetadata } from '../resource/named-metadata.js';
import { ResourceID } from '../resource/resource-id.js';
import { UNRECORDED, type UndoView } from '../snapshot/undo-log.js';
import { IndexContent, keyOfCell, type PrimaryRefs, type SecondaryCell } from './internal/index-content.js';
import { distinctIds, keySet, refsInclude, sameRefs } from './internal/primary-refs.js';
import { bucketForEach, bucketWith, bucketWithout } from '../internal/key-bucket.js';
import { MapperError } from './mapper-error.js';
import { inputsEqualOf, type SecondaryToPrimaryMapper } from './mappers.js';
import Type from 'typebox';
import { defineOptions } from '../options/define-options.js';

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

/** {@link PrimaryToSecondaryIndexOptions}' keys and value checks. */
const PRIMARY_TO_SECONDARY_INDEX_OPTIONS = defineOptions<PrimaryToSecondaryIndexOptions>('PrimaryToSecondaryIndex options', {
  toPrimaryIds: Type.Function([Type.Unknown()], Type.Unknown(), {
    description: "a function of a secondary returning its primaries' ResourceIDs",
  }),
  mapperInputsEqual: Type.Optional(
    Type.Function([Type.Unknown(), Type.Unknown()], Type.Boolean(), { description: 'a function of two secondaries returning a boolean' }),
  ),
});

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
    this.secondaryCount = content.secondaryCount;
    this.#view = content.log.open(this);
  }

  /** Ends the view: the index stops keeping old entries for it. Reads afterwards throw. Idempotent. */
  release(): void {
    this.#view.release();
  }

  /**
   * Whether the index changed since this snapshot was taken; while not, the index's current
   * answers (`secondariesOf` included) are this snapshot's.
   * @throws {ReleasedSnapshotError} after `release()`.
   */
  get hasChanged(): boolean {
    return this.#view.changed;
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
    bucketForEach(this.#content.reverse.get(primaryKey)?.secondaries, (cell) => {
      const key = keyOfCell(cell);
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
    return keySet(then === UNRECORDED ? this.#content.refsOf(key) : then);
  }
}

const NONE: readonly ResourceID[] = Object.freeze([]);
const NOTHING: ReverseIndexUpdate = Object.freeze({ newPrimaries: NONE, oldPrimaries: NONE });

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
 * Lean: plain mutable Maps (one cell per secondary, holding its primaries and its latest version,
 * shared by both sides; one entry per primary with its interned ID), so `secondariesOf` is one
 * probe and one load per secondary; `snapshot()` is O(1) through an undo log that keeps old
 * entries only while a snapshot is open.
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
    PRIMARY_TO_SECONDARY_INDEX_OPTIONS.check(options);
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
    return this.#content.secondaryCount;
  }

  /** Keys of the secondaries indexed under a primary. O(secondaries). */
  secondaryKeys(primary: ResourceID | string): ReadonlySet<string> {
    const out = new Set<string>();
    this.forEachSecondaryKey(typeof primary === 'string' ? primary : primary.key, (key) => out.add(key));
    return out;
  }

  /** Calls `fn` with the key of each secondary indexed under a primary: the lookup path, no Set built. */
  forEachSecondaryKey(primaryKey: string, fn: (secondaryKey: string) => void): void {
    bucketForEach(this.#content.reverse.get(primaryKey)?.secondaries, (cell) => fn(keyOfCell(cell)));
  }

  /** Keys of the primaries a secondary is indexed under. */
  primaryKeys(secondary: ResourceID | string): ReadonlySet<string> {
    return keySet(this.#content.refsOf(typeof secondary === 'string' ? secondary : secondary.key));
  }

  /**
   * The secondaries indexed under a primary, each as the version last given to the index
   * (`onAddOrUpdate`, `seed`): the live lookup path, read from the index alone, with no key to
   * resolve in a store. O(secondaries), a new array per call.
   *
   * Caveats: the versions are the store's only while the caller feeds the index every object the
   * store wrote (mapper failures included), right after the write, as an event source does from
   * its cache's deltas. Snapshots hand out keys (`forEachSecondaryKey`), read in a store snapshot.
   *
   * @example
   * ```ts
   * import { PrimaryToSecondaryIndex, ResourceID, type KubernetesObject } from '@kindex/core';
   * declare const configMap: KubernetesObject;
   * const index = new PrimaryToSecondaryIndex({ toPrimaryIds: (cm) => [ResourceID.of(cm.metadata!.labels!['app']!, cm.metadata!.namespace)] });
   * index.onAddOrUpdate(configMap); // after the store stored it
   *
   * const ofWeb: KubernetesObject[] = index.secondariesOf('shop/web');
   * ```
   */
  secondariesOf(primary: ResourceID | string): S[] {
    const out: S[] = [];
    const reverse = this.#content.reverse;
    const entry = typeof primary === 'string' ? reverse.get(primary) : reverse.getOf(primary);
    if (entry !== undefined) bucketForEach(entry.secondaries, (cell) => out.push(cell.object as S));
    return out;
  }

  /**
   * Replaces the whole content with the mapping of these secondaries (the cache's content at
   * start, or after a cache was rebuilt), in one pass. Mapper failures are reported and leave
   * that secondary unindexed.
   */
  seed(secondaries: Iterable<S>): void {
    this.clear();
    for (const secondary of secondaries) {
      const meta = this.#metadataOf(secondary);
      if (meta === undefined) continue;
      const namespace = meta.namespace ?? '';
      const mapped = this.#map(secondary, meta);
      if (mapped !== undefined && mapped.length > 0) {
        this.#file(namespace, meta.name, this.#content.forward.get(namespace)?.get(meta.name), secondary, this.#intern(mapped));
      }
    }
  }

  /**
   * Records a created or updated secondary. O(primaries of S). With `old` (the version it
   * replaces) and a mapper whose inputs did not change, the mapper is not called and nothing is
   * allocated but the answer.
   * @returns P_new and P_old; enqueue both.
   */
  onAddOrUpdate(secondary: S, old?: S): ReverseIndexUpdate {
    const meta = this.#metadataOf(secondary);
    if (meta === undefined) return NOTHING;
    const namespace = meta.namespace ?? '';
    const byName = this.#content.forward.get(namespace);
    const cell = byName?.get(meta.name);
    // The store holds this version now, whatever the mapper says of it: lookups must see it.
    if (cell !== undefined) cell.object = secondary as SecondaryCell['object'];
    const before = cell?.refs;
    if (before !== undefined && old !== undefined && this.#inputsEqual !== undefined && this.#sameInputs(old, secondary)) {
      return { newPrimaries: before, oldPrimaries: before };
    }
    const mapped = this.#map(secondary, meta);
    if (mapped === undefined) return { newPrimaries: before ?? NONE, oldPrimaries: before ?? NONE };
    if (cell === undefined && mapped.length === 1) return this.#addUnderOne(namespace, byName, meta.name, secondary, mapped[0]!);
    const after = mapped.length === 0 ? undefined : this.#intern(mapped);
    if (sameRefs(before, after)) {
      // The common update (a MODIFIED event that keeps its references): nothing to write.
      return { newPrimaries: before ?? NONE, oldPrimaries: before ?? NONE };
    }
    this.#file(namespace, meta.name, cell, secondary, after);
    return { newPrimaries: after ?? NONE, oldPrimaries: before ?? NONE };
  }

  /**
   * Forgets a deleted secondary; tolerates one it never saw. Does not call the mapper unless the
   * secondary was never recorded (then its mapping is only used for the result).
   * @returns the primaries it was indexed under, as `oldPrimaries`; enqueue them.
   */
  onDelete(secondary: S | ResourceID): ReverseIndexUpdate {
    let meta: NamedMetadata | undefined;
    if (secondary instanceof ResourceID) meta = secondary;
    else if ((meta = this.#metadataOf(secondary)) === undefined) return NOTHING;
    const namespace = meta.namespace ?? '';
    const cell = this.#content.forward.get(namespace)?.get(meta.name);
    if (cell === undefined) {
      // Never recorded (say, the index was not seeded): still tell the caller whom it concerned.
      const mapped = secondary instanceof ResourceID ? undefined : this.#map(secondary, meta);
      return { newPrimaries: NONE, oldPrimaries: mapped ?? NONE };
    }
    const before = cell.refs;
    this.#file(namespace, meta.name, cell, undefined, undefined);
    return { newPrimaries: NONE, oldPrimaries: before };
  }

  /** Forgets everything. */
  clear(): void {
    const content = this.#content;
    if (content.log.recording) {
      for (const byName of content.forward.values()) {
        for (const cell of byName.values()) content.log.recordBeforeWrite(keyOfCell(cell), cell.refs);
      }
    }
    content.forward.clear();
    content.reverse.clear();
    content.secondaryCount = 0;
  }

  #sameInputs(old: S, secondary: S): boolean {
    try {
      return this.#inputsEqual!(old, secondary);
    } catch {
      return false; // a failing comparison only costs a mapper call
    }
  }

  /**
   * Moves a secondary from the primaries of its cell (none without one) to `after` (undefined:
   * none, and the cell goes); a new cell holds `object`.
   */
  #file(namespace: string, name: string, cell: SecondaryCell | undefined, object: S | undefined, after: PrimaryRefs | undefined): void {
    const content = this.#content;
    const before = cell?.refs;
    // The key string only for open snapshots: an event builds none otherwise.
    if (content.log.recording) content.log.recordBeforeWrite(ResourceID.keyOf(name, namespace), before);
    let byName = content.forward.get(namespace);
    if (after === undefined) {
      if (byName?.delete(name) === true) {
        content.secondaryCount--;
        if (byName.size === 0) content.forward.delete(namespace);
      }
    } else if (cell === undefined) {
      if (byName === undefined) content.forward.set(namespace, (byName = new Map<string, SecondaryCell>()));
      content.secondaryCount++;
      byName.set(name, (cell = { refs: after, object: object as SecondaryCell['object'] }));
    } else {
      cell.refs = after;
      if (object !== undefined) cell.object = object as SecondaryCell['object'];
    }
    for (const id of before ?? NONE) {
      if (refsInclude(after, id.key)) continue;
      const entry = content.reverse.getOf(id);
      if (entry === undefined) continue;
      const rest = bucketWithout(entry.secondaries, cell!);
      if (rest === undefined) content.reverse.delete(id);
      else entry.secondaries = rest;
    }
    for (const id of after ?? NONE) {
      if (refsInclude(before, id.key)) continue;
      const entry = content.reverse.getOf(id);
      if (entry === undefined) {
        content.reverse.add({ id, alone: after!.length === 1 ? after! : Object.freeze([id]), secondaries: cell! });
      } else entry.secondaries = bucketWith(entry.secondaries, cell!);
    }
  }

  /**
   * Files a new secondary under its one primary: the initial sync's path (every object of a list
   * is new, and the usual one has one owner). One probe of each table, where `#intern` then
   * `#file` probe the primary's entry twice and the namespace's table twice.
   */
  #addUnderOne(
    namespace: string,
    byName: Map<string, SecondaryCell> | undefined,
    name: string,
    object: S,
    id: ResourceID,
  ): ReverseIndexUpdate {
    const content = this.#content;
    if (content.log.recording) content.log.recordBeforeWrite(ResourceID.keyOf(name, namespace), undefined);
    const entry = content.reverse.getOf(id);
    const refs = entry?.alone ?? Object.freeze([id]);
    const cell: SecondaryCell = { refs, object: object as SecondaryCell['object'] };
    if (entry === undefined) content.reverse.add({ id, alone: refs, secondaries: cell });
    else entry.secondaries = bucketWith(entry.secondaries, cell);
    if (byName === undefined) content.forward.set(namespace, (byName = new Map<string, SecondaryCell>()));
    byName.set(name, cell);
    content.secondaryCount++;
    return { newPrimaries: refs, oldPrimaries: NONE };
  }

  /** The mapper's IDs as refs, reusing each primary's interned ID and one-primary array. */
  #intern(mapped: readonly ResourceID[]): PrimaryRefs {
    const reverse = this.#content.reverse;
    if (mapped.length === 1) return reverse.getOf(mapped[0]!)?.alone ?? Object.freeze([mapped[0]!]);
    return Object.freeze(mapped.map((id) => reverse.getOf(id)?.id ?? id));
  }

  /** The secondary's metadata when it names the secondary, else undefined after reporting it. */
  #metadataOf(secondary: S): NamedMetadata | undefined {
    const meta = namedMetadataOf(secondary);
    if (meta !== undefined) return meta;
    try {
      ResourceID.fromResource(secondary); // throws the error naming the field
    } catch (cause) {
      this.#errors.next(new MapperError(undefined, 'secondary has no valid metadata.name', { cause }));
    }
    return undefined;
  }

  /**
   * The mapper's result deduplicated by key (read-only: it may be the mapper's own array), or
   * undefined after reporting a failure. The secondary's key string is built for a report only.
   */
  #map(secondary: S, meta: NamedMetadata): readonly ResourceID[] | undefined {
    let result: Iterable<ResourceID>;
    try {
      result = this.#toPrimaryIds(secondary);
      if (result === null || typeof (result as Partial<Iterable<unknown>>)[Symbol.iterator] !== 'function') {
        this.#report(meta, `mapper returned ${result === null ? 'null' : typeof result}, not an iterable of ResourceIDs`);
        return undefined;
      }
      // The usual mapper returns an array of distinct IDs: read it in place, no copy per event.
      if (Array.isArray(result) && distinctIds(result as unknown[])) return result as readonly ResourceID[];
      const out: ResourceID[] = [];
      for (const id of result) {
        if (!(id instanceof ResourceID)) {
          this.#report(meta, `mapper returned ${id === null ? 'null' : typeof id} among its ResourceIDs`);
          return undefined;
        }
        if (!out.some((seen) => seen.key === id.key)) out.push(id);
      }
      return out;
    } catch (cause) {
      this.#report(meta, 'mapper threw', cause);
      return undefined;
    }
  }

  #report(meta: NamedMetadata, message: string, cause?: unknown): void {
    const key = ResourceID.keyOf(meta.name, meta.namespace);
    this.#errors.next(new MapperError(key, message, cause === undefined ? undefined : { cause }));
  }
}
