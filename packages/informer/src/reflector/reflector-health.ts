/**
 * What a reflector reports about itself: whether its view is complete, how current it is, and
 * what last went wrong. Every failure lands here (and on `errors$`); none stops the reflector.
 *
 * @example
 * ```ts
 * import type { Reflector, ReflectorHealth } from '@kindex/informer';
 * declare const reflector: Reflector;
 *
 * reflector.health$.subscribe((h: ReflectorHealth) => {
 *   if (!h.watching && h.lastError) console.warn(`watch down (${h.restarts} restarts): ${h.lastError.message}`);
 * });
 * ```
 */
export interface ReflectorHealth {
  /** True once the first initial state (list or watch-list) has been delivered; stays true across relists and reconnects. */
  readonly synced: boolean;
  /** True while a watch stream is open and healthy. */
  readonly watching: boolean;
  /**
   * The resourceVersion the reflector is current to. Refreshed in `health$` at each list,
   * bookmark and state change; `Reflector.resourceVersion` is always current.
   */
  readonly lastSyncResourceVersion: string | undefined;
  /** The last error reported, if any. Not cleared by recovery: compare `at` with later events. */
  readonly lastError: { readonly message: string; readonly at: number; readonly error: Error } | undefined;
  /** How many times list or watch was started again after a failure, a 410 or a silent stream. */
  readonly restarts: number;
  /** How many times the whole state was read, by list or watch-list (the first one included). */
  readonly lists: number;
  /**
   * With a shard selector: `server` when the last list came back with `metadata.shardInfo` (the
   * server filtered), `client` when it did not (a server without the `ShardedListAndWatch` gate
   * sent everything, and the reflector dropped what is outside its range). Undefined without a
   * shard selector or before the first list.
   */
  readonly shardFilter?: 'server' | 'client';
  /**
   * How the last initial state was read: `watch-list` (streamed, see `InitialState`) or `list`
   * (paged; also what an `auto` reflector shows once the server turned watch-list down).
   * Undefined before the first sync.
   */
  readonly lastSyncBy?: 'watch-list' | 'list';
}
