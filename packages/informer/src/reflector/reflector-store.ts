/**
 * The subset of a consumer's store the reflector reads, as client-go's DeltaFIFO reads its
 * `knownObjects`: the object held under a key, and every key held.
 *
 * Pass one as {@link ReflectorOptions.knownObjects} when the consumer keeps a store anyway (an
 * `IndexedStore` fits as it is): the reflector then diffs relists and drops replayed events
 * against what that store really holds and keeps no map of its own (one entry less per cached
 * object). The contract: the consumer applies every delta of `deltas$` to the store
 * synchronously, inside its subscriber, before the next delta is emitted.
 *
 * @example
 * ```ts
 * import { Kinds, Reflector, type ReflectorStore } from '@kindex/informer';
 * import { IndexedStore, type KubernetesObject } from '@kindex/core';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * // Let the reflector compare a relist with your own store, so deletes missed during an outage surface.
 * const store = new IndexedStore();
 * const knownObjects: ReflectorStore<KubernetesObject> = { get: (key) => store.get(key), keys: () => store.keys() };
 * const reflector = new Reflector({ kubeConfig, type: Kinds.ConfigMap, knownObjects });
 * ```
 */
export interface ReflectorStore<R> {
  /** The object held under `namespace/name` (or `name`), if any. */
  get(key: string): R | undefined;
  /** Every key held. */
  keys(): Iterable<string>;
}
