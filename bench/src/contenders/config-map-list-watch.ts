import { CoreV1Api, KubeConfig, ListWatch, Watch, type V1ConfigMap, type V1ConfigMapList } from '@kubernetes/client-node';

/** client-node's `ListWatch` informer of the ConfigMaps in one namespace, not yet started. */
export function configMapListWatch(kubeconfigPath: string, namespace: string): ListWatch<V1ConfigMap> {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfigPath);
  const api = kubeConfig.makeApiClient(CoreV1Api);
  const path = `/api/v1/namespaces/${namespace}/configmaps`;
  // Pages as a user with a large namespace must (the server pages lists past 250,000 objects).
  const listAll = async (): Promise<V1ConfigMapList> => {
    let list: V1ConfigMapList | undefined;
    let next: string | undefined;
    do {
      const page = await api.listNamespacedConfigMap({ namespace, limit: 500, _continue: next });
      if (list === undefined) list = page;
      else list.items.push(...page.items);
      list.metadata = page.metadata;
      next = page.metadata?._continue || undefined;
    } while (next !== undefined);
    return list;
  };
  return new ListWatch<V1ConfigMap>(path, new Watch(kubeConfig), listAll, false);
}
