// Admission of events.k8s.io/v1 writes. The verbs run on the core/v1 storage (events-api.ts), so
// the admission points of the registry's verbs see core/v1 Events; kube-apiserver admits the
// request's own resource, so webhooks get the objects as events.k8s.io/v1 shows them, and a
// mutating webhook's answer is converted back before the write goes on. The two resources are
// equivalent (one storage), so a webhook for one is called for the other under `matchPolicy:
// Equivalent` (eventEquivalence).

import { jsonEqual } from '@kindex/core/internal';
import type { EquivalentResources } from '../admission/admission-webhook-dispatcher.js';
import { EVENTS_V1_TYPE_ID, toCoreEvent, toEventsV1 } from '../machinery/events-api.js';
import type { Json } from '../storage/object-store.js';
import type { ResourceType } from '../storage/resource-registry.js';
import type { WriteAdmission } from '../registry/resource-request.js';

const CORE_EVENTS_TYPE_ID = '/events';

/** core/v1 and events.k8s.io/v1 Events as equivalent resources; `byTypeId` finds the registry's types. */
export function eventEquivalence(byTypeId: (id: string) => ResourceType | undefined): EquivalentResources {
  const other: Record<string, string> = { [CORE_EVENTS_TYPE_ID]: EVENTS_V1_TYPE_ID, [EVENTS_V1_TYPE_ID]: CORE_EVENTS_TYPE_ID };
  return {
    equivalents(t) {
      const id = other[t.id];
      const type = id === undefined ? undefined : byTypeId(id);
      return type === undefined ? [] : [type];
    },
    convert(object, to) {
      if (to.id === EVENTS_V1_TYPE_ID) return object['apiVersion'] === 'events.k8s.io/v1' ? { ...object } : asEventsV1Object(object);
      return object['apiVersion'] === 'v1' ? { ...object } : toCoreEvent(object);
    },
  };
}

/** A stored (core/v1) Event as an events.k8s.io/v1 object, kind and apiVersion included. */
export function asEventsV1Object(core: Readonly<Json>): Json {
  return { kind: 'Event', apiVersion: 'events.k8s.io/v1', ...toEventsV1(core) };
}

/**
 * The admission points of a core/v1 write made for an events.k8s.io/v1 request, calling
 * `admission` (set up for events.k8s.io/v1) with the objects in that version.
 */
export function eventsV1Admission(admission: WriteAdmission): WriteAdmission {
  const shown = (o: Readonly<Json> | undefined): Json | undefined => (o === undefined ? undefined : asEventsV1Object(o));
  return {
    mutate(operation, object, old) {
      const before = asEventsV1Object(object);
      const after = admission.mutate(operation, before, shown(old));
      // Unchanged: the core object as it was (a round trip would normalise its empty fields).
      if (jsonEqual(after, before)) return object;
      return toCoreEvent(after);
    },
    validate(operation, object, old) {
      admission.validate(operation, shown(object), shown(old));
    },
    once: (key, make) => admission.once(key, make),
  };
}
