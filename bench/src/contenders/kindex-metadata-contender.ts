import { Kinds, metadataOnly } from '@kindex/informer';
import type { Contender, ContenderOptions } from './contender.js';
import { kindexContender } from './kindex-contender.js';

/**
 * kindex (metadata): the kindex contender on a metadata-only kind (`metadataOnly(Kinds.ConfigMap)`),
 * so it asks for `as=PartialObjectMetadata[List]` and caches each ConfigMap's metadata alone.
 */
export function kindexMetadataContender(options: ContenderOptions): Contender {
  return kindexContender(options, 'list', metadataOnly(Kinds.ConfigMap));
}
