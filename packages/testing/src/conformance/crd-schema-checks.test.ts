// The OpenAPI checks kube-apiserver applies to custom objects beyond types and bounds: formats,
// exclusive bounds, multipleOf, int32, int-or-string, property counts, duplicates in set and map
// lists and the apiVersion/kind of embedded resources, in its words (kube-apiserver 1.36). The
// embedded server answers with @kindex/core's validateCustomObject, which customResource().validate()
// runs client-side.
import type { V1JSONSchemaProps } from '@kubernetes/client-node';
import { expect } from 'chai';
import { catchApiStatus, type ApiStatusCause } from '../helpers/api-status.js';
import { createTestCrd } from '../helpers/test-crd.js';
import { uniqueName } from '../helpers/unique-name.js';
import { useConformanceFixture } from './conformance-fixture.js';

const specSchema: V1JSONSchemaProps = {
  type: 'object',
  properties: {
    ex: { type: 'integer', minimum: 1, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: true },
    mul: { type: 'integer', multipleOf: 3 },
    i32: { type: 'integer', format: 'int32' },
    email: { type: 'string', format: 'email' },
    dt: { type: 'string', format: 'date-time' },
    host: { type: 'string', format: 'hostname' },
    uuid: { type: 'string', format: 'uuid' },
    ios: { x_kubernetes_int_or_string: true },
    minp: { type: 'object', minProperties: 2, additionalProperties: { type: 'string' } },
    set: { type: 'array', items: { type: 'string' }, x_kubernetes_list_type: 'set' },
    mapl: {
      type: 'array',
      x_kubernetes_list_type: 'map',
      x_kubernetes_list_map_keys: ['name'],
      items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
    },
    emb: { type: 'object', x_kubernetes_embedded_resource: true, x_kubernetes_preserve_unknown_fields: true },
    labels: { type: 'object', additionalProperties: { type: 'string', maxLength: 2 } },
    nul: { type: 'string' },
  },
};

describe('conformance: CRD schema checks of custom objects', () => {
  const fixture = useConformanceFixture();

  it('refuses each with the reason, field and message kube-apiserver gives', async () => {
    const { apiextensions, custom, namespace } = fixture();
    const crd = await createTestCrd(apiextensions, custom, { specSchema });
    const at = { group: crd.group, version: crd.version, plural: crd.plural, namespace };
    const refusal = async (spec: Record<string, unknown>): Promise<readonly ApiStatusCause[]> => {
      const body = { apiVersion: crd.apiVersion, kind: crd.kind, metadata: { name: uniqueName('w') }, spec };
      const status = await catchApiStatus(custom.createNamespacedCustomObject({ ...at, body }));
      expect(status.code, JSON.stringify(spec)).to.equal(422);
      return status.details?.causes ?? [];
    };
    const cause = (reason: string, field: string, message: string) => ({ reason, message, field });
    const cases: [Record<string, unknown>, ReturnType<typeof cause>[]][] = [
      [{ ex: 1 }, [cause('FieldValueInvalid', 'spec.ex', 'Invalid value: 1: spec.ex in body should be greater than 1')]],
      [{ ex: 10 }, [cause('FieldValueInvalid', 'spec.ex', 'Invalid value: 10: spec.ex in body should be less than 10')]],
      [{ mul: 4 }, [cause('FieldValueInvalid', 'spec.mul', 'Invalid value: 4: spec.mul in body should be a multiple of 3')]],
      [
        { i32: 2 ** 31 },
        [cause('FieldValueInvalid', '<nil>', 'Invalid value: "": Checked value must be of type integer with format int32 in spec.i32')],
      ],
      [
        { email: 'nope' },
        [cause('FieldValueTypeInvalid', 'spec.email', 'Invalid value: "nope": spec.email in body must be of type email: "nope"')],
      ],
      [
        { dt: 'yesterday' },
        [cause('FieldValueTypeInvalid', 'spec.dt', 'Invalid value: "yesterday": spec.dt in body must be of type date-time: "yesterday"')],
      ],
      [
        { host: 'a_b' },
        [cause('FieldValueTypeInvalid', 'spec.host', 'Invalid value: "a_b": spec.host in body must be of type hostname: "a_b"')],
      ],
      [{ uuid: 'x' }, [cause('FieldValueTypeInvalid', 'spec.uuid', 'Invalid value: "x": spec.uuid in body must be of type uuid: "x"')]],
      [
        { ios: true },
        [
          cause(
            'FieldValueTypeInvalid',
            'spec.ios',
            'Invalid value: "boolean": spec.ios in body must be of type integer,string: "boolean"',
          ),
        ],
      ],
      [
        { minp: { a: 'x' } },
        [cause('FieldValueInvalid', 'spec.minp', 'Invalid value: 1: spec.minp in body should have at least 2 properties')],
      ],
      [{ set: ['x', 'y', 'x'] }, [cause('FieldValueDuplicate', 'spec.set[2]', 'Duplicate value: "x"')]],
      [
        {
          mapl: [
            { name: 'http', port: 1 },
            { name: 'http', port: 2 },
          ],
        },
        [cause('FieldValueDuplicate', 'spec.mapl[1]', 'Duplicate value: {"name":"http"}')],
      ],
      [
        { emb: {} },
        [
          cause('FieldValueRequired', 'spec.emb.apiVersion', 'Required value'),
          cause('FieldValueRequired', 'spec.emb.kind', 'Required value'),
        ],
      ],
      [
        { labels: { a: 5, b: 'xyz' } },
        [
          cause(
            'FieldValueTypeInvalid',
            'spec.labels.a',
            'Invalid value: "integer": spec.labels.a in body must be of type string: "integer"',
          ),
          cause('FieldValueTooLong', 'spec.labels.b', 'Too long: may not be more than 2 bytes'),
        ],
      ],
    ];
    // kube-apiserver lists the causes of a map's values in Go's random map order.
    for (const [spec, expected] of cases) expect(await refusal(spec), JSON.stringify(spec)).to.have.deep.members(expected);
  });

  it('drops a null where the schema is neither nullable nor has a default, rather than refusing it', async () => {
    const { apiextensions, custom, namespace } = fixture();
    const crd = await createTestCrd(apiextensions, custom, { specSchema });
    const body = { apiVersion: crd.apiVersion, kind: crd.kind, metadata: { name: uniqueName('w') }, spec: { nul: null, mul: 3 } };
    const at = { group: crd.group, version: crd.version, plural: crd.plural, namespace };
    const created = (await custom.createNamespacedCustomObject({ ...at, body })) as { spec: Record<string, unknown> };
    expect(created.spec).to.deep.equal({ mul: 3 });
  });
});
