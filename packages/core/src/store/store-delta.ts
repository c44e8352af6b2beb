import type { KubernetesObject } from '../resource/kubernetes-object.js';
import type { CreateEvent, DeleteEvent, UpdateEvent } from '../event/resource-event.js';

/**
 * One change a write made to an {@link IndexedStore}, shaped as the {@link ResourceEvent} an
 * event source reports, so deltas from `replace` can be forwarded as they are. A relist reports
 * objects that vanished as deletes with `deleteStateUnknown: true`.
 */
export type StoreDelta<R extends KubernetesObject = KubernetesObject> = CreateEvent<R> | UpdateEvent<R> | DeleteEvent<R>;
