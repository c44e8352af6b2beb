import type { IndexedStore, KubernetesObject, StoreDelta } from '@kindex/core';

/**
 * A store the {@link Reflector} fills itself, and where its changes go: the wiring a
 * {@link SharedInformer} uses. The store is then the reflector's diff base and its output at once,
 * so a watch event costs one lookup of the old object and a list is applied as one
 * `IndexedStore.replace` batch. Nothing else may write the store.
 *
 * Each callback runs after the store shows the change, synchronously, before the next change.
 *
 * @example
 * ```ts
 * import { IndexedStore, type KubernetesObject } from '@kindex/core';
 * import { Kinds, Reflector, type ReflectorFill } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * const fill: ReflectorFill<KubernetesObject> = {
 *   store: new IndexedStore({ assumeFrozen: true }),
 *   onDelta: (delta) => console.log(delta.type, delta.object.metadata?.name),
 *   onList: (deltas) => console.log(`listed: ${deltas.length} changes`),
 * };
 * const reflector = new Reflector({ kubeConfig, type: Kinds.ConfigMap, fill });
 * ```
 */
export interface ReflectorFill<R extends KubernetesObject = KubernetesObject> {
  /** The store to fill. The reflector freezes objects itself: create it with `assumeFrozen: true`. */
  readonly store: IndexedStore<R>;
  /** One change a watch event made. */
  readonly onDelta: (delta: StoreDelta<R>) => void;
  /** What a list (the first, or a relist) changed, all at once: creates and updates in list order, deletes last. */
  readonly onList: (deltas: readonly StoreDelta<R>[]) => void;
}
