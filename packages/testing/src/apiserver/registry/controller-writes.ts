// The writes controllers make on stored objects (the garbage collector's and namespace
// controller's, the CRD controller's): the registry's own update and delete paths, without a request.

import type { Json, StoredObject } from '../storage/object-store.js';
import type { ResourceRegistry, ResourceType } from '../storage/resource-registry.js';
import type { RegistryStorage } from './registry-storage.js';
import { deleteObject } from './verb-delete.js';
import { rewrite } from './verb-update.js';

/** What a controller may do to stored objects. */
export interface ControllerWrites {
  /** The served types. */
  readonly types: ResourceRegistry;
  /** Replaces an existing object, as an update by kube-controller-manager (finalizers, owners). */
  rewrite(t: ResourceType, existing: StoredObject, draft: Json): StoredObject | undefined;
  /** Deletes an object as DELETE does; see {@link deleteObject}. */
  deleteObject(t: ResourceType, existing: StoredObject, policy?: 'Background' | 'Foreground' | 'Orphan'): StoredObject | undefined;
}

/** The controller writes on a registry storage. */
export function controllerWrites(s: RegistryStorage): ControllerWrites {
  return {
    types: s.types,
    rewrite: (t, existing, draft) => rewrite(s, t, existing, draft),
    deleteObject: (t, existing, policy) => deleteObject(s, t, existing, policy),
  };
}
