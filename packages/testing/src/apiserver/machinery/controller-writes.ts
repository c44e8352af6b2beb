// What a controller may do to stored objects (the garbage collector's and namespace controller's
// writes, the CRD controller's): declared here, below both the registry that carries the writes
// out (registry/controller-writes.ts) and the controllers that make them.

import type { Json, StoredObject } from '../storage/object-store.js';
import type { ResourceRegistry, ResourceType } from '../storage/resource-registry.js';

/** What a controller may do to stored objects. */
export interface ControllerWrites {
  /** The served types. */
  readonly types: ResourceRegistry;
  /** Replaces an existing object, as an update by kube-controller-manager (finalizers, owners). */
  rewrite(t: ResourceType, existing: StoredObject, draft: Json): StoredObject | undefined;
  /** Deletes an object as DELETE does: held by its finalizers, or removed. */
  deleteObject(t: ResourceType, existing: StoredObject, policy?: 'Background' | 'Foreground' | 'Orphan'): StoredObject | undefined;
}
