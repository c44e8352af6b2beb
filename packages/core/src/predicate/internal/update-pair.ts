import type { KubernetesObject } from '../../resource/kubernetes-object.js';
import type { UpdateEvent } from '../../event/resource-event.js';

/**
 * Whether an update event carries both objects. controller-runtime's change predicates return
 * false (and log) for an update missing either side; the event type forbids it, but plain-JS
 * sources and hand-made test events can still produce one, so we answer the same way.
 */
export function hasBothObjects<R extends KubernetesObject>(e: UpdateEvent<R>): boolean {
  return e.object != null && e.oldObject != null;
}

/**
 * Equality of two label or annotation maps. A missing map equals an empty one: the API server
 * omits empty maps, so `{}` versus absent is never a real change (controller-runtime's
 * reflect.DeepEqual would call it one; it cannot happen on the wire there either).
 */
export function stringMapsEqual(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>> | undefined): boolean {
  if (a === b) return true;
  const ak = a == null ? [] : Object.keys(a);
  const bk = b == null ? [] : Object.keys(b);
  if (ak.length !== bk.length) return false;
  for (const k of ak) {
    if (!Object.prototype.hasOwnProperty.call(b, k) || a![k] !== b![k]) return false;
  }
  return true;
}
