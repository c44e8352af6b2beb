import type { KubernetesObject } from '@kindex/core';
import { KubeApiError } from '../../client/kube-api-error.js';
import type { PreparedObject } from './prepare-object.js';

/** The annotation kube-apiserver puts on the BOOKMARK that ends a watch-list's initial events. */
export const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

/** The query of a watch-list request (KEP-3157), added to the watch's own parameters. */
export const WATCH_LIST_QUERY = { sendInitialEvents: 'true', resourceVersionMatch: 'NotOlderThan' } as const;

/**
 * The objects a watch-list has streamed so far, held aside until its end bookmark so that the
 * view is replaced in one batch, as after a list: a restart after 410 then emits only the real
 * differences, and deletes carry `deleteStateUnknown` (client-go's watchList keeps a temporary
 * store for the same reason). The server may send changes made after its snapshot before the end
 * bookmark; they apply here, in order, like the initial ADDED events.
 */
export class InitialEvents<R extends KubernetesObject> {
  private readonly objects = new Map<string, R>();

  apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', prepared: PreparedObject<R>): void {
    if (type === 'DELETED') this.objects.delete(prepared.key);
    else this.objects.set(prepared.key, prepared.object); // the object alone: the wrapper is garbage now
  }

  /** Everything held, in arrival order of each key's first event. */
  items(): R[] {
    return [...this.objects.values()];
  }
}

/** True for the BOOKMARK that closes the initial events. */
export function isInitialEventsEnd(bookmark: unknown): boolean {
  const annotations = (bookmark as KubernetesObject | null | undefined)?.metadata?.annotations;
  return annotations?.[INITIAL_EVENTS_END] === 'true';
}

/**
 * True when the server's answer says it does not do watch-list (an older server, or the WatchList
 * gate off: 400 or 422 on `sendInitialEvents`), as opposed to an answer a list would get too (401,
 * 403, 404), an expired resourceVersion (410), throttling (429) or a timeout (408).
 */
export function refusesWatchList(error: unknown): boolean {
  if (!(error instanceof KubeApiError)) return false;
  const { status } = error;
  return status >= 400 && status < 500 && ![401, 403, 404, 408, 409, 410, 429].includes(status);
}

/** A server that answered a watch-list request as a plain watch: it ignores `sendInitialEvents`. */
export class WatchListIgnoredError extends Error {
  constructor(request: string) {
    super(
      `${request}: the server ignored sendInitialEvents (a BOOKMARK without the ${INITIAL_EVENTS_END} annotation came before the end of the initial events); set the reflector option initialState to 'list' or 'auto'`,
    );
    this.name = 'WatchListIgnoredError';
  }
}
