// The embedded server's answer to a custom object its CRD version's schema refuses: the problems
// @kindex/core's validateCustomObject finds (the same check customResource().validate() runs
// client-side), as the causes of a 422 Status.

import { validateCustomObject } from '@kindex/core';
import type { Json } from '../storage/object-store.js';
import type { StatusCause } from '../storage/status-error.js';

/** The causes of kube-apiserver's 422 for `obj`; `old` is the stored object on update (for transition rules). */
export function customObjectCauses(obj: Json, schema: Json, old?: Readonly<Json>): StatusCause[] {
  // Only the Status fields: the client-side summary stays out of the response.
  return validateCustomObject(schema, obj, { old }).map(({ reason, field, message }) => ({ reason, field, message }));
}
