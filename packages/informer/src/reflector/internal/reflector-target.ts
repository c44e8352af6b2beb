import { ShardSelector, type KubernetesObject } from '@kindex/core';
import type { KubeCodec } from '../../client/codec.js';
import { readCodec } from '../../client/read-codec.js';
import { collectionPath } from '../../kind/resource-type.js';
import type { ReflectorOptions } from '../reflector-options.js';

/** The query parameters that narrow every list and watch of a reflector. */
export type RequestSelectors = {
  readonly labelSelector: string | undefined;
  readonly fieldSelector: string | undefined;
  readonly shardSelector: string | undefined;
};

/** What a reflector reads and how, derived once from its options. */
export interface ReflectorTarget {
  /** The collection path (namespaced or cluster-wide). */
  readonly path: string;
  /** The client-side shard filter, if any. */
  readonly shards: ShardSelector | undefined;
  readonly selectors: RequestSelectors;
  /** Decodes lists and watches: metadata-only for a metadata-only kind, else the `wire` format. */
  readonly codec: KubeCodec;
}

/**
 * Checks and derives a reflector's target once, in its constructor: a bad namespace, selector or
 * wire is a configuration error there, not a 400 retried forever.
 */
export function reflectorTarget<R extends KubernetesObject>(options: ReflectorOptions<R>): ReflectorTarget {
  const { type } = options;
  if (options.namespace !== undefined && options.namespace !== '' && !type.namespaced) {
    throw new TypeError(`${type.kind} is cluster-scoped; it cannot be watched in namespace ${options.namespace}`);
  }
  const shards =
    options.shardSelector === undefined || options.shardSelector === ''
      ? undefined
      : typeof options.shardSelector === 'string'
        ? ShardSelector.parse(options.shardSelector)
        : options.shardSelector;
  const codec = readCodec(type, { wire: options.wire, owner: 'Reflector options' });
  return {
    path: collectionPath(type, options.namespace),
    shards,
    selectors: {
      labelSelector: options.labelSelector || undefined,
      fieldSelector: options.fieldSelector || undefined,
      shardSelector: shards?.toString(),
    },
    codec,
  };
}

/**
 * True when the raw object off the wire is in the shard range: its own field, read before any
 * transform could drop it. Not an object: outside.
 */
export function inShard(shards: ShardSelector, raw: unknown): boolean {
  return raw !== null && typeof raw === 'object' && shards.matches(raw);
}
