import type { KubernetesObject } from '@kindex/core';
import type { ReflectorOptions } from '../reflector/reflector-options.js';
import type { CacheBound } from './bounded/cache-bound.js';

/**
 * What a source asks the registry for: the reflector options that identify one cache, and a bound on
 * what stays in memory.
 *
 * @example
 * ```ts
 * import { InformerRegistry, Kinds, type InformerSpec } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * const spec: InformerSpec = { kubeConfig, type: Kinds.Service, namespace: 'shop', labelSelector: 'app=web' };
 * const registry = new InformerRegistry();
 * console.log(registry.keyOf(spec)); // what makes two specs share an informer
 * ```
 */
export type InformerSpec<R extends KubernetesObject = KubernetesObject> = Omit<ReflectorOptions<R>, 'store' | 'sink'> & {
  /** Keep only some objects in memory (see {@link CacheBound}); informers of different bounds are not shared. Defaults to every object. */
  readonly bound?: CacheBound;
};
