// The objects kube-apiserver creates when it starts: the system namespaces and, whether or not
// RBAC is on, its bootstrap ClusterRoles and ClusterRoleBindings.

import type { RegistryStorage } from '../registry/registry-storage.js';
import type { ResourceType } from '../storage/resource-registry.js';
import type { Json } from '../storage/object-store.js';
import { createResource } from '../registry/verb-create.js';

/** Creates the system namespaces and the bootstrap policy objects. */
export function createBootstrapObjects(s: RegistryStorage, bootstrapPolicy: readonly Json[]): void {
  const nsType = s.types.byTypeId('/namespaces')!;
  for (const name of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
    create(s, nsType, { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name } } });
  }
  for (const body of bootstrapPolicy) {
    const resource = body['kind'] === 'ClusterRole' ? 'clusterroles' : 'clusterrolebindings';
    create(s, s.types.lookup('rbac.authorization.k8s.io', 'v1', resource)!, structuredClone(body));
  }
}

function create(s: RegistryStorage, type: ResourceType, body: Json): void {
  createResource(s, {
    type,
    version: 'v1',
    namespace: undefined,
    name: undefined,
    subresource: undefined,
    query: new URLSearchParams(),
    body,
    contentType: 'application/json',
    userAgent: 'kube-apiserver',
  });
}
