// Test support, no tests of its own: HTTPS requests to the secure operator server, ServiceAccounts
// with their tokens and the ClusterRoles the tests bind. Not exported from the package index.
import { X509Certificate } from 'node:crypto';
import { request } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { AuthorizationV1Api, RbacAuthorizationV1Api, type KubeConfig } from '@kubernetes/client-node';
import { createServiceAccount, eventually, uniqueName } from '@kindex/testing';

/** An answer of the secure server, with the certificate it presented. */
export interface TlsAnswer {
  readonly status: number;
  readonly body: string;
  /** SHA-256 fingerprint of the served certificate, as X509Certificate#fingerprint256 prints it. */
  readonly fingerprint: string;
}

/** GET over a new TLS connection (no keep-alive: each call sees the certificate served now). */
export function tlsGet(port: number, path: string, options: { token?: string; ca?: string; method?: string } = {}): Promise<TlsAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'GET',
        agent: false,
        ...(options.ca === undefined ? { rejectUnauthorized: false } : { ca: options.ca }),
        headers: options.token === undefined ? {} : { authorization: `Bearer ${options.token}` },
      },
      (res) => {
        const fingerprint = (res.socket as TLSSocket).getPeerCertificate().fingerprint256;
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, fingerprint }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** The fingerprint `tlsGet` reports for a PEM certificate. */
export const fingerprintOf = (pem: string): string => new X509Certificate(pem).fingerprint256;

/** A ServiceAccount in `namespace` and its TokenRequest token. */
export async function serviceAccountToken(
  kubeConfig: KubeConfig,
  namespace: string,
): Promise<{ user: string; token: string; name: string }> {
  const sa = await createServiceAccount(kubeConfig, namespace);
  return { user: sa.user, name: sa.name, token: sa.kubeConfig.getCurrentUser()!.token! };
}

/**
 * Binds a ClusterRole of `get` on `urls` to the ServiceAccount and waits until the API server
 * allows it (kube-apiserver's authorizer reads bindings from informers): the operator would
 * otherwise cache an early denial for its TTL. Returns the objects' name, for cleanup.
 */
export async function grantNonResourceUrls(
  kubeConfig: KubeConfig,
  account: { user: string; name: string },
  namespace: string,
  urls: readonly string[],
  role?: { readonly metadata: { readonly name: string }; readonly rules: readonly object[] },
): Promise<string> {
  const rbac = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  const name = role?.metadata.name ?? uniqueName('reader');
  if (role !== undefined) await rbac.createClusterRole({ body: JSON.parse(JSON.stringify(role)) as never });
  else await rbac.createClusterRole({ body: { metadata: { name }, rules: [{ nonResourceURLs: [...urls], verbs: ['get'] }] } });
  await rbac.createClusterRoleBinding({
    body: {
      metadata: { name },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: [{ kind: 'ServiceAccount', name: account.name, namespace }],
    },
  });
  const authz = kubeConfig.makeApiClient(AuthorizationV1Api);
  await eventually(
    async () => {
      const review = await authz.createSubjectAccessReview({
        body: { spec: { user: account.user, groups: ['system:authenticated'], nonResourceAttributes: { path: urls[0]!, verb: 'get' } } },
      });
      if (review.status?.allowed !== true) throw new Error(`${account.user} may not get ${urls[0]} yet`);
    },
    { timeoutMs: 20_000 },
  );
  return name;
}

/** Deletes what {@link grantNonResourceUrls} created. */
export async function revoke(kubeConfig: KubeConfig, name: string): Promise<void> {
  const rbac = kubeConfig.makeApiClient(RbacAuthorizationV1Api);
  await rbac.deleteClusterRoleBinding({ name }).catch(() => undefined);
  await rbac.deleteClusterRole({ name }).catch(() => undefined);
}
