import type { KubernetesObject } from './kubernetes-object.js';

/** The metadata of an object that names it: a non-empty name and a string namespace, if any. */
export interface NamedMetadata {
  readonly name: string;
  readonly namespace?: string;
}

/**
 * The object's metadata when it names the object (what a key is built from), else undefined: the
 * check the store and the reverse index make on every write, without allocating.
 */
export function namedMetadataOf(obj: unknown): NamedMetadata | undefined {
  const meta = (obj as KubernetesObject | null | undefined)?.metadata;
  return meta !== null &&
    typeof meta === 'object' &&
    typeof meta.name === 'string' &&
    meta.name !== '' &&
    (meta.namespace === undefined || typeof meta.namespace === 'string')
    ? (meta as NamedMetadata)
    : undefined;
}
