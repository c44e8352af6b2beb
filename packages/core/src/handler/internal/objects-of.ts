import type { KubernetesObject } from '../../resource/kubernetes-object.js';
import type { ResourceEvent } from '../../event/resource-event.js';

/**
 * The objects an event concerns: old and new for updates, else the one object. A missing side
 * (plain-JS sources) is left out rather than crashing the handler.
 */
export function objectsOf<R extends KubernetesObject>(event: ResourceEvent<R>): R[] {
  if (event.type !== 'update') return event.object == null ? [] : [event.object];
  const out: R[] = [];
  if (event.oldObject != null) out.push(event.oldObject);
  if (event.object != null && event.object !== event.oldObject) out.push(event.object);
  return out;
}
