import { expect } from 'chai';
import { rawRequest } from '../../helpers/raw-request.js';
import { useTestApiServer } from '../../helpers/use-test-api-server.js';

// What only the embedded server does: kube-apiserver also serves the v3 documents in protobuf
// (the conformance suite covers what both do).
describe('OpenApiDocuments (embedded server)', () => {
  const server = useTestApiServer({ shared: true });

  it('answers 406 with a Status naming JSON to a protobuf-only Accept on a v3 document, and JSON to a JSON one', async () => {
    const path = '/openapi/v3/api/v1';
    const accept = 'application/com.github.proto-openapi.spec.v3@v1.0+protobuf';
    const refused = await rawRequest(server().kubeConfig, { path, headers: { accept } });
    expect(refused.status).to.equal(406);
    expect(JSON.parse(refused.text)).to.include({
      kind: 'Status',
      reason: 'NotAcceptable',
      message: 'only the following media types are accepted: application/json',
    });
    const served = await rawRequest(server().kubeConfig, { path, headers: { accept: `${accept},application/json` } });
    expect(served.status).to.equal(200);
    expect(served.headers['content-type']).to.equal('application/json');
  });

  it('answers 406 naming JSON and protobuf to an Accept /openapi/v2 cannot meet', async () => {
    const refused = await rawRequest(server().kubeConfig, { path: '/openapi/v2', headers: { accept: 'application/yaml' } });
    expect(refused.status).to.equal(406);
    expect((JSON.parse(refused.text) as { message: string }).message).to.equal(
      'only the following media types are accepted: application/json, application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
    );
  });
});
