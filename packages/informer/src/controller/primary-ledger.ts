import { ResourceID, type KubernetesObject } from '@kindex/core';
import type { InformerCache } from '../cache/informer-cache.js';
import { TemporaryResourceCache } from '../dependent/temporary-resource-cache.js';

/**
 * What a controller remembers about its primaries beyond the primary cache, shared by the
 * primary event handling (which learns of deletions) and the reconciliation dispatcher (which
 * runs cleanup and writes): the controller's own latest writes, tombstones, and finished cleanups.
 */
export class PrimaryLedger<P extends KubernetesObject> {
  /** The controller's own latest writes, newer than the cache until its watch catches up (read-after-write). */
  readonly written = new TemporaryResourceCache<P>();
  /**
   * Primaries that vanished while still carrying our finalizer (force-deleted, or deleted while
   * we were not looking): their last known state, for one `cleanup` with the final state unknown.
   */
  readonly tombstones = new Map<string, { primary: P; stateUnknown: boolean }>();
  /**
   * Primaries whose finalizer we removed after a completed `cleanup` (key to uid). The DELETED
   * event that follows carries the object as stored before the delete, finalizer included, and
   * must not read as "cleanup never finished": whichever of that event and the removal write's
   * response comes first, cleanup has run once and must not run again.
   */
  readonly cleanedUp = new Map<string, string | undefined>();

  constructor(private readonly cache: InformerCache<P>) {}

  /** The primary as the next reconcile would see it: cached, or newer from our own write. */
  get(key: string): P | undefined {
    return this.written.resolve(key, this.cache.peekKey(key));
  }

  /** Keeps what a write returned as the primary's latest state; returns it. */
  remember(written: P | undefined): P | undefined {
    if (written !== undefined) this.written.put(ResourceID.keyOfResource(written), written);
    return written;
  }
}
