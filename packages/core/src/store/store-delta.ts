import type { KubernetesObject } from '../resource/kubernetes-object.js';
import type { CreateEvent, DeleteEvent, UpdateEvent } from '../event/resource-event.js';

/**
 * One change a write made to an {@link IndexedStore}, shaped as the {@link ResourceEvent} an
 * event source reports, so deltas from `replace` can be forwarded as they are. A relist reports
 * objects that vanished as deletes with `deleteStateUnknown: true`.
 *
 * @example
 * ```ts
 * import { IndexedStore, type StoreDelta } from '@kindex/core';
 * const store = new IndexedStore();
 *
 * // A relist: replace everything and learn what changed.
 * const deltas: StoreDelta[] = store.replace([{ metadata: { name: 'web', namespace: 'shop', resourceVersion: '9' } }], '9');
 * for (const d of deltas) console.log(d.type, d.object.metadata?.name);
 * ```
 */
export type StoreDelta<R extends KubernetesObject = KubernetesObject> = CreateEvent<R> | UpdateEvent<R> | DeleteEvent<R>;
