import type { KubernetesObject } from '@kindex/core';
import type { InformerCache } from '../cache/informer-cache.js';
import type { KubeClient } from '../client/kube-client.js';
import type { ResourceKind } from '../kind/resource-kind.js';
import { sendRequest } from '../client/kube-request.js';
import { KubeApiError } from '../client/kube-api-error.js';
import { collectionPath } from '../kind/resource-type.js';
import { CacheSyncError } from '../startup/startup-errors.js';
import { PRIMARY_SOURCE_NAME } from './controller-event.js';

/**
 * Whether a controller's primary kind is served (its CRD installed), for `whenCrdMissing: 'wait'`:
 * undefined when a one-item list succeeds or fails otherwise (the normal start handles that),
 * else the 404 explained as a CacheSyncError naming the CRD to install.
 */
export async function probePrimaryKind<P extends KubernetesObject>(
  controller: {
    readonly name: string;
    readonly kind: ResourceKind<P>;
    readonly primaryCache: InformerCache<P>;
    readonly client: KubeClient;
  },
  signal: AbortSignal | undefined,
): Promise<CacheSyncError | undefined> {
  const namespaces = controller.primaryCache.namespaces;
  const namespace = controller.kind.namespaced && namespaces !== 'all' ? namespaces[0] : undefined;
  try {
    await sendRequest(controller.client.kubeConfig, {
      path: collectionPath(controller.kind, namespace),
      query: { limit: '1' },
      shape: 'list',
      inactivityMs: 30_000,
      ...(signal === undefined ? {} : { signal }),
    });
    return undefined;
  } catch (error) {
    // Only "not served" waits; anything else goes to the normal start, which fails fast or retries.
    if (error instanceof KubeApiError && error.status === 404) {
      const explained = controller.primaryCache.explain(namespace ?? '', error, 'startup');
      return explained instanceof CacheSyncError
        ? explained.withContext({ controller: controller.name, eventSource: PRIMARY_SOURCE_NAME })
        : undefined;
    }
    return undefined;
  }
}
