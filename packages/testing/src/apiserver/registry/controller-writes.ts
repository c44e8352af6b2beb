// The writes controllers make on stored objects (machinery/controller-writes.ts) carried out by
// the registry's own update and delete paths, without a request.

import type { ControllerWrites } from '../machinery/controller-writes.js';
import type { RegistryStorage } from './registry-storage.js';
import { deleteObject } from './verb-delete.js';
import { rewrite } from './verb-update.js';

/** The controller writes on a registry storage. */
export function controllerWrites(s: RegistryStorage): ControllerWrites {
  return {
    types: s.types,
    rewrite: (t, existing, draft) => rewrite(s, t, existing, draft),
    deleteObject: (t, existing, policy) => deleteObject(s, t, existing, policy),
  };
}
