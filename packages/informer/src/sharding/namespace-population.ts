import type { KubeClient } from '../client/kube-client.js';
import { Kinds } from '../kind/resource-kind.js';
import { listItems } from './internal/list-items.js';

/**
 * @internal The names of the namespaces present (those matching `labelSelector`, if given): the
 * population a namespace-sharded group balances its shard map over. One list per call, made by
 * the owner of shard 0 every 5 rounds; namespaces are few and small, so no cache is kept.
 */
export async function listNamespaceNames(client: KubeClient, labelSelector: string | undefined): Promise<string[]> {
  const items = await listItems(client, Kinds.Namespace, undefined, labelSelector);
  return items.flatMap((n) => (n.metadata?.name === undefined ? [] : [n.metadata.name]));
}
