import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { uniqueName } from './unique-name.js';

/**
 * A ServiceAccount made by {@link createServiceAccount}, with a kubeconfig that authenticates as it.
 *
 * @example
 * ```ts
 * import { createServiceAccount, type TestServiceAccount, type TestApiServer } from '@kindex/testing';
 * declare const server: TestApiServer;
 *
 * const sa: TestServiceAccount = await createServiceAccount(server.kubeConfig, 'default');
 * // Bind a Role to it as { kind: 'ServiceAccount', name: sa.name, namespace: sa.namespace }; 403s name sa.user.
 * console.log(sa.user); // system:serviceaccount:default:sa-...
 * ```
 */
export interface TestServiceAccount {
  /** The ServiceAccount's name. */
  readonly name: string;
  /** Its namespace. */
  readonly namespace: string;
  /** The username RBAC sees: `system:serviceaccount:<namespace>:<name>`. */
  readonly user: string;
  /** The admin kubeconfig's cluster, with a TokenRequest token of this ServiceAccount. */
  readonly kubeConfig: KubeConfig;
}

/**
 * Creates a ServiceAccount (a fresh {@link uniqueName} unless `name` is given) and a kubeconfig
 * that authenticates as it, with a token from a TokenRequest (`serviceaccounts/<name>/token`, an
 * hour long): the way to run an operator as its ServiceAccount and check that the Role
 * `Operator.rbacManifest()` derives is enough. It has no rights until something is bound to it.
 * Works on a real kube-apiserver and on the embedded one (enforcing RBAC with `authorization: 'RBAC'`).
 *
 * @example
 * ```ts
 * import { createNamespace, createServiceAccount, useTestApiServer } from '@kindex/testing';
 * import { CoreV1Api } from '@kubernetes/client-node';
 *
 * describe('operator RBAC', () => {
 *   const server = useTestApiServer({ shared: true, authorization: 'RBAC' });
 *   it('refuses what no Role grants', async () => {
 *     const namespace = await createNamespace(server().kubeConfig);
 *     const sa = await createServiceAccount(server().kubeConfig, namespace);
 *     // 403: configmaps is forbidden: User "system:serviceaccount:<namespace>:<name>" cannot list resource "configmaps" ...
 *     await sa.kubeConfig.makeApiClient(CoreV1Api).listNamespacedConfigMap({ namespace }).catch((e: unknown) => console.log(e));
 *   });
 * });
 * ```
 */
export async function createServiceAccount(
  kubeConfig: KubeConfig,
  namespace: string,
  name: string = uniqueName('sa'),
): Promise<TestServiceAccount> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  await core.createNamespacedServiceAccount({ namespace, body: { metadata: { name } } });
  const request = await core.createNamespacedServiceAccountToken({
    name,
    namespace,
    body: { spec: { audiences: [], expirationSeconds: 3600 } },
  });
  const cluster = kubeConfig.getCurrentCluster();
  if (cluster === null) throw new Error('createServiceAccount: the kubeconfig has no current cluster; pass one with a current context');
  const asAccount = new KubeConfig();
  asAccount.loadFromClusterAndUser(cluster, { name, token: request.status!.token });
  return { name, namespace, user: `system:serviceaccount:${namespace}:${name}`, kubeConfig: asAccount };
}
