// The kubeconfig of the embedded server's own client, as a KubeConfig and as YAML for kubectl.

import { KubeConfig } from '@kubernetes/client-node';
import { stringify as toYaml } from 'yaml';

const CONTEXT = 'kindex-embedded';

/** A kubeconfig for `url` with bearer `token`; TLS is not verified (the certificate is self-signed). */
export function embeddedKubeConfig(url: string, token: string): { kubeConfig: KubeConfig; yaml: string } {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: CONTEXT, server: url, skipTLSVerify: true }],
    users: [{ name: CONTEXT, token }],
    contexts: [{ name: CONTEXT, cluster: CONTEXT, user: CONTEXT }],
    currentContext: CONTEXT,
  });
  const yaml = toYaml({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: CONTEXT,
        // Set for plain HTTP too: client-node refuses an http:// cluster unless it is ("HTTP protocol is
        // not allowed when skipTLSVerify is not set or false"), and kubectl ignores it there.
        cluster: { server: url, 'insecure-skip-tls-verify': true },
      },
    ],
    users: [{ name: CONTEXT, user: { token } }],
    contexts: [{ name: CONTEXT, context: { cluster: CONTEXT, user: CONTEXT } }],
    'current-context': CONTEXT,
  });
  return { kubeConfig, yaml };
}
