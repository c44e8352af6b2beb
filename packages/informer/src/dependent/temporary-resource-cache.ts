import { type KubernetesObject } from '@kindex/core';
import { isNewerVersion } from '@kindex/core/internal';

/**
 * Read-after-write for a controller's own writes (JOSDK's TemporaryResourceCache): the object a
 * write returned stands in for the cached one until the informer has caught up with it, so the
 * next reconcile never sees the state from before its own patch.
 *
 * Versions are ordered by {@link isNewerVersion}; when their order is unknown, any informer
 * event for the object ends the stand-in (the informer then knows at least as much).
 *
 * @example
 * ```ts
 * import { TemporaryResourceCache } from '@kindex/informer/internal';
 * import type { KubernetesObject } from '@kindex/core';
 * declare const written: KubernetesObject;
 * declare const cached: KubernetesObject | undefined;
 *
 * // Read your own writes: until the informer shows a version as new as ours, ours wins.
 * const recent = new TemporaryResourceCache();
 * recent.put('shop/web', written);
 * const current = recent.resolve('shop/web', cached);
 * ```
 */
export class TemporaryResourceCache<R extends KubernetesObject = KubernetesObject> {
  readonly #written = new Map<string, R>();

  /** Records what a write returned. */
  put(key: string, written: R): void {
    const current = this.#written.get(key);
    if (current !== undefined && isNewerVersion(current, written)) return;
    this.#written.set(key, written);
  }

  /** The newer of the written object and the cached one. */
  resolve(key: string, cached: R | undefined): R | undefined {
    // Empty but while a write is newer than the informer: no lookup per read.
    if (this.#written.size === 0) return cached;
    const written = this.#written.get(key);
    if (written === undefined) return cached;
    if (cached === undefined) return written;
    return isNewerVersion(written, cached) ? written : cached;
  }

  /** The informer saw a version of the object: drop the stand-in once it is not newer. */
  onInformerEvent(key: string, seen: R): void {
    if (this.#written.size === 0) return;
    const written = this.#written.get(key);
    if (written !== undefined && !isNewerVersion(written, seen)) this.#written.delete(key);
  }

  /** The object is gone: forget it. */
  evict(key: string): void {
    this.#written.delete(key);
  }

  /** How many written objects still stand in for the informer; a number that keeps growing means events are not arriving. */
  get size(): number {
    return this.#written.size;
  }
}
