import { expect } from 'chai';
import { ruleCompileErrors, ruleViolations } from './validation-rules.js';

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
});
