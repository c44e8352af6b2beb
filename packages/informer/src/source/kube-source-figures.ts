import type { EventSourcePendingSync, EventSourceStatistics } from '@kindex/core';
import type { KubeEventSource, KubeEventSourceCache } from './kube-event-source.js';

/**
 * What a `KubeEventSource` still waits for, read from its cache: the kind as
 * `plural.group/version`, the namespaces not synced yet and the last error. One code for the
 * controller's primary source and every `InformerEventSource`.
 */
export function pendingSyncOf(cache: KubeEventSourceCache): EventSourcePendingSync {
  const k = cache.kind;
  return { kind: `${k.plural}${k.group ? `.${k.group}` : ''}/${k.version}`, ...cache.pendingSync() };
}

/** A `KubeEventSource`'s figures for debug views: its cache's objects, sync and indexes, and its reverse index. */
export function statisticsOf(source: Pick<KubeEventSource, 'cache' | 'reverseIndexSize'>): EventSourceStatistics {
  const cache = source.cache;
  return { objects: cache.size, synced: cache.hasSynced(), indexes: cache.indexSizes(), reverseIndex: source.reverseIndexSize() };
}
