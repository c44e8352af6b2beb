// customResource() warns when it is defined about a CEL rule or messageExpression whose estimated
// cost is over kube-apiserver's static budget. Judged against the server's answer to the same CRD
// over HTTP (embedded by default, kube-apiserver with KINDEX_APISERVER=real): the causes of its
// 422 must be exactly those @kindex/core's estimator predicts, and a CRD without a warning must be
// accepted. On the real server this is the conformance check of the shared estimator.
import { expect } from 'chai';
import Type, { type TSchema } from 'typebox';
import { validationRuleErrors } from '@kindex/core/internal';
import { rawRequest, uniqueName, useTestApiServer } from '@kindex/testing';
import { customResource, type CustomResourceDefinition } from '../index.js';

const HINT = 'bound what it reads in the schema: maxLength on strings, maxItems on arrays, maxProperties on maps';
const RULE = "self.all(n, n.matches('^a.*z$'))";

/** Defines a Widget whose spec is `spec`, returning its CRD and the warnings the definition emitted. */
function define(spec: TSchema): { crd: CustomResourceDefinition; warnings: string[] } {
  const warnings: string[] = [];
  // eslint-disable-next-line @typescript-eslint/unbound-method -- put back on `process` as it was
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, options?: { type?: string; code?: string }) => {
    expect(options).to.deep.include({ type: 'KindexRuleCostWarning', code: 'KINDEX_RULE_COST' });
    warnings.push(String(warning));
  }) as typeof process.emitWarning;
  try {
    const Widgets = customResource({
      group: `${uniqueName('cost')}.kindex.dev`,
      kind: 'Widget',
      plural: 'widgets',
      versions: { v1: { spec } },
    });
    return { crd: Widgets.crd, warnings };
  } finally {
    process.emitWarning = emitWarning;
  }
}

describe('customResource rule cost warning', function () {
  this.timeout(120_000);
  const server = useTestApiServer({ shared: true });

  /** The causes of the server's 422 for `crd`, or undefined when it accepts it. */
  async function serverCauses(crd: CustomResourceDefinition): Promise<unknown[] | undefined> {
    // Sent as JSON: client-node's typed client would drop `x-kubernetes-validations` (it expects
    // its model's names).
    const path = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
    const body = JSON.stringify(crd);
    const created = await rawRequest(server().kubeConfig, { method: 'POST', path, body, headers: { 'content-type': 'application/json' } });
    if (created.status === 201) {
      await rawRequest(server().kubeConfig, { method: 'DELETE', path: `${path}/${crd.metadata.name}` });
      return undefined;
    }
    const status = JSON.parse(created.text) as { code: number; reason: string; details?: { causes?: unknown[] } };
    expect(status).to.include({ code: 422, reason: 'Invalid' });
    return status.details?.causes ?? [];
  }

  /** The causes @kindex/core's estimator predicts for the CRD's only version. */
  function predicted(crd: CustomResourceDefinition): unknown[] {
    const schema = crd.spec.versions[0]!.schema.openAPIV3Schema;
    return validationRuleErrors(schema, 'spec.validation.openAPIV3Schema').cost.map(({ reason, field, message }) => ({
      reason,
      field,
      message,
    }));
  }

  it('warns about a rule over an unbounded list of unbounded strings, naming the CRD, field, rule, cost, limit and fix; the server refuses it as predicted', async () => {
    const { crd, warnings } = define(Type.Object({ names: Type.Array(Type.String(), { 'x-kubernetes-validations': [{ rule: RULE }] }) }));
    expect(warnings).to.deep.equal([
      `customResource Widget v1: kube-apiserver will refuse this CRD: the rule ${JSON.stringify(RULE)} at openAPIV3Schema.properties[spec].properties[names].x-kubernetes-validations[0] has an estimated cost of 659,710,961,252, over the limit of 10,000,000 for one expression; ${HINT}`,
    ]);
    const causes = await serverCauses(crd);
    expect(causes).to.have.length(3);
    expect(causes).to.deep.equal(predicted(crd));
  });

  it('warns with the estimate when only the list is bounded (kube-apiserver: 6.3x the budget)', async () => {
    const { crd, warnings } = define(
      Type.Object({ names: Type.Array(Type.String(), { maxItems: 100, 'x-kubernetes-validations': [{ rule: RULE }] }) }),
    );
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.match(/has an estimated cost of 62,915,002, over the limit of 10,000,000 for one expression/);
    const causes = await serverCauses(crd);
    expect(causes).to.deep.equal(predicted(crd));
    expect(JSON.stringify(causes)).to.include('exceeds budget by factor of 6.3x');
  });

  it('warns about a messageExpression concatenating string(self.replicas), which the server refuses as predicted', async () => {
    const messageExpression = "'replicas ' + string(self.replicas) + ' exceed 5'";
    const { crd, warnings } = define(
      Type.Object({ replicas: Type.Integer() }, { 'x-kubernetes-validations': [{ rule: 'self.replicas <= 5', messageExpression }] }),
    );
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.include(
      `the messageExpression ${JSON.stringify(messageExpression)} at openAPIV3Schema.properties[spec].x-kubernetes-validations[0] has an estimated cost of`,
    );
    expect(await serverCauses(crd)).to.deep.equal(predicted(crd));
  });

  it('does not warn when maxItems and maxLength bound the rule, and the server accepts the CRD', async () => {
    const { crd, warnings } = define(
      Type.Object({ names: Type.Array(Type.String({ maxLength: 64 }), { maxItems: 100, 'x-kubernetes-validations': [{ rule: RULE }] }) }),
    );
    expect(warnings).to.deep.equal([]);
    expect(predicted(crd)).to.deep.equal([]);
    expect(await serverCauses(crd)).to.equal(undefined);
  });

  it('does not warn about a string conversion compared with a literal, and the server accepts the CRD', async () => {
    const { crd, warnings } = define(
      Type.Object(
        { replicas: Type.Integer() },
        {
          'x-kubernetes-validations': [
            {
              rule: "string(self.replicas) != '13'",
              messageExpression: "self.replicas > 5 ? 'replicas exceed 5' : 'replicas are unlucky'",
            },
          ],
        },
      ),
    );
    expect(warnings).to.deep.equal([]);
    expect(await serverCauses(crd)).to.equal(undefined);
  });
});
