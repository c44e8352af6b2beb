/**
 * The registry of shared informers a {@link KubeClient} carries, declared here and implemented by
 * `InformerRegistry` (cache/), so client/ stays below cache/ (scripts/ci/check-layers.mjs): the client only carries
 * the registry to the event sources, caches and the Operator built on it, and never calls it.
 *
 * cache/informer-registry.ts merges `InformerRegistry`'s members (`acquire`, `informers`, `keyOf`,
 * `size`, `stopAll`) into this interface and registers the factory of the default one, so
 * `client.registry.acquire(...)` and `new SourceHealthMonitor({ registry: client.registry })`
 * type-check as before. The members listed here are the ones client/ could name without cache/'s
 * types.
 *
 * @example
 * ```ts
 * import { KubeClient, type KubeClientRegistry } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * const registry: KubeClientRegistry = new KubeClient(kubeConfig).registry;
 * console.log(registry.size); // shared informers running
 * await registry.stopAll();
 * ```
 */
export interface KubeClientRegistry {
  /** Number of live shared informers. */
  readonly size: number;
  /** Stops every informer (at operator shutdown). */
  stopAll(): Promise<void>;
}

let createDefault: (() => KubeClientRegistry) | undefined;

/**
 * Sets what a KubeClient built without a `registry` option creates; cache/informer-registry.ts
 * calls it when it loads (the package entry loads it), which is how the default is created
 * without client/ importing cache/.
 */
export function provideDefaultRegistry(create: () => KubeClientRegistry): void {
  createDefault = create;
}

/** A new default registry; throws when cache/informer-registry.ts was never loaded. */
export function newDefaultRegistry(): KubeClientRegistry {
  if (createDefault === undefined) {
    throw new Error(
      'KubeClient: no default informer registry: import KubeClient from @kindex/informer (its entry loads InformerRegistry), or pass options.registry',
    );
  }
  return createDefault();
}
