import type { KubeConfig } from '@kubernetes/client-node';
import { InformerRegistry } from '../cache/informer-registry.js';
import { composeFence } from '../client/compose-fence.js';
import { KubeClient, type KubeClientOptions } from '../client/kube-client.js';

/**
 * The client a fleet reconcile gets from `context.getClient()`: a {@link KubeClient} for the
 * cluster the primary lives in, carrying that cluster's name (multicluster-runtime's
 * `mcreconcile.Request.ClusterName` beside `mgr.GetCluster(...).GetClient()`, in one object).
 * Its registry holds that cluster's informers alone.
 *
 * @example
 * ```ts
 * import { Kinds, type ClusterClient } from '@kindex/informer';
 * import { UpdateControl, type Context, type KubernetesObject } from '@kindex/core';
 *
 * async function reconcile(primary: KubernetesObject, context: Context<KubernetesObject, ClusterClient>): Promise<UpdateControl> {
 *   const client = context.getClient();
 *   context.getLogger().info({ cluster: client.cluster }, 'reconciling');
 *   // Written to the primary's own cluster.
 *   await client.apply(Kinds.ConfigMap, {
 *     apiVersion: 'v1',
 *     kind: 'ConfigMap',
 *     metadata: { name: `${primary.metadata?.name}-seen`, namespace: primary.metadata?.namespace },
 *     data: { cluster: client.cluster },
 *   });
 *   return UpdateControl.noUpdate();
 * }
 * ```
 */
export class ClusterClient extends KubeClient {
  /** The cluster's name, as its provider engaged it. */
  readonly cluster: string;
  readonly #options: KubeClientOptions;

  constructor(cluster: string, kubeConfig: KubeConfig, options: KubeClientOptions = {}) {
    // A registry of its own from the start, so the fenced clients made from it share it.
    const withRegistry = { ...options, registry: options.registry ?? new InformerRegistry() };
    super(kubeConfig, withRegistry);
    this.cluster = cluster;
    this.#options = withRegistry;
  }

  /** As {@link KubeClient.withFence}, keeping the cluster's name: a fenced client is still this cluster's. */
  override withFence(fence: () => void): ClusterClient {
    return new ClusterClient(this.cluster, this.kubeConfig, {
      ...this.#options,
      fence: composeFence(this.#options.fence, fence),
    });
  }
}
