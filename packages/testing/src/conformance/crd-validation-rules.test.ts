import type { V1JSONSchemaProps } from '@kubernetes/client-node';
import { expect } from 'chai';
import { catchApiStatus, type ApiStatus, type ApiStatusCause } from '../helpers/api-status.js';
import { createTestCrd, type Widget } from '../helpers/test-crd.js';
import { asPatch, useConformanceFixture } from './conformance-fixture.js';
import { customObjects } from './custom-objects.js';
import { rawRequest } from '../helpers/raw-request.js';

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

// The real server walks an object's fields in Go map order, which is random: causes are compared
// as a set, and the message must list them in the order of details.causes.
function expectCauses(status: ApiStatus, object: string, expected: ApiStatusCause[]): void {
  const causes = status.details?.causes ?? [];
  expect(causes).to.have.deep.members(expected);
  const listed = causes.map((c) => `${c.field}: ${c.message}`).join(', ');
  expect(status.message).to.equal(`${object} is invalid: ${causes.length === 1 ? listed : `[${listed}]`}`);
}

describe('conformance: CRD x-kubernetes-validations (CEL)', () => {
  const fixture = useConformanceFixture();

  async function widgets() {
    const { apiextensions, custom, namespace } = fixture();
    const crd = await createTestCrd(apiextensions, custom, { specSchema });
    return { crd, custom, ...customObjects(crd, namespace) };
  }

  it('refuses a create breaking rules: message, messageExpression, the default message, fieldPath, reason and a list rule', async () => {
    const { crd, at, body, custom } = await widgets();
    const status = await catchApiStatus(
      custom.createNamespacedCustomObject({ ...at, body: body({ fixed: 'a', replicas: 7, tags: ['b', 'a'], min: 3, max: 1, plain: 'x' }) }),
    );
    expect(status.code).to.equal(422);
    expectCauses(status, `Widget.${crd.group} "w"`, [
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
    expectCauses(status, `Widget.${crd.group} "w"`, [
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "object": no such key: min evaluating rule: min must not exceed max',
        field: 'spec',
      },
      { reason: 'FieldValueInvalid', message: 'Invalid value: tags must be short and lower case', field: 'spec.tags' },
    ]);
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
    // A rule that parses but does not type-check is refused as well.
    const typed = await catchApiStatus(
      createTestCrd(apiextensions, custom, {
        kind: 'Mistyped',
        specSchema: { type: 'object', properties: { min: { type: 'integer' } }, x_kubernetes_validations: [{ rule: "self.size() > 'a'" }] },
      }),
    );
    expect(typed.code).to.equal(422);
    expect(typed.details?.causes?.[0]?.message).to.match(
      /^Invalid value: \{"Rule":"self\.size\(\) \\u003e 'a'",.*\}: compilation failed: ERROR: <input>:/,
    );
  });

  it('Kubernetes CEL libraries: strings, lists, regex, quantity, url, format', async () => {
    const { apiextensions, custom, namespace } = fixture();
    const str = (maxLength: number, rule: string, extra: Record<string, string> = {}): V1JSONSchemaProps => ({
      type: 'string',
      maxLength,
      x_kubernetes_validations: [{ rule, message: 'failed', ...extra }],
    });
    const crd = await createTestCrd(apiextensions, custom, {
      specSchema: {
        type: 'object',
        properties: {
          cpu: str(10, "isQuantity(self) && quantity(self).isLessThan(quantity('2')) && quantity(self).compareTo(quantity('100m')) >= 0"),
          endpoint: str(
            60,
            "isURL(self) && url(self).getScheme() == 'https' && url(self).getHostname().endsWith('.example.com') && url(self).getPort() == '8443'",
          ),
          version: str(20, "self.find('[0-9]+') == '1' && self.findAll('[0-9]+').size() == 3 && self.matches('^v[0-9.]+$')"),
          label: str(20, "self.trim() == self && self.split('-').size() <= 3 && self.indexOf('--') == -1 && self.charAt(0) != '-'", {
            messageExpression: "'label %s is invalid'.format([self.replace('-', ' ')])",
          }),
          weights: {
            type: 'array',
            maxItems: 5,
            items: { type: 'integer', maximum: 100 },
            x_kubernetes_validations: [
              { rule: 'self.sum() <= 10 && self.max() >= self.min() && self.indexOf(0) == -1', message: 'bad weights' },
            ],
          },
        },
      },
    });
    const { at, body } = customObjects(crd, namespace);
    await custom.createNamespacedCustomObject({
      ...at,
      body: body({ cpu: '500m', endpoint: 'https://api.example.com:8443/x', version: 'v1.2.3', label: 'a-b', weights: [1, 2, 3] }, 'good'),
    });
    const status = await catchApiStatus(
      custom.createNamespacedCustomObject({
        ...at,
        body: body({ cpu: '2', endpoint: 'http://api.example.com:8443/x', version: 'v2.2', label: '-a-b-c', weights: [0, 11] }, 'bad'),
      }),
    );
    expectCauses(status, `Widget.${crd.group} "bad"`, [
      { reason: 'FieldValueInvalid', message: 'Invalid value: "2": failed', field: 'spec.cpu' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "http://api.example.com:8443/x": failed', field: 'spec.endpoint' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "-a-b-c": label  a b c is invalid', field: 'spec.label' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: "v2.2": failed', field: 'spec.version' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: bad weights', field: 'spec.weights' },
    ]);
  });

  it('a transition rule holds for merge patch and server-side apply too', async () => {
    const { crd, at, body, custom } = await widgets();
    await custom.createNamespacedCustomObject({ ...at, body: body({ fixed: 'a', min: 1, max: 2 }) });
    const expected = `Widget.${crd.group} "w" is invalid: spec.fixed: Invalid value: "b": fixed is immutable`;
    const patched = await catchApiStatus(
      custom.patchNamespacedCustomObject({ ...at, name: 'w', body: { spec: { fixed: 'b' } } }, asPatch.merge()),
    );
    expect(patched.message).to.equal(expected);
    const applied = await rawRequest(fixture().kubeConfig, {
      method: 'PATCH',
      path: `/apis/${crd.apiVersion}/namespaces/${at.namespace}/${crd.plural}/w?fieldManager=applier&force=true`,
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
      body: JSON.stringify(body({ fixed: 'b', min: 1, max: 2 })),
    });
    expect(applied.status).to.equal(422);
    expect((JSON.parse(applied.text) as ApiStatus).message).to.equal(expected);
  });

  it('transition rules of map-list items compare each item with the old item of the same key', async () => {
    const { apiextensions, custom, namespace } = fixture();
    const crd = await createTestCrd(apiextensions, custom, {
      specSchema: {
        type: 'object',
        properties: {
          ports: {
            type: 'array',
            maxItems: 4,
            x_kubernetes_list_type: 'map',
            x_kubernetes_list_map_keys: ['name'],
            // client-node types `items` as any and sends it as written: wire names here.
            items: {
              type: 'object',
              required: ['name'],
              properties: { name: { type: 'string', maxLength: 10 }, port: { type: 'integer' } },
              'x-kubernetes-validations': [{ rule: 'self.port >= oldSelf.port', message: 'a port may only grow' }],
            },
          },
        },
      },
    });
    const { at, body } = customObjects(crd, namespace);
    const created = (await custom.createNamespacedCustomObject({
      ...at,
      body: body({
        ports: [
          { name: 'a', port: 80 },
          { name: 'b', port: 90 },
        ],
      }),
    })) as Widget;
    // Item b moved to the front and shrank; the new item c has no old value.
    const status = await catchApiStatus(
      custom.replaceNamespacedCustomObject({
        ...at,
        name: 'w',
        body: {
          ...created,
          spec: {
            ports: [
              { name: 'b', port: 10 },
              { name: 'a', port: 81 },
              { name: 'c', port: 1 },
            ],
          },
        },
      }),
    );
    expect(status.message).to.equal(`Widget.${crd.group} "w" is invalid: spec.ports[0]: Invalid value: a port may only grow`);
  });

  it('optionalOldSelf: the rule runs on create too, with oldSelf an empty optional', async () => {
    const { apiextensions, custom, namespace } = fixture();
    const rule = "oldSelf.hasValue() ? self >= oldSelf.value() : self == 'initial'";
    const crd = await createTestCrd(apiextensions, custom, {
      specSchema: {
        type: 'object',
        properties: {
          phase: {
            type: 'string',
            maxLength: 20,
            x_kubernetes_validations: [{ rule, message: 'starts initial, then only grows', optionalOldSelf: true }],
          },
        },
      },
    });
    const { at, body } = customObjects(crd, namespace);
    const refused = await catchApiStatus(custom.createNamespacedCustomObject({ ...at, body: body({ phase: 'other' }) }));
    expect(refused.message).to.equal(
      `Widget.${crd.group} "w" is invalid: spec.phase: Invalid value: "other": starts initial, then only grows`,
    );
    const created = (await custom.createNamespacedCustomObject({ ...at, body: body({ phase: 'initial' }) })) as Widget;
    const shrunk = await catchApiStatus(
      custom.replaceNamespacedCustomObject({ ...at, name: 'w', body: { ...created, spec: { phase: 'a' } } }),
    );
    expect(shrunk.message).to.equal(`Widget.${crd.group} "w" is invalid: spec.phase: Invalid value: "a": starts initial, then only grows`);
    await custom.replaceNamespacedCustomObject({ ...at, name: 'w', body: { ...created, spec: { phase: 'z' } } });
  });
});
