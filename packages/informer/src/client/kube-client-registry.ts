/**
 * The registry of shared informers a `KubeClient` carries for the layers above it. client/
 * sits below cache/ (scripts/ci/check-layers.mjs), so it names only what it needs of a registry
 * (its size and `stopAll`) and never makes one itself: the registry is passed in
 * (`KubeClientOptions.registry`) or made on first use by the layer that needs it, through
 * `KubeClient.registryOf` (cache/'s `InformerRegistry.of(client)`). A client that only reads
 * and writes never has one.
 *
 * @example
 * ```ts
 * import { InformerRegistry, KubeClient, type KubeClientRegistry } from '@kindex/informer';
 * import type { KubeConfig } from '@kubernetes/client-node';
 * declare const kubeConfig: KubeConfig;
 *
 * const client = new KubeClient(kubeConfig);
 * const registry: KubeClientRegistry = InformerRegistry.of(client); // made now, kept by the client
 * console.log(registry.size, client.registry === registry); // 0 true
 * await client.registry?.stopAll();
 * ```
 */
export interface KubeClientRegistry {
  /** Number of live shared informers. */
  readonly size: number;
  /** Stops every informer (at operator shutdown). */
  stopAll(): Promise<void>;
}

/**
 * A class of registry the layer above a `KubeClient` keeps on it: what
 * `KubeClient.registryOf` checks the held registry against, and makes when there is none.
 *
 * @example
 * ```ts
 * import { InformerRegistry, type KubeClientRegistryClass } from '@kindex/informer';
 *
 * const type: KubeClientRegistryClass<InformerRegistry> = InformerRegistry;
 * ```
 */
export type KubeClientRegistryClass<T extends KubeClientRegistry> = new () => T;

/**
 * Where a `KubeClient` keeps its registry: one object shared by the client and the clients
 * `withFence` makes from it, so a registry made through either is the other's too.
 */
export class KubeClientRegistrySlot {
  current: KubeClientRegistry | undefined;

  constructor(given: KubeClientRegistry | undefined) {
    this.current = given;
  }

  /** The registry held when it is a `type`; a new `type`, kept, when none is held. */
  of<T extends KubeClientRegistry>(type: KubeClientRegistryClass<T>): T {
    const current = this.current;
    if (current === undefined) return (this.current = new type());
    if (current instanceof type) return current;
    throw new TypeError(
      `KubeClient: options.registry is a ${current.constructor.name}, not an instance of ${type.name}; pass new ${type.name}() or leave it out`,
    );
  }
}
