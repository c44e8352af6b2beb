import type { KubernetesObject } from '../../resource/kubernetes-object.js';
import { ChunkTable } from './chunk-table.js';

/** The name of a stored object: checked on the way in, and frozen since. */
export function nameOf(obj: KubernetesObject): string {
  return (obj.metadata as { name: string }).name;
}

/** An empty table of one namespace's objects, by name. */
export function emptyNames<R extends KubernetesObject>(): ChunkTable<R> {
  return ChunkTable.empty<R>(nameOf);
}
