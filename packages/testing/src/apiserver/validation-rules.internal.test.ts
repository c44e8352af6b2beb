import { expect } from 'chai';
import { ApiextensionsV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { catchApiStatus } from '../helpers/api-status.js';
import { createTestCrd } from '../helpers/test-crd.js';
import { startEmbeddedApiServer } from './embedded-api-server.js';
import { ruleCompilations, ruleCompileErrors, ruleCostCauses, ruleViolations } from './validation-rules.js';

// What the conformance suite cannot show because the real server differs on purpose: Kubernetes
// CEL libraries the embedded server lacks are refused at CRD creation with a hint, not skipped.
describe('validation rules (embedded server only)', () => {
  it('refuses a rule calling a Kubernetes library the embedded server lacks, naming the fix', () => {
    const schema = { type: 'object', 'x-kubernetes-validations': [{ rule: 'isCIDR(self.net)' }] };
    const [cause] = ruleCompileErrors(schema, 'spec.validation.openAPIV3Schema');
    expect(cause?.field).to.equal('spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule');
    expect(cause?.message).to.include("found no matching overload for 'isCIDR(dyn)'");
    expect(cause?.message).to.include('KINDEX_APISERVER=real');
  });

  it('compiles each rule once per schema node, not per request', () => {
    const schema = { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.n < 3', message: 'small' }] };
    expect(ruleViolations({ n: 5 }, undefined, schema)).to.have.length(1);
    // Changing the rule text of a schema already compiled does not recompile it: a CRD write
    // builds new schema nodes, so a served version's programs never go stale.
    (schema['x-kubernetes-validations'][0] as { rule: string }).rule = 'self.n < 10';
    expect(ruleViolations({ n: 5 }, undefined, schema)).to.have.length(1);
    expect(ruleViolations({ n: 5 }, undefined, structuredClone(schema))).to.deep.equal([]);
  });

  it("compiles a served CRD version's rules once, whatever the number of requests validated with them", async () => {
    const server = await startEmbeddedApiServer();
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
      const before = ruleCompilations();
      for (let i = 0; i < 5; i++) await custom.createNamespacedCustomObject({ ...at, body: body(`w${i}`, 1) });
      expect((await catchApiStatus(custom.createNamespacedCustomObject({ ...at, body: body('big', 7) }))).code).to.equal(422);
      await custom.patchNamespacedCustomObject(
        { ...at, name: 'w0', body: { spec: { n: 2 } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      expect(ruleCompilations() - before, 'two rules, each compiled once').to.equal(2);
    } finally {
      await server.stop();
    }
  });

  // Checked on kube-apiserver 1.36 by hand: a CRD whose root rule matches metadata.name is accepted
  // (the conformance fixture's CRDs cannot put a rule at the root).
  it('costs metadata.name at the resource root as the unbounded string kube-apiserver declares, not as unknown', () => {
    const schema = {
      type: 'object',
      properties: { metadata: { type: 'object' }, spec: { type: 'object' } },
      'x-kubernetes-validations': [{ rule: "self.metadata.name.matches('^[a-z]{1,10}-[0-9]+$') && self.kind.startsWith('W')" }],
    };
    expect(ruleCostCauses(schema, 'spec.validation.openAPIV3Schema')).to.deep.equal([]);
  });
});
