import type { V1JSONSchemaProps } from '@kubernetes/client-node';
import { expect } from 'chai';
import { catchApiStatus } from '../helpers/api-status.js';
import { createTestCrd } from '../helpers/test-crd.js';
import { uniqueName } from '../helpers/unique-name.js';
import { useConformanceFixture } from './conformance-fixture.js';

// A conversion to string has no size estimate in cel-go (checker/cost.go sizes only bytes to
// string), so kube-apiserver takes its size as unknown: a messageExpression concatenating
// `string(self.replicas)` has an unbounded estimated cost and the CRD is refused, while comparing
// the same conversion with a literal costs what the literal's length allows.
const SCHEMA = 'spec.validation.openAPIV3Schema';
const HINT = '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';

const replicas = (rule: { rule: string; messageExpression?: string }): V1JSONSchemaProps => ({
  type: 'object',
  properties: { replicas: { type: 'integer' } },
  x_kubernetes_validations: [rule],
});

describe('conformance: CRD messageExpression cost of string conversions', () => {
  const fixture = useConformanceFixture();

  function create(specSchema: V1JSONSchemaProps) {
    const { apiextensions, custom } = fixture();
    return createTestCrd(apiextensions, custom, { group: `${uniqueName('msg')}.kindex.dev`, specSchema });
  }

  it('refuses a messageExpression concatenating string(self.replicas): the expression, its share of the total, and the total', async () => {
    const status = await catchApiStatus(
      create(replicas({ rule: 'self.replicas <= 5', messageExpression: "'replicas ' + string(self.replicas) + ' exceed 5'" })),
    );
    expect(status).to.include({ code: 422, reason: 'Invalid' });
    const field = `${SCHEMA}.properties[spec].x-kubernetes-validations[0].messageExpression`;
    expect(status.details?.causes).to.deep.equal([
      {
        reason: 'FieldValueForbidden',
        field,
        message: `Forbidden: estimated messageExpression cost exceeds budget by factor of more than 100x ${HINT}`,
      },
      {
        reason: 'FieldValueForbidden',
        field,
        message: 'Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema',
      },
      {
        reason: 'FieldValueForbidden',
        field: SCHEMA,
        message: `Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${HINT}`,
      },
    ]);
  });

  it('accepts string(self.replicas) compared with a literal, and a messageExpression of literals', async () => {
    const crd = await create(
      replicas({
        rule: "string(self.replicas) != '13'",
        messageExpression: "self.replicas > 5 ? 'replicas exceed 5' : 'replicas are unlucky'",
      }),
    );
    expect(crd.kind).to.equal('Widget');
  });
});
