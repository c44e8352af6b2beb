import { expect } from 'chai';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfigInsecureServerError, KubeConfigNotFoundError } from '@kindex/informer';
import { loadKubeConfigWithPrefix } from './internal/load.js';

// The pod's service account under a temporary directory, as client-node's loadFromCluster(pathPrefix) reads it.
describe('loadKubeConfig in a pod', () => {
  let prefix: string;
  const root = (): string => join(prefix, 'var/run/secrets/kubernetes.io/serviceaccount');
  beforeEach(() => {
    prefix = mkdtempSync(join(tmpdir(), 'kindex-in-cluster-'));
    mkdirSync(root(), { recursive: true });
    writeFileSync(join(root(), 'token'), 'pod-token');
    writeFileSync(join(root(), 'ca.crt'), 'ca');
    writeFileSync(join(root(), 'namespace'), 'shop');
  });
  afterEach(() => rmSync(prefix, { recursive: true, force: true }));

  const pod = { KUBERNETES_SERVICE_HOST: '10.96.0.1', KUBERNETES_SERVICE_PORT: '443' };

  it("uses the service account when there is no kubeconfig, as client-node's loadFromCluster", () => {
    const kubeConfig = loadKubeConfigWithPrefix({ env: { ...pod, HOME: prefix } }, prefix);
    expect(kubeConfig.getCurrentCluster()).to.include({ server: 'https://10.96.0.1:443', caFile: join(root(), 'ca.crt') });
    expect(kubeConfig.getContextObject(kubeConfig.getCurrentContext())?.namespace).to.equal('shop');
    expect(kubeConfig.getCurrentUser()?.authProvider?.config?.['tokenFile']).to.equal(join(root(), 'token'));
    // client-node reads the variables from process.env; they are not left there.
    expect(process.env['KUBERNETES_SERVICE_HOST']).to.equal(undefined);
  });

  it('brackets an IPv6 service host', () => {
    const kubeConfig = loadKubeConfigWithPrefix({ env: { ...pod, KUBERNETES_SERVICE_HOST: 'fd00::1' } }, prefix);
    expect(kubeConfig.getCurrentCluster()?.server).to.equal('https://[fd00::1]:443');
  });

  it('comes after ~/.kube/config', () => {
    mkdirSync(join(prefix, '.kube'));
    writeFileSync(
      join(prefix, '.kube', 'config'),
      'clusters: [{name: c, cluster: {server: "https://home"}}]\nusers: [{name: u, user: {}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n',
    );
    expect(loadKubeConfigWithPrefix({ env: { ...pod, HOME: prefix } }, prefix).getCurrentCluster()?.server).to.equal('https://home');
  });

  it('needs both variables and the token', () => {
    expect(() => loadKubeConfigWithPrefix({ env: { KUBERNETES_SERVICE_HOST: '10.96.0.1' } }, prefix)).to.throw(
      KubeConfigNotFoundError,
      'in-cluster: KUBERNETES_SERVICE_PORT is not set',
    );
    rmSync(join(root(), 'token'));
    expect(() => loadKubeConfigWithPrefix({ env: pod }, prefix)).to.throw(
      KubeConfigNotFoundError,
      `in-cluster: ${join(root(), 'token')} does not exist`,
    );
  });

  it("fails on client-node's plain-HTTP choice for ports 80, 8080 and 8001", () => {
    expect(() => loadKubeConfigWithPrefix({ env: { ...pod, KUBERNETES_SERVICE_PORT: '8080' } }, prefix)).to.throw(
      KubeConfigInsecureServerError,
      'cluster "inCluster" of the in-cluster configuration (http://10.96.0.1:8080',
    );
  });
});
