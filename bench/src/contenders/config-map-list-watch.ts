import { CoreV1Api, KubeConfig, ListWatch, Watch, type V1ConfigMap } from '@kubernetes/client-node';

/** client-node's `ListWatch` informer of the ConfigMaps in one namespace, not yet started. */
export function configMapListWatch(kubeconfigPath: string, namespace: string): ListWatch<V1ConfigMap> {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfigPath);
  const api = kubeConfig.makeApiClient(CoreV1Api);
  const path = `/api/v1/namespaces/${namespace}/configmaps`;
  return new ListWatch<V1ConfigMap>(path, new Watch(kubeConfig), () => api.listNamespacedConfigMap({ namespace }), false);
}
