import { expect } from 'chai';
import { ruleCompileErrors, ruleCostCauses, ruleViolations } from './validation-rules.js';

describe('validation rules', () => {
  it('refuses a rule calling a Kubernetes library kindex lacks, naming the fix, and marks it unsupported', () => {
    const schema = { type: 'object', 'x-kubernetes-validations': [{ rule: 'isCIDR(self.net)' }] };
    const [cause] = ruleCompileErrors(schema, 'spec.validation.openAPIV3Schema');
    expect(cause?.field).to.equal('spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule');
    expect(cause?.message).to.include("found no matching overload for 'isCIDR(dyn)'");
    expect(cause?.message).to.include('KINDEX_APISERVER=real');
    expect(cause?.unsupported).to.equal(true);
    expect(ruleCompileErrors({ 'x-kubernetes-validations': [{ rule: 'self.n <' }] }, 'x')[0]?.unsupported).to.equal(false);
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

  it('does not evaluate a rule that needs a library kindex lacks (the server judges it)', () => {
    const schema = { type: 'object', 'x-kubernetes-validations': [{ rule: 'isCIDR(self.net)', message: 'a CIDR' }] };
    expect(ruleViolations({ net: 'not a cidr' }, undefined, schema)).to.deep.equal([]);
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
