import type { KubernetesObject } from '../resource/kubernetes-object.js';
import { ResourceID } from '../resource/resource-id.js';
import type { EventHandler } from './event-handler.js';

/**
 * Reconciles the event's own object (controller-runtime's EnqueueRequestForObject): its name and
 * namespace. For an update, the new object (the old one if the new is missing); old and new
 * share name and namespace anyway.
 *
 * An object without a usable name is reported (field `metadata.name`) and yields nothing.
 *
 * @example
 * ```ts
 * import { enqueueForObject } from '@kindex/core';
 * import { InformerEventSource, Kinds } from '@kindex/informer';
 *
 * // Each ConfigMap event reconciles the ConfigMap it is about.
 * const source = InformerEventSource.from(Kinds.ConfigMap, Kinds.ConfigMap).withEventHandler(enqueueForObject());
 * ```
 */
export function enqueueForObject<R extends KubernetesObject = KubernetesObject>(): EventHandler<R> {
  return Object.freeze({
    name: 'enqueueForObject',
    map(event, report) {
      const obj = event.type === 'update' ? (event.object ?? event.oldObject) : event.object;
      try {
        return [ResourceID.fromResource(obj)];
      } catch (err) {
        report(err, obj);
        return [];
      }
    },
  } satisfies EventHandler<R>);
}
