import { expect } from 'chai';
import { ApiextensionsV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { Environment } from '@marcbachmann/cel-js';
import { catchApiStatus } from '../../helpers/api-status.js';
import { createTestCrd } from '../../helpers/test-crd.js';
import { startEmbeddedApiServer } from '../embedded-api-server.js';

// What the conformance suite cannot show: how often the embedded server compiles a CRD's rules.
describe('validation rules (embedded server only)', () => {
  it("compiles a served CRD version's rules once, whatever the number of requests validated with them", async () => {
    const server = await startEmbeddedApiServer();
    // Counts the CEL programs built while objects are written (the rules' environment is a
    // cel-js Environment: every parse goes through its prototype).
    // eslint-disable-next-line @typescript-eslint/unbound-method -- put back as it was, and called with its `this`
    const parse = Environment.prototype.parse;
    let compilations = 0;
    try {
      const { kubeConfig } = server;
      const custom = kubeConfig.makeApiClient(CustomObjectsApi);
      const crd = await createTestCrd(kubeConfig.makeApiClient(ApiextensionsV1Api), custom, {
        specSchema: {
          type: 'object',
          properties: { n: { type: 'integer', x_kubernetes_validations: [{ rule: 'self < 3', message: 'small' }] } },
          x_kubernetes_validations: [{ rule: 'self.n >= 0', message: 'not negative' }],
        },
      });
      const at = { group: crd.group, version: crd.version, plural: crd.plural, namespace: 'default' };
      const body = (name: string, n: number) => ({ apiVersion: crd.apiVersion, kind: crd.kind, metadata: { name }, spec: { n } });
      Environment.prototype.parse = function (this: Environment, expression: string) {
        compilations++;
        return parse.call(this, expression);
      };
      for (let i = 0; i < 5; i++) await custom.createNamespacedCustomObject({ ...at, body: body(`w${i}`, 1) });
      expect((await catchApiStatus(custom.createNamespacedCustomObject({ ...at, body: body('big', 7) }))).code).to.equal(422);
      await custom.patchNamespacedCustomObject(
        { ...at, name: 'w0', body: { spec: { n: 2 } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      expect(compilations, 'two rules, each compiled once').to.equal(2);
    } finally {
      Environment.prototype.parse = parse;
      await server.stop();
    }
  });
});
