import { LOW_PRIORITY, type StoreDelta } from '@kindex/core';
import type { CacheDeltaOrigin } from '../cache/cache-delta.js';

/**
 * The queue priority of the reconciles a cache delta triggers: `LOW_PRIORITY` for an object a
 * list found that nobody is known to have changed, else undefined (the default, 0). This is
 * controller-runtime's `WithLowPriorityWhenUnchanged`, so that with `queue: 'priority'` the
 * initial wave after a restart (every primary and secondary, as creates) waits behind real
 * changes. What counts as unchanged:
 * - a create from a list: the initial list (or an object a relist found; it cannot tell which)
 *   and a cache joining a shared informer that already held the object (`attach`);
 * - never an update or a delete from a relist: those are changes made while the watch was
 *   down, reconciled at normal priority as controller-runtime does.
 */
export function unchangedPriority(deltaType: StoreDelta['type'], origin: CacheDeltaOrigin): number | undefined {
  if (origin === 'attach') return LOW_PRIORITY;
  return origin === 'list' && deltaType === 'create' ? LOW_PRIORITY : undefined;
}
