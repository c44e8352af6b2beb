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
import { Map as IMap } from 'immutable';
import { Observable, Subject } from 'rxjs';
import type { KubernetesObject } from '../resource/kubernetes-object.js';
import { ResourceID } from '../resource/resource-id.js';
import {
  bucketArray,
  bucketOf,
  bucketSet,
  multimapAdd,
  multimapRemove,
  type Bucket,
  type StringMultimap,
} from '../store/internal/string-multimap.js';
import { MapperError } from './mapper-error.js';
import type { SecondaryToPrimaryMapper } from './mappers.js';

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
}

/**
 * A never-changing view of a {@link PrimaryToSecondaryIndex}. O(1) to take; take it together
 * with the secondary store's `snapshot()` (synchronously, between two events) for one consistent
 * view of both.
 *
 * @example
 * ```ts
 * import { PrimaryToSecondaryIndex, ResourceID, type ReverseIndexSnapshot } from '@kindex/core';
 * const index = new PrimaryToSecondaryIndex({ toPrimaryIds: (cm) => [ResourceID.of(cm.metadata!.labels!['app']!, cm.metadata!.namespace)] });
 *
 * const view: ReverseIndexSnapshot = index.snapshot();
 * const configMapKeys = view.secondaryKeys(ResourceID.of('web', 'shop'));
 * ```
 */
export class ReverseIndexSnapshot {
  /** @internal primary key -> secondary keys */
  readonly reverse: StringMultimap;
  /** @internal secondary key -> primary keys */
  readonly forward: StringMultimap;

  /** @internal Built by PrimaryToSecondaryIndex only. */
  constructor(reverse: StringMultimap, forward: StringMultimap) {
    this.reverse = reverse;
    this.forward = forward;
  }

  /** Keys of the secondaries indexed under a primary. O(1). */
  secondaryKeys(primary: ResourceID | string): ReadonlySet<string> {
    return bucketSet(this.reverse.get(typeof primary === 'string' ? primary : primary.key));
  }

  /** Keys of the primaries a secondary is indexed under (the mapper's last good result). O(1). */
  primaryKeys(secondary: ResourceID | string): ReadonlySet<string> {
    return bucketSet(this.forward.get(typeof secondary === 'string' ? secondary : secondary.key));
  }

  /** Number of primaries with at least one secondary. */
  get primaryCount(): number {
    return this.reverse.size;
  }

  /** Number of secondaries indexed under at least one primary. */
  get secondaryCount(): number {
    return this.forward.size;
  }
}

const EMPTY = new ReverseIndexSnapshot(IMap(), IMap());
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
 * always cleans up, even when the mapper would now throw, and the mapper runs once per event.
 * When the mapper throws (or returns something other than ResourceIDs) for an update, the
 * secondary keeps its previous entries (nothing is lost), the failure is reported on `errors$`
 * with the object's key, and the call returns its previous primaries as both P_new and P_old.
 *
 * Persistent (immutable.js) like {@link IndexedStore}: `snapshot()` is O(1).
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
  readonly #errors = new Subject<MapperError>();
  #state: ReverseIndexSnapshot = EMPTY;

  /** Mapper failures the index reported and moved past. Hot: subscribe before feeding it. */
  readonly errors$: Observable<MapperError> = this.#errors.asObservable();

  constructor(options: PrimaryToSecondaryIndexOptions<S>) {
    this.#toPrimaryIds = options.toPrimaryIds;
  }

  /** The current content as a snapshot that never changes. O(1). */
  snapshot(): ReverseIndexSnapshot {
    return this.#state;
  }

  /** Keys of the secondaries indexed under a primary. O(1). */
  secondaryKeys(primary: ResourceID | string): ReadonlySet<string> {
    return this.#state.secondaryKeys(primary);
  }

  /** Keys of the primaries a secondary is indexed under. O(1). */
  primaryKeys(secondary: ResourceID | string): ReadonlySet<string> {
    return this.#state.primaryKeys(secondary);
  }

  /**
   * Replaces the whole content with the mapping of these secondaries (the cache's content at
   * start, or after a cache was rebuilt), in one batch. Mapper failures are reported and leave
   * that secondary unindexed.
   */
  seed(secondaries: Iterable<S>): void {
    let reverse: StringMultimap = IMap<string, Bucket>().asMutable();
    let forward: StringMultimap = IMap<string, Bucket>().asMutable();
    for (const secondary of secondaries) {
      const key = this.#keyOf(secondary);
      if (key === undefined) continue;
      const primaries = this.#map(secondary, key);
      if (primaries === undefined || primaries.length === 0) continue;
      const bucket = bucketOf(primaries.map((id) => id.key)) as Bucket;
      forward = forward.set(key, bucket);
      for (const primaryKey of bucketArray(bucket)) reverse = multimapAdd(reverse, primaryKey, key);
    }
    this.#state = new ReverseIndexSnapshot(reverse.asImmutable(), forward.asImmutable());
  }

  /**
   * Records a created or updated secondary. O(primaries of S · log n).
   * @returns P_new and P_old; enqueue both.
   */
  onAddOrUpdate(secondary: S): ReverseIndexUpdate {
    const key = this.#keyOf(secondary);
    if (key === undefined) return { newPrimaries: NONE, oldPrimaries: NONE };
    const state = this.#state;
    const before = state.forward.get(key);
    const oldKeys = bucketArray(before);
    const mapped = this.#map(secondary, key);
    if (mapped === undefined) {
      const previous = oldKeys.map((k) => ResourceID.parse(k));
      return { newPrimaries: previous, oldPrimaries: previous };
    }
    const newKeys = mapped.map((id) => id.key);
    // The common update (a MODIFIED event that keeps its references) changes nothing here: skip
    // the persistent writes and the ID allocations, and answer P_old = P_new.
    if (newKeys.length === oldKeys.length && newKeys.every((k) => oldKeys.includes(k))) {
      return { newPrimaries: mapped, oldPrimaries: mapped };
    }
    let reverse = state.reverse;
    for (const primaryKey of oldKeys) if (!newKeys.includes(primaryKey)) reverse = multimapRemove(reverse, primaryKey, key);
    for (const primaryKey of newKeys) reverse = multimapAdd(reverse, primaryKey, key);
    const after = bucketOf(newKeys);
    const forward = after === undefined ? state.forward.delete(key) : state.forward.set(key, after);
    this.#state = new ReverseIndexSnapshot(reverse, forward);
    return { newPrimaries: mapped, oldPrimaries: oldKeys.map((k) => ResourceID.parse(k)) };
  }

  /**
   * Forgets a deleted secondary; tolerates one it never saw. Does not call the mapper unless the
   * secondary was never recorded (then its mapping is only used for the result).
   * @returns the primaries it was indexed under, as `oldPrimaries`; enqueue them.
   */
  onDelete(secondary: S | ResourceID): ReverseIndexUpdate {
    const key = secondary instanceof ResourceID ? secondary.key : this.#keyOf(secondary);
    if (key === undefined) return { newPrimaries: NONE, oldPrimaries: NONE };
    const state = this.#state;
    const before = state.forward.get(key);
    if (before === undefined) {
      // Never recorded (say, the index was not seeded): still tell the caller whom it concerned.
      const mapped = secondary instanceof ResourceID ? undefined : this.#map(secondary, key);
      return { newPrimaries: NONE, oldPrimaries: mapped ?? NONE };
    }
    let reverse = state.reverse;
    const oldKeys = bucketArray(before);
    for (const primaryKey of oldKeys) reverse = multimapRemove(reverse, primaryKey, key);
    this.#state = new ReverseIndexSnapshot(reverse, state.forward.delete(key));
    return { newPrimaries: NONE, oldPrimaries: oldKeys.map((k) => ResourceID.parse(k)) };
  }

  /** Forgets everything. */
  clear(): void {
    this.#state = EMPTY;
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
      const seen = new Set<string>();
      for (const id of result) {
        if (!(id instanceof ResourceID)) {
          this.#errors.next(new MapperError(key, `mapper returned ${id === null ? 'null' : typeof id} among its ResourceIDs`));
          return undefined;
        }
        if (!seen.has(id.key)) {
          seen.add(id.key);
          out.push(id);
        }
      }
      return out;
    } catch (cause) {
      this.#errors.next(new MapperError(key, 'mapper threw', { cause }));
      return undefined;
    }
  }
}
