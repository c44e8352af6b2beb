import type { KubernetesObject } from '@kindex/core';
import type { KubeClient } from '../../client/kube-client.js';
import { decodeBody, sendRequest } from '../../client/kube-request.js';
import { collectionPath, type ResourceType } from '../../kind/resource-type.js';

/**
 * The items of one list call (no cache, no watch): for the few small objects a shard group
 * reads each round, its Leases and the namespaces it balances over.
 */
export async function listItems<T extends KubernetesObject>(
  client: KubeClient,
  type: ResourceType,
  namespace: string | undefined,
  labelSelector: string | undefined,
): Promise<T[]> {
  const { open, body } = await sendRequest(client.kubeConfig, {
    path: collectionPath(type, namespace),
    query: labelSelector === undefined ? {} : { labelSelector },
    shape: 'list',
    inactivityMs: 30_000,
    signal: AbortSignal.timeout(30_000),
  });
  const list = decodeBody(open, body, 'list') as { items?: T[] } | null;
  if (!Array.isArray(list?.items)) throw new Error(`${open.description}: not a list of ${type.plural}`);
  return list.items;
}
