import { expect } from 'chai';
import { SERVED_KINDS } from '../../conformance/served-kinds.js';
import { rawRequest } from '../../helpers/raw-request.js';
import { useTestApiServer } from '../../helpers/use-test-api-server.js';

// The conformance suite checks each kind of SERVED_KINDS against kube-apiserver's discovery; this
// keeps the table complete, so a kind added to the embedded server cannot skip that check.
describe('aggregated discovery (embedded server)', () => {
  // A server of its own: CRDs other files leave on a shared one would be listed too.
  const server = useTestApiServer({ shared: false });

  it('lists exactly the kinds of the table the conformance suite compares with kube-apiserver', async () => {
    const listed: string[] = [];
    for (const path of ['/api', '/apis']) {
      const response = await rawRequest(server().kubeConfig, {
        path,
        headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' },
      });
      const doc = JSON.parse(response.text) as {
        items: { metadata: { name?: string }; versions: { version: string; resources: { resource: string }[] }[] }[];
      };
      for (const g of doc.items) {
        for (const v of g.versions) for (const r of v.resources) listed.push(`${g.metadata.name ?? ''}/${v.version}/${r.resource}`);
      }
    }
    expect(listed.sort()).to.deep.equal(SERVED_KINDS.map((k) => `${k.group}/${k.version}/${k.resource}`).sort());
  });
});
