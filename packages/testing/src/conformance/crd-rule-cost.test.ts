import type { V1JSONSchemaProps } from '@kubernetes/client-node';
import { expect } from 'chai';
import { catchApiStatus, type ApiStatusCause } from '../helpers/api-status.js';
import { createTestCrd } from '../helpers/test-crd.js';
import { uniqueName } from '../helpers/unique-name.js';
import { useConformanceFixture } from './conformance-fixture.js';

// kube-apiserver estimates each x-kubernetes-validations rule's cost when a CRD is written, from
// the bounds of the strings, lists and maps it reads (maxLength, maxItems, maxProperties; else as
// much as fits in a 3 MiB request), and refuses a rule above 10,000,000 units or rules totalling
// more than 100,000,000. The factors below are kube-apiserver 1.36's own.
const SCHEMA = 'spec.validation.openAPIV3Schema';
const LIST = `${SCHEMA}.properties[spec].properties[names]`;
const HINT = '(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)';
const MATCHES = "self.all(n, n.matches('^a.*z$'))";

function names(list: V1JSONSchemaProps): V1JSONSchemaProps {
  return { type: 'object', properties: { names: list } };
}

const unboundedString: V1JSONSchemaProps = { type: 'string' };
const shortString: V1JSONSchemaProps = { type: 'string', maxLength: 64 };

// client-node serializes `items` as given (it is typed any on the wire), so rules there need the
// JSON name; elsewhere the model name x_kubernetes_validations is converted.
function withItemRule(items: V1JSONSchemaProps, rule: string): V1JSONSchemaProps {
  return { ...items, 'x-kubernetes-validations': [{ rule }] } as V1JSONSchemaProps;
}

describe('conformance: CRD validation rule cost limits', () => {
  const fixture = useConformanceFixture();

  async function refusal(specSchema: V1JSONSchemaProps): Promise<readonly ApiStatusCause[]> {
    const { apiextensions, custom } = fixture();
    const status = await catchApiStatus(createTestCrd(apiextensions, custom, { group: `${uniqueName('cost')}.kindex.dev`, specSchema }));
    expect(status).to.include({ code: 422, reason: 'Invalid' });
    return status.details?.causes ?? [];
  }

  it('refuses a rule over an unbounded list of unbounded strings: the rule, its share of the total, and the total', async () => {
    const causes = await refusal(names({ type: 'array', items: unboundedString, x_kubernetes_validations: [{ rule: MATCHES }] }));
    expect(causes).to.deep.equal([
      {
        reason: 'FieldValueForbidden',
        field: `${LIST}.x-kubernetes-validations[0].rule`,
        message: `Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${HINT}`,
      },
      {
        reason: 'FieldValueForbidden',
        field: `${LIST}.x-kubernetes-validations[0].rule`,
        message: 'Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema',
      },
      {
        reason: 'FieldValueForbidden',
        field: SCHEMA,
        message: `Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${HINT}`,
      },
    ]);
  });

  it('states the factor when only the list or only the strings are bounded', async () => {
    const boundedList = await refusal(
      names({ type: 'array', maxItems: 100, items: unboundedString, x_kubernetes_validations: [{ rule: MATCHES }] }),
    );
    expect(boundedList).to.deep.equal([
      {
        reason: 'FieldValueForbidden',
        field: `${LIST}.x-kubernetes-validations[0].rule`,
        message: `Forbidden: estimated rule cost exceeds budget by factor of 6.3x ${HINT}`,
      },
    ]);
    const boundedStrings = await refusal(names({ type: 'array', items: shortString, x_kubernetes_validations: [{ rule: MATCHES }] }));
    expect(boundedStrings.map((c) => c.message)).to.deep.equal([`Forbidden: estimated rule cost exceeds budget by factor of 5.9x ${HINT}`]);
  });

  it('multiplies a rule on list items by the number of items the list may hold', async () => {
    const causes = await refusal(names({ type: 'array', items: withItemRule(unboundedString, "self.matches('^a.*z$')") }));
    const item = `${LIST}.items.x-kubernetes-validations[0].rule`;
    expect(causes.map((c) => [c.field, c.message])).to.deep.equal([
      [item, `Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${HINT}`],
      [item, 'Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema'],
      [
        SCHEMA,
        `Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${HINT}`,
      ],
    ]);
  });

  it('accepts the same rules once the list and its strings are bounded', async () => {
    const { apiextensions, custom } = fixture();
    const crd = await createTestCrd(apiextensions, custom, {
      group: `${uniqueName('cost')}.kindex.dev`,
      specSchema: names({
        type: 'array',
        maxItems: 100,
        items: withItemRule(shortString, "self.matches('^a.*z$')"),
        x_kubernetes_validations: [{ rule: MATCHES }, { rule: 'self.all(a, self.exists(b, a == b))' }],
      }),
    });
    expect(crd.plural).to.be.a('string');
  });

  it('bounds maps by maxProperties: iterating an unbounded map of strings is refused, a bounded one accepted', async () => {
    const rule = "self.all(k, self[k].contains('x'))";
    const map = (bounds: V1JSONSchemaProps, values: V1JSONSchemaProps): V1JSONSchemaProps => ({
      type: 'object',
      properties: { labels: { type: 'object', ...bounds, additionalProperties: values, x_kubernetes_validations: [{ rule }] } },
    });
    const causes = await refusal(map({}, unboundedString));
    expect(causes[0]).to.deep.equal({
      reason: 'FieldValueForbidden',
      field: `${SCHEMA}.properties[spec].properties[labels].x-kubernetes-validations[0].rule`,
      message: `Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${HINT}`,
    });
    const { apiextensions, custom } = fixture();
    await createTestCrd(apiextensions, custom, {
      group: `${uniqueName('cost')}.kindex.dev`,
      specSchema: map({ maxProperties: 10 }, shortString),
    });
  });

  it('accepts a cheap rule and messageExpression on an unbounded string', async () => {
    const { apiextensions, custom } = fixture();
    const crd = await createTestCrd(apiextensions, custom, {
      group: `${uniqueName('cost')}.kindex.dev`,
      specSchema: {
        type: 'object',
        properties: { s: unboundedString },
        x_kubernetes_validations: [{ rule: "self.s != 'x'", messageExpression: "self.s + self.s + ' is reserved'" }],
      },
    });
    expect(crd.kind).to.equal('Widget');
  });

  it('stops validating an object when a rule costs more than 1,000,000 units on it (the per-call limit)', async () => {
    const { apiextensions, custom, namespace } = fixture();
    // Estimated at 4,005,002 (under 10,000,000: accepted); on 1,000 items it costs about 4,000,000, on 300 about 360,000.
    const rule = "self.all(x, self.all(y, x != ''))";
    const crd = await createTestCrd(apiextensions, custom, {
      group: `${uniqueName('cost')}.kindex.dev`,
      specSchema: names({ type: 'array', maxItems: 1000, items: { type: 'string', maxLength: 1 }, x_kubernetes_validations: [{ rule }] }),
    });
    const at = { group: crd.group, version: crd.version, plural: crd.plural, namespace };
    const body = (name: string, count: number) => ({
      apiVersion: crd.apiVersion,
      kind: crd.kind,
      metadata: { name },
      spec: { names: Array.from({ length: count }, () => 'a') },
    });
    await custom.createNamespacedCustomObject({ ...at, body: body('small', 300) });
    const status = await catchApiStatus(custom.createNamespacedCustomObject({ ...at, body: body('large', 1000) }));
    const message = `Invalid value: "array": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${rule}`;
    expect(status).to.deep.include({ code: 422, message: `${crd.kind}.${crd.group} "large" is invalid: spec.names: ${message}` });
    expect(status.details?.causes).to.deep.equal([{ reason: 'FieldValueInvalid', field: 'spec.names', message }]);
  });
});
