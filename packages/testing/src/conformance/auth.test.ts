import { expect } from 'chai';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { catchApiStatus, isStatus } from '../helpers/api-status.js';
import { rawRequest } from '../helpers/raw-request.js';
import { configMapsPath, useConformanceFixture } from './conformance-fixture.js';

describe('conformance: bearer-token authentication', () => {
  const fixture = useConformanceFixture();

  function withToken(token: string): KubeConfig {
    const original = fixture().kubeConfig;
    const cluster = original.getCurrentCluster()!;
    const kc = new KubeConfig();
    kc.loadFromClusterAndUser(cluster, { name: 'intruder', token });
    return kc;
  }

  // Kubernetes answers 401 when anonymous requests are disabled; with --anonymous-auth (a real
  // kube-apiserver's default) the request runs as system:anonymous and authorization refuses it.
  function expectRefusedWithoutCredentials(response: { status: number; text: string }): void {
    expect(response.status).to.be.oneOf([401, 403]);
    const body = JSON.parse(response.text) as unknown;
    expect(isStatus(body), 'the refusal is a Status').to.equal(true);
    if (response.status === 401) expect(body).to.include({ code: 401, reason: 'Unauthorized' });
    else expect(body).to.include({ code: 403, reason: 'Forbidden' }).and.have.property('message').that.contains('system:anonymous');
  }

  it('a request without a token is refused: 401 Unauthorized (403 for system:anonymous if anonymous auth is on)', async () => {
    const { namespace } = fixture();
    const response = await rawRequest(fixture().kubeConfig, {
      path: configMapsPath(namespace),
      authenticate: false,
      headers: { accept: 'application/json' },
    });
    expectRefusedWithoutCredentials(response);
  });

  it('a request with a wrong token gets 401 Unauthorized', async () => {
    const { namespace } = fixture();
    const status = await catchApiStatus(withToken('not-the-token').makeApiClient(CoreV1Api).listNamespacedConfigMap({ namespace }));
    expect(status.code).to.equal(401);
  });

  it('a watch without a token is refused like any other request', async () => {
    const { namespace } = fixture();
    const response = await rawRequest(fixture().kubeConfig, {
      path: `${configMapsPath(namespace)}?watch=true&timeoutSeconds=1`,
      authenticate: false,
      headers: { accept: 'application/json' },
    });
    expectRefusedWithoutCredentials(response);
  });

  it('writes without a valid token are refused and store nothing', async () => {
    const { core, namespace } = fixture();
    const status = await catchApiStatus(
      withToken('forged')
        .makeApiClient(CoreV1Api)
        .createNamespacedConfigMap({
          namespace,
          body: { metadata: { name: 'forged' }, data: { a: 'b' } },
        }),
    );
    expect(status.code).to.equal(401);
    expect((await core.listNamespacedConfigMap({ namespace })).items).to.deep.equal([]);
  });

  it("requests with the kubeconfig's credentials succeed", async () => {
    const { core, namespace } = fixture();
    const list = await core.listNamespacedConfigMap({ namespace });
    expect(list.items).to.deep.equal([]);
  });
});
