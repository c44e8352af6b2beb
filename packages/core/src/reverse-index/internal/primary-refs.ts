import { ResourceID } from '../../resource/resource-id.js';
import type { PrimaryRefs } from './index-content.js';

// Reading a secondary's refs (PrimaryRefs): small scans, since a secondary has a handful of owners.

/** Whether every element is a ResourceID and no two share a key (a scan: mappers return a handful). */
export function distinctIds(ids: readonly unknown[]): boolean {
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i];
    if (!(id instanceof ResourceID)) return false;
    for (let j = 0; j < i; j++) if ((ids[j] as ResourceID).key === id.key) return false;
  }
  return true;
}

/** Whether the refs hold the primary with this key. */
export function refsInclude(refs: PrimaryRefs | undefined, primaryKey: string): boolean {
  return refs !== undefined && refs.some((id) => id.key === primaryKey);
}

/** Whether two refs name the same primaries (in any order). */
export function sameRefs(a: PrimaryRefs | undefined, b: PrimaryRefs | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  return a.length === b.length && a.every((id) => refsInclude(b, id.key));
}

/** The refs' primary keys, as a new Set (the public answers are Sets). */
export function keySet(refs: PrimaryRefs | undefined): ReadonlySet<string> {
  return new Set((refs ?? []).map((id) => id.key));
}
