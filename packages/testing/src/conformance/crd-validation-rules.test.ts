import type { V1JSONSchemaProps } from '@kubernetes/client-node';
import { expect } from 'chai';
import { catchApiStatus } from '../helpers/api-status.js';
import { createTestCrd, type Widget } from '../helpers/test-crd.js';
import { useConformanceFixture } from './conformance-fixture.js';

// Bounded strings and lists: the real server refuses rules whose estimated cost has no bound.
const specSchema: V1JSONSchemaProps = {
  type: 'object',
  properties: {
    fixed: { type: 'string', maxLength: 20, x_kubernetes_validations: [{ rule: 'self == oldSelf', message: 'fixed is immutable' }] },
    replicas: { type: 'integer', x_kubernetes_validations: [{ rule: 'self <= 5', message: 'at most 5 replicas' }] },
    tags: {
      type: 'array',
      maxItems: 10,
      items: { type: 'string', maxLength: 20 },
      x_kubernetes_validations: [
        { rule: 'self.isSorted()', message: 'tags must be sorted', reason: 'FieldValueForbidden' },
        { rule: "self.join(',').size() <= 12 && self.all(t, t.lowerAscii() == t)", message: 'tags must be short and lower case' },
      ],
    },
    min: { type: 'integer' },
    max: { type: 'integer' },
    plain: {
      type: 'string',
      maxLength: 20,
      x_kubernetes_validations: [{ rule: "self != 'x'", messageExpression: "'plain ' + self + ' is reserved'" }, { rule: "self != 'x'" }],
    },
  },
  x_kubernetes_validations: [{ rule: 'self.min <= self.max', message: 'min must not exceed max', fieldPath: '.min' }],
};

describe('conformance: CRD x-kubernetes-validations (CEL)', () => {
  const fixture = useConformanceFixture();

  async function widgets() {
    const { apiextensions, custom, namespace } = fixture();
    const crd = await createTestCrd(apiextensions, custom, { specSchema });
    const at = { group: crd.group, version: crd.version, plural: crd.plural, namespace };
    const body = (spec: Record<string, unknown>): Widget => ({ apiVersion: crd.apiVersion, kind: crd.kind, metadata: { name: 'w' }, spec });
    return { crd, at, body, custom };
  }

  it('refuses a create breaking rules: message, messageExpression, the default message, fieldPath, reason and a list rule', async () => {
    const { crd, at, body, custom } = await widgets();
    const status = await catchApiStatus(
      custom.createNamespacedCustomObject({ ...at, body: body({ fixed: 'a', replicas: 7, tags: ['b', 'a'], min: 3, max: 1, plain: 'x' }) }),
    );
    expect(status.code).to.equal(422);
    expect(status.message).to.equal(
      `Widget.${crd.group} "w" is invalid: [spec.min: Invalid value: min must not exceed max, ` +
        `spec.plain: Invalid value: "x": plain x is reserved, spec.plain: Invalid value: "x": failed rule: self != 'x', ` +
        `spec.replicas: Invalid value: 7: at most 5 replicas, spec.tags: Forbidden: tags must be sorted]`,
    );
    expect(status.details?.causes).to.deep.equal([
      { reason: 'FieldValueInvalid', message: 'Invalid value: min must not exceed max', field: 'spec.min' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "x": plain x is reserved', field: 'spec.plain' },
      { reason: 'FieldValueInvalid', message: `Invalid value: "x": failed rule: self != 'x'`, field: 'spec.plain' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: 7: at most 5 replicas', field: 'spec.replicas' },
      { reason: 'FieldValueForbidden', message: 'Forbidden: tags must be sorted', field: 'spec.tags' },
    ]);
  });

  it('a list rule with strings functions (join, size, all, lowerAscii); a rule that cannot evaluate', async () => {
    const { crd, at, body, custom } = await widgets();
    // Without min and max the object rule fails to evaluate, reported at its node with its type.
    const status = await catchApiStatus(custom.createNamespacedCustomObject({ ...at, body: body({ tags: ['Abc', 'def', 'ghijkl'] }) }));
    expect(status.message).to.equal(
      `Widget.${crd.group} "w" is invalid: [spec: Invalid value: "object": no such key: min evaluating rule: min must not exceed max, ` +
        'spec.tags: Invalid value: tags must be short and lower case]',
    );
    await custom.createNamespacedCustomObject({ ...at, body: body({ tags: ['abc', 'def'], min: 1, max: 1 }) });
  });

  it('a transition rule with oldSelf runs on update only: the field is immutable', async () => {
    const { crd, at, body, custom } = await widgets();
    // On create there is no old value, so `self == oldSelf` does not run.
    await custom.createNamespacedCustomObject({ ...at, body: body({ fixed: 'a', min: 1, max: 2 }) });
    const current = (await custom.getNamespacedCustomObject({ ...at, name: 'w' })) as Widget;
    const status = await catchApiStatus(
      custom.replaceNamespacedCustomObject({ ...at, name: 'w', body: { ...current, spec: { fixed: 'b', min: 1, max: 2 } } }),
    );
    expect(status.code).to.equal(422);
    expect(status.message).to.equal(`Widget.${crd.group} "w" is invalid: spec.fixed: Invalid value: "b": fixed is immutable`);
    expect(status.details?.causes).to.deep.equal([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "b": fixed is immutable', field: 'spec.fixed' },
    ]);
    // The field absent before has no old value: setting it on update is allowed.
    await custom.replaceNamespacedCustomObject({
      ...at,
      name: 'w',
      body: { ...current, spec: { fixed: 'a', min: 1, max: 2, plain: 'y' } },
    });
  });

  it('refuses at CRD creation a rule that does not compile', async () => {
    const { apiextensions, custom } = fixture();
    const status = await catchApiStatus(
      createTestCrd(apiextensions, custom, {
        kind: 'Broken',
        specSchema: { type: 'object', properties: { min: { type: 'integer' } }, x_kubernetes_validations: [{ rule: 'self.min <' }] },
      }),
    );
    expect(status.code).to.equal(422);
    const cause = status.details?.causes?.[0];
    expect(cause?.field).to.equal('spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule');
    // The compiler's own diagnostic (cel-go's on the real server) follows this prefix.
    expect(cause?.message).to.match(
      /^Invalid value: \{"Rule":"self\.min \\u003c","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null\}: compilation failed: ERROR: <input>:/,
    );
    expect(status.message).to.match(
      /^CustomResourceDefinition\.apiextensions\.k8s\.io "brokens\.[^"]+" is invalid: spec\.validation\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: /,
    );
  });
});
