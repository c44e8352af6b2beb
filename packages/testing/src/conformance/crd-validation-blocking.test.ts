// kube-apiserver leaves a custom object's CEL rules unchecked when its schema validation found a
// blocking error (a wrong type, a value not in the enum, a missing required field, a string too
// long, too many items or properties: hasBlockingErr in apiextensions-apiserver's
// registry/customresource/strategy.go) and says so in one more cause; other schema errors (a
// bound, a pattern) leave the rules checked.
import type { V1JSONSchemaProps } from '@kubernetes/client-node';
import { expect } from 'chai';
import { catchApiStatus, type ApiStatus } from '../helpers/api-status.js';
import { createTestCrd } from '../helpers/test-crd.js';
import { useConformanceFixture } from './conformance-fixture.js';
import { customObjects } from './custom-objects.js';

const specSchema: V1JSONSchemaProps = {
  type: 'object',
  required: ['replicas'],
  properties: {
    replicas: { type: 'integer', minimum: 0 },
    // client-node's model names enum `_enum` (its serializer drops unknown keys).
    mode: { type: 'string', _enum: ['fast', 'safe'] },
    name: { type: 'string', maxLength: 5, pattern: '^[a-z]+$' },
    tags: { type: 'array', maxItems: 2, items: { type: 'string', maxLength: 10 } },
    labels: { type: 'object', maxProperties: 1, additionalProperties: { type: 'string', maxLength: 10 } },
  },
  // Fails for every object below: the question is only whether it was evaluated.
  x_kubernetes_validations: [{ rule: 'self.replicas > 100', message: 'replicas must exceed 100' }],
};

const NOT_CHECKED = {
  reason: 'FieldValueInvalid',
  message:
    'Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
  field: '<nil>',
};
const RULE_FAILED = { reason: 'FieldValueInvalid', message: 'Invalid value: replicas must exceed 100', field: 'spec' };

/** The causes without their messages' wording of schema errors (pinned elsewhere): reason and field. */
const causes = (status: ApiStatus) =>
  (status.details?.causes ?? []).map((c) => (c.field === '<nil>' || c.field === 'spec' ? c : { reason: c.reason, field: c.field }));

describe('conformance: CEL rules after blocking schema errors', () => {
  const fixture = useConformanceFixture();

  async function widgets() {
    const { apiextensions, custom, namespace } = fixture();
    const crd = await createTestCrd(apiextensions, custom, { specSchema });
    return { crd, custom, ...customObjects(crd, namespace) };
  }

  it('skips the rules after a wrong type, an enum, a required field, too long or too many, and says so', async () => {
    const { at, body, custom } = await widgets();
    const cases: Array<[Record<string, unknown>, { reason: string; field: string }]> = [
      [{ replicas: 'three' }, { reason: 'FieldValueTypeInvalid', field: 'spec.replicas' }],
      [
        { replicas: 1, mode: 'slow' },
        { reason: 'FieldValueNotSupported', field: 'spec.mode' },
      ],
      [{ mode: 'fast' }, { reason: 'FieldValueRequired', field: 'spec.replicas' }],
      [
        { replicas: 1, name: 'abcdefgh' },
        { reason: 'FieldValueTooLong', field: 'spec.name' },
      ],
      [
        { replicas: 1, tags: ['a', 'b', 'c'] },
        { reason: 'FieldValueTooMany', field: 'spec.tags' },
      ],
      [
        { replicas: 1, labels: { a: 'x', b: 'y' } },
        { reason: 'FieldValueTooMany', field: 'spec.labels' },
      ],
    ];
    for (const [spec, blocking] of cases) {
      const status = await catchApiStatus(custom.createNamespacedCustomObject({ ...at, body: body(spec) }));
      expect(status.code, JSON.stringify(spec)).to.equal(422);
      expect(causes(status), JSON.stringify(spec)).to.deep.equal([blocking, NOT_CHECKED]);
    }
  });

  it('still checks the rules after an error that does not block them (a bound, a pattern)', async () => {
    const { at, body, custom } = await widgets();
    const status = await catchApiStatus(custom.createNamespacedCustomObject({ ...at, body: body({ replicas: -1, name: 'AB' }) }));
    expect(status.code).to.equal(422);
    expect(causes(status)).to.have.deep.members([
      { reason: 'FieldValueInvalid', field: 'spec.replicas' },
      { reason: 'FieldValueInvalid', field: 'spec.name' },
      RULE_FAILED,
    ]);
    // The rule's cause comes after the schema's.
    expect(causes(status).at(-1)).to.deep.equal(RULE_FAILED);
  });

  it('skips them on update too', async () => {
    const { at, body, custom } = await widgets();
    await custom.createNamespacedCustomObject({ ...at, body: body({ replicas: 101 }) });
    const current = (await custom.getNamespacedCustomObject({ ...at, name: 'w' })) as { metadata: { resourceVersion: string } };
    const status = await catchApiStatus(
      custom.replaceNamespacedCustomObject({
        ...at,
        name: 'w',
        body: { ...body({ replicas: 5, mode: 'slow' }), metadata: { name: 'w', resourceVersion: current.metadata.resourceVersion } },
      }),
    );
    expect(status.code).to.equal(422);
    expect(causes(status)).to.deep.equal([{ reason: 'FieldValueNotSupported', field: 'spec.mode' }, NOT_CHECKED]);
  });
});
