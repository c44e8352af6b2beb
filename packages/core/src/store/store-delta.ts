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

/**
 * Whether `object` is another life of the name `old` held: deleted and created again while the
 * watcher was not looking (a new `metadata.uid`). Such a change is reported as a `delete` (state
 * unknown) then a `create`, never as an `update` that would mix two lives of one name; the store's
 * `replace` and the reflector's watch path both decide it here, so the rule is written once.
 *
 * @example
 * ```ts
 * import { type KubernetesObject } from '@kindex/core';
 * import { isRecreated } from '@kindex/core/internal';
 * declare const held: KubernetesObject;
 * declare const incoming: KubernetesObject;
 *
 * if (isRecreated(held, incoming)) console.log(`${incoming.metadata?.name} was deleted and created again`);
 * ```
 */
export function isRecreated(old: KubernetesObject, object: KubernetesObject): boolean {
  const before = old.metadata?.uid;
  const after = object.metadata?.uid;
  return before !== undefined && after !== undefined && before !== after;
}
