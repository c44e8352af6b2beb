import type { KubernetesObject } from '@kindex/core';
import type { KubeClient } from '../../client/kube-client.js';
import { openGet, readBody } from '../../reflector/internal/kube-request.js';
import { collectionPath, type ResourceType } from '../../reflector/resource-type.js';

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
  const open = await openGet(
    client.kubeConfig,
    collectionPath(type, namespace),
    labelSelector === undefined ? {} : { labelSelector },
    30_000,
    AbortSignal.timeout(30_000),
  );
  let text: string;
  try {
    text = await readBody(open);
  } finally {
    open.close();
  }
  const body = JSON.parse(text) as { items?: T[] };
  if (!Array.isArray(body.items)) throw new Error(`${open.description}: not a list of ${type.plural}`);
  return body.items;
}
