import { ResourceID, type KubernetesObject, type StoreDelta } from '@kindex/core';
import type { InformerCache } from '../cache/informer-cache.js';
import { TemporaryResourceCache } from '../dependent/temporary-resource-cache.js';

/**
 * What a controller remembers about its primaries beyond the primary cache: the controller's own
 * latest writes, tombstones, and finished cleanups. It owns that state alone: the primary source
 * tells it what the watch saw ({@link deleted}, {@link seen}), the reconciliation dispatcher what
 * a reconcile wrote or finished ({@link remember}, {@link finalizerRemoved},
 * {@link cleanedUpAfterDeletion}); neither changes its maps.
 */
export class PrimaryLedger<P extends KubernetesObject> {
  /** The controller's own latest writes, newer than the cache until its watch catches up (read-after-write). */
  readonly #written = new TemporaryResourceCache<P>();
  /**
   * Primaries that vanished while still carrying our finalizer (force-deleted, or deleted while
   * we were not looking): their last known state, for one `cleanup` with the final state unknown.
   */
  readonly #tombstones = new Map<string, { primary: P; stateUnknown: boolean }>();
  /**
   * Primaries whose finalizer we removed after a completed `cleanup` (key to uid). The DELETED
   * event that follows carries the object as stored before the delete, finalizer included, and
   * must not read as "cleanup never finished": whichever of that event and the removal write's
   * response comes first, cleanup has run once and must not run again.
   */
  readonly #cleanedUp = new Map<string, string | undefined>();
  readonly #finalizer: string | undefined;

  /** @param finalizer the controller's finalizer, when it cleans up. */
  constructor(
    private readonly cache: InformerCache<P>,
    finalizer: string | undefined,
  ) {
    this.#finalizer = finalizer;
  }

  /**
   * The watch saw the primary deleted. True when cleanup never ran to completion (it still carries
   * our finalizer, the deletion is the world's and not a scope change): a tombstone now stands
   * for it, for one `cleanup` on its last known state.
   */
  deleted(key: string, delta: StoreDelta<P> & { readonly type: 'delete' }, scopeRemoval: boolean): boolean {
    this.#written.evict(key);
    const uid = delta.object.metadata?.uid;
    const cleanedUp = this.#cleanedUp.has(key) && this.#cleanedUp.get(key) === uid;
    this.#cleanedUp.delete(key);
    const finalizer = this.#finalizer;
    if (finalizer === undefined || !delta.object.metadata?.finalizers?.includes(finalizer) || scopeRemoval || cleanedUp) return false;
    this.#tombstones.set(key, { primary: delta.object, stateUnknown: delta.deleteStateUnknown });
    return true;
  }

  /** The watch saw the primary (added or changed): our writes it shows are no longer needed. */
  seen(key: string, object: P): void {
    // Empty but for primaries deleted under our finalizer: no lookup per event.
    if (this.#tombstones.size !== 0) this.#tombstones.delete(key);
    if (this.#finalizer !== undefined && !object.metadata?.finalizers?.includes(this.#finalizer)) this.#cleanedUp.delete(key);
    this.#written.onInformerEvent(key, object);
  }

  /** The tombstone of a primary that vanished under our finalizer, if any. */
  tombstone(key: string): { readonly primary: P; readonly stateUnknown: boolean } | undefined {
    return this.#tombstones.get(key);
  }

  /** The cleanup of a vanished primary ran: its tombstone goes. */
  cleanedUpAfterDeletion(key: string): void {
    this.#tombstones.delete(key);
  }

  /** Whether cleanup already ran to completion for this primary (its finalizer is off; the cache has not caught up). */
  cleanupDone(key: string, uid: string | undefined): boolean {
    return uid !== undefined && this.#cleanedUp.get(key) === uid;
  }

  /** The primary as the next reconcile would see it: cached, or newer from our own write. */
  get(key: string): P | undefined {
    return this.#written.resolve(key, this.cache.peekKey(key));
  }

  /**
   * Whether the primary is known to exist but left the (bounded) primary cache's memory, with no
   * newer write of ours standing in: a reconcile must {@link load} it first. False at once for an
   * unbounded cache.
   */
  evicted(key: string): boolean {
    const cache = this.cache;
    return cache.bounded && cache.peekKey(key) === undefined && this.#written.resolve(key, undefined) === undefined && cache.knows(key);
  }

  /**
   * Reads an evicted primary from the API server (the cache keeps it when it is the version the
   * watch last reported). A newer version stands in as our writes do, until the watch catches up,
   * so {@link get} sees it either way.
   */
  async load(key: string): Promise<void> {
    const loaded = await this.cache.load(key);
    if (loaded !== undefined && this.cache.peekKey(key) !== loaded) this.remember(loaded);
  }

  /** Keeps what a write returned as the primary's latest state; returns it. */
  remember(written: P | undefined): P | undefined {
    if (written !== undefined) this.#written.put(ResourceID.keyOfResource(written), written);
    return written;
  }

  /**
   * Cleanup ran to completion and our `finalizer` is off (`written`: what the removal returned).
   * If the DELETED event already came (it left a tombstone and a trigger), the tombstone goes,
   * so the trigger finds nothing to do; otherwise the event, when it comes, finds the primary in
   * `cleanedUp`. The written object only stands in the read-after-write cache while the primary
   * still exists (other finalizers).
   */
  finalizerRemoved(key: string, primary: P, written: P | undefined, finalizer: string): void {
    const uid = primary.metadata?.uid;
    const tombstone = this.#tombstones.get(key);
    if (tombstone !== undefined && tombstone.primary.metadata?.uid === uid) {
      this.#tombstones.delete(key);
      this.#written.evict(key);
      return;
    }
    this.#cleanedUp.set(key, uid);
    // Only a written object without our finalizer stands for the primary: a server that deleted
    // the object may answer with its last stored state, our finalizer still in it, and a reconcile
    // reading that would clean up again.
    const others = written?.metadata?.finalizers;
    if (written !== undefined && others !== undefined && others.length > 0 && !others.includes(finalizer) && this.cache.knows(key))
      this.remember(written);
    else this.#written.evict(key);
  }
}
