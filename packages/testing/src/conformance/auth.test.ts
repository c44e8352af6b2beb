import { expect } from 'chai';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { catchApiStatus, isStatus } from '../helpers/api-status.js';
import { rawRequest } from '../helpers/raw-request.js';
import { useConformanceFixture } from './conformance-fixture.js';

describe('conformance: bearer-token authentication', () => {
  const fixture = useConformanceFixture();

  function withToken(token: string): KubeConfig {
    const original = fixture().kubeConfig;
    const cluster = original.getCurrentCluster()!;
    const kc = new KubeConfig();
    kc.loadFromClusterAndUser(cluster, { name: 'intruder', token });
    return kc;
  }

  it('a request without a token gets 401 Unauthorized as a Status', async () => {
    const { namespace } = fixture();
    const response = await rawRequest(fixture().kubeConfig, {
      path: `/api/v1/namespaces/${namespace}/configmaps`,
      authenticate: false,
      headers: { accept: 'application/json' },
    });
    expect(response.status).to.equal(401);
    const body = JSON.parse(response.text) as unknown;
    expect(isStatus(body)).to.equal(true);
    expect(body).to.include({ code: 401, reason: 'Unauthorized' });
  });

  it('a request with a wrong token gets 401 Unauthorized', async () => {
    const { namespace } = fixture();
    const status = await catchApiStatus(withToken('not-the-token').makeApiClient(CoreV1Api).listNamespacedConfigMap({ namespace }));
    expect(status.code).to.equal(401);
  });

  it('a watch without a token gets 401', async () => {
    const { namespace } = fixture();
    const response = await rawRequest(fixture().kubeConfig, {
      path: `/api/v1/namespaces/${namespace}/configmaps?watch=true&timeoutSeconds=1`,
      authenticate: false,
    });
    expect(response.status).to.equal(401);
  });

  it('writes without a valid token are refused and store nothing', async () => {
    const { core, namespace } = fixture();
    const status = await catchApiStatus(
      withToken('forged').makeApiClient(CoreV1Api).createNamespacedConfigMap({
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
