// One remote cluster name, one cluster: sources built on one client may share a name only with
// the same kubeconfig, and a stopped source frees its name (a fleet engaging a cluster again
// with new credentials). No server is contacted: building a source sends no request.
import { expect } from 'chai';
import { KubeConfig } from '@kubernetes/client-node';
import { fromAnnotations, InformerEventSource, Kinds, KubeClient, type RemoteCluster } from '../index.js';

function kubeConfig(server: string, user: string, token = 't'): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: false }],
    users: [{ name: user, token }],
    contexts: [{ name: 'c', cluster: 'c', user }],
    currentContext: 'c',
  });
  return kc;
}

function build(client: KubeClient, name: string, cluster: RemoteCluster): InformerEventSource {
  return InformerEventSource.from(Kinds.Secret, Kinds.ConfigMap)
    .withName(name)
    .withRemoteCluster(cluster)
    .withSecondaryToPrimaryMapper(fromAnnotations())
    .build(client);
}

describe('remote cluster names', () => {
  const client = new KubeClient(kubeConfig('https://a.example:6443', 'operator'));
  const b1 = kubeConfig('https://b1.example:6443', 'admin');

  it('lets sources share a name with the same kubeconfig, also loaded twice', async () => {
    const first = build(client, 'first', { name: 'same', kubeConfig: b1 });
    const again = new KubeConfig();
    again.loadFromString(b1.exportConfig());
    const second = build(client, 'second', { name: 'same', kubeConfig: again });
    await Promise.all([first.stop(), second.stop()]);
  });

  it('refuses a name given to another kubeconfig, naming both, until the other source stops', async () => {
    const first = build(client, 'first', { name: 'taken', kubeConfig: b1 });
    const b2 = kubeConfig('https://b2.example:6443', 'ops');
    expect(() => build(client, 'second', { name: 'taken', kubeConfig: b2 })).to.throw(
      TypeError,
      'remote cluster taken is named twice with different kubeconfigs: event source first reaches https://b1.example:6443 as admin, event source second reaches https://b2.example:6443 as ops; give each cluster its own name, or share one RemoteCluster',
    );
    // Other credentials on the same server are another identity there: refused too.
    expect(() => build(client, 'third', { name: 'taken', kubeConfig: kubeConfig('https://b1.example:6443', 'admin', 'other') })).to.throw(
      TypeError,
      /named twice with different kubeconfigs/,
    );
    // Another operator's client does not share the names.
    const other = build(new KubeClient(kubeConfig('https://a.example:6443', 'operator')), 'elsewhere', { name: 'taken', kubeConfig: b2 });
    await other.stop();
    await first.stop();
    const second = build(client, 'second', { name: 'taken', kubeConfig: b2 });
    await second.stop();
  });
});
