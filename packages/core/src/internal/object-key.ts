import type { KubernetesObject } from '../resource/kubernetes-object.js';
import { ResourceID } from '../resource/resource-id.js';

/**
 * The `namespace/name` key of an object for an error report, or undefined when the object has
 * none. Never throws: it runs while an error about a possibly malformed object is being built,
 * and a second error there would hide the first.
 */
export function objectKeyOf(obj: KubernetesObject | undefined): string | undefined {
  try {
    return obj === undefined || obj === null ? undefined : ResourceID.keyOfResource(obj);
  } catch {
    return undefined;
  }
}
