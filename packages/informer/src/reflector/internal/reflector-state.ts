/**
 * What a reflector has read so far, written by its list and its watch alike: the view (the store
 * and the sink its changes go to), the resourceVersion that view is current to, which is where the
 * next watch resumes, and how many objects came off the wire. An initial state, paged list or
 * watch-list, replaces the view here in one batch.
 *
 * @module
 */
import type { KubernetesObject } from '@kindex/core';
import type { ReflectorView } from './reflector-view.js';
import type { ReflectorStatus } from './reflector-status.js';

/** How an initial state was read, as `ReflectorHealth.lastSyncBy` names it. */
export type InitialStateSource = 'list' | 'watch-list';

/** The view a reflector keeps, the resourceVersion it is current to and its received count. */
export class ReflectorState<R extends KubernetesObject> {
  /**
   * The resourceVersion of the last event, bookmark or list seen: the next watch resumes from
   * it, so a watch that ends normally goes on without a relist. Undefined before the first list.
   */
  resourceVersion: string | undefined;
  /**
   * Objects received from the server, list items and watch events, counted before the
   * client-side shard filter: what sharding on the server saves shows here.
   */
  received = 0;

  /**
   * @param sharded true with a shard selector: each list then says in the health who filtered.
   * @param stopped the reflector's stop signal: a list that completes after a stop is dropped.
   */
  constructor(
    readonly view: ReflectorView<R>,
    private readonly status: ReflectorStatus,
    private readonly sharded: boolean,
    private readonly stopped: AbortSignal,
  ) {}

  /** Replaces the view with a complete initial state, emits the differences and marks it synced. */
  applyInitialState(items: readonly R[], resourceVersion: string, by: InitialStateSource, serverSharded: boolean): void {
    if (this.stopped.aborted) return;
    this.view.replace(items, resourceVersion);
    this.resourceVersion = resourceVersion;
    const { health } = this.status;
    this.status.update({
      synced: true,
      lists: health.lists + 1,
      lastSyncResourceVersion: resourceVersion,
      lastSyncBy: by,
      // Only a list body carries shardInfo; a watch-list cannot tell, so it leaves the field as it was.
      ...(!this.sharded || by === 'watch-list' ? {} : { shardFilter: serverSharded ? ('server' as const) : ('client' as const) }),
    });
  }
}
