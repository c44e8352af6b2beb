import { expect } from 'chai';
import Type from 'typebox';
import { offlineKubeConfig } from '../testing-fixtures/offline-kube-config.js';
import {
  CustomResourceValidationError,
  KubeClient,
  KubeType,
  NonStructuralSchemaError,
  Operator,
  customResource,
  type JsonSchemaProps,
  type ObjectOfKind,
} from '../index.js';
import { structuralSchema } from '../internal.js';

const Port = Type.Object({ name: Type.String(), port: Type.Integer({ minimum: 1, maximum: 65535 }) });

/** One definition using every CRD feature the generator supports. */
const Widgets = customResource({
  group: 'example.com',
  kind: 'Widget',
  plural: 'widgets',
  shortNames: ['wd'],
  categories: ['all', 'example'],
  printerColumns: [{ name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' }],
  versions: {
    v1beta1: { spec: Type.Object({ size: Type.Integer() }), served: true, deprecated: true, deprecationWarning: 'use v1' },
    v1: {
      storage: true,
      spec: Type.Object(
        {
          replicas: Type.Integer({ minimum: 1, default: 1 }),
          maxReplicas: Type.Integer({ default: 10 }),
          mode: Type.Union([Type.Literal('fast'), Type.Literal('safe')], { default: 'safe' }),
          owner: Type.Optional(Type.String({ format: 'email' })),
          startAt: Type.Optional(Type.String({ format: 'date-time' })),
          note: Type.Optional(KubeType.Nullable(Type.String())),
          target: Type.Optional(KubeType.IntOrString()),
          template: Type.Optional(KubeType.EmbeddedResource()),
          extra: Type.Optional(KubeType.AnyObject()),
          labels: Type.Optional(Type.Record(Type.String(), Type.String())),
          tags: Type.Optional(Type.Array(Type.String(), { 'x-kubernetes-list-type': 'set' })),
          ports: Type.Optional(Type.Array(Port, { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'] })),
          name: Type.Optional(
            Type.String({
              maxLength: 63,
              'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'name is immutable' }],
            }),
          ),
        },
        {
          'x-kubernetes-validations': [
            {
              rule: 'self.replicas <= self.maxReplicas',
              // Not string(self.replicas): a converted number has no size bound, and kube-apiserver
              // refuses a messageExpression concatenating one (custom-resource-cost.test.ts); mode's
              // enum bounds it.
              messageExpression: "'replicas exceed maxReplicas in ' + self.mode + ' mode'",
            },
            { rule: "self.mode != 'fast' || size(self.name) > 0", message: 'fast mode needs a name', fieldPath: '.name' },
          ],
        },
      ),
      status: Type.Object({ replicas: Type.Optional(Type.Integer()) }),
      subresources: { status: true, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
    },
  },
});

describe('customResource', () => {
  it('is the ResourceKind of the storage version, with a kind per version', () => {
    expect({
      group: Widgets.group,
      version: Widgets.version,
      kind: Widgets.kind,
      plural: Widgets.plural,
      namespaced: Widgets.namespaced,
    }).to.deep.equal({
      group: 'example.com',
      version: 'v1',
      kind: 'Widget',
      plural: 'widgets',
      namespaced: true,
    });
    expect(Widgets.apiVersion).to.equal('example.com/v1');
    expect(Widgets.kinds.v1beta1.apiVersion).to.equal('example.com/v1beta1');
  });

  it('generates the names, scope, versions, subresources and printer columns of the CRD', () => {
    const crd = Widgets.crd;
    expect(crd.metadata.name).to.equal('widgets.example.com');
    expect(crd.spec.scope).to.equal('Namespaced');
    expect(crd.spec.names).to.deep.equal({
      kind: 'Widget',
      listKind: 'WidgetList',
      plural: 'widgets',
      singular: 'widget',
      shortNames: ['wd'],
      categories: ['all', 'example'],
    });
    const [beta, v1] = crd.spec.versions;
    expect([beta!.name, beta!.served, beta!.storage, beta!.deprecated, beta!.deprecationWarning]).to.deep.equal([
      'v1beta1',
      true,
      false,
      true,
      'use v1',
    ]);
    expect([v1!.name, v1!.served, v1!.storage]).to.deep.equal(['v1', true, true]);
    expect(v1!.subresources).to.deep.equal({
      status: {},
      scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
    });
    expect(beta!.subresources).to.equal(undefined);
    expect(v1!.additionalPrinterColumns).to.deep.equal([{ name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' }]);
  });

  it('translates TypeBox to a structural schema: defaults, enums, formats, nullable, int-or-string, embedded, maps, list types, CEL', () => {
    const root = Widgets.crd.spec.versions[1]!.schema.openAPIV3Schema;
    expect(root.type).to.equal('object');
    expect(root.required).to.deep.equal(['spec']);
    const spec = root.properties!.spec!;
    const p = spec.properties!;
    // replicas, maxReplicas and mode have defaults: the server fills them in, so none is required.
    expect(spec.required).to.equal(undefined);
    expect(p.replicas).to.deep.equal({ type: 'integer', minimum: 1, default: 1 });
    expect(p.mode).to.deep.equal({ type: 'string', enum: ['fast', 'safe'], default: 'safe' });
    expect(p.owner).to.deep.equal({ type: 'string', format: 'email' });
    expect(p.note).to.deep.equal({ type: 'string', nullable: true });
    expect(p.target).to.deep.equal({ 'x-kubernetes-int-or-string': true });
    expect(p.template).to.deep.equal({
      type: 'object',
      'x-kubernetes-embedded-resource': true,
      'x-kubernetes-preserve-unknown-fields': true,
    });
    expect(p.extra).to.deep.equal({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
    expect(p.labels).to.deep.equal({ type: 'object', additionalProperties: { type: 'string' } });
    expect(p.tags).to.deep.equal({ type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' });
    expect(p.ports!['x-kubernetes-list-map-keys']).to.deep.equal(['name']);
    expect(p.ports!.items!.required).to.deep.equal(['name', 'port']);
    expect(p.name!['x-kubernetes-validations']).to.deep.equal([{ rule: 'self == oldSelf', message: 'name is immutable' }]);
    expect(spec['x-kubernetes-validations']).to.have.length(2);
  });

  it('refuses a non-structural schema, naming each node and the fix', () => {
    const bad = () =>
      customResource({
        group: 'example.com',
        kind: 'Bad',
        plural: 'bads',
        versions: {
          v1: {
            spec: Type.Object({
              choice: Type.Union([Type.Object({ a: Type.String() }), Type.String()]),
              ref: Type.Ref('Other'),
              both: { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } } as never,
              untyped: { properties: { a: { type: 'string' } } } as never,
              keys: Type.Array(Type.Object({ k: Type.Optional(Type.String()) }), {
                'x-kubernetes-list-type': 'map',
                'x-kubernetes-list-map-keys': ['k'],
              }),
              rule: Type.String({ 'x-kubernetes-validations': [{ rule: 'self ==' }] }),
            }),
          },
        },
      });
    expect(bad).to.throw(NonStructuralSchemaError);
    try {
      bad();
    } catch (error) {
      const problems = (error as NonStructuralSchemaError).problems;
      const at = (path: string) => problems.find((p) => p.startsWith(`openAPIV3Schema.properties[spec].properties[${path}`));
      expect(at('choice]')).to.match(/union of object, string has no structural form; use one object with optional fields/);
      expect(at('ref]')).to.match(/has \$ref; .*inline the type/);
      expect(at('both]')).to.match(/both properties and additionalProperties/);
      expect(at('untyped]')).to.match(/has no type; give it one/);
      expect(at('keys].items.properties[k]')).to.match(/must be required or have a default/);
      expect(at('rule]')).to.match(/does not parse/);
      expect((error as Error).message).to.match(/^customResource Bad v1: the schema is not structural/);
    }
  });

  it('refuses a default that does not fit its own schema', () => {
    expect(() => structuralSchema(Type.Object({ n: Type.Integer({ minimum: 1, default: 0 }) }), 'X v1')).to.throw(
      /properties\[n\]: the default 0 does not validate: default: must be >= 1/,
    );
  });

  it('requires exactly one storage version, and names wrong options with the fix', () => {
    const spec = Type.Object({});
    expect(() => customResource({ group: 'example.com', kind: 'W', plural: 'ws', versions: { v1: { spec }, v2: { spec } } })).to.throw(
      TypeError,
      /exactly one version must have storage: true, found none/,
    );
    expect(() => customResource({ group: 'example', kind: 'W', plural: 'ws', versions: { v1: { spec } } })).to.throw(
      /group "example" must be a lower-case DNS subdomain/,
    );
    expect(() => customResource({ group: 'example.com', kind: 'W', plural: 'Ws', versions: { v1: { spec } } })).to.throw(
      /plural must be a lower-case DNS label/,
    );
    expect(() =>
      customResource({
        group: 'example.com',
        kind: 'W',
        plural: 'ws',
        versions: { v1: { spec, subresources: { scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } } } },
      }),
    ).to.throw(/scale.specReplicasPath ".spec.replicas" must name an integer field/);
  });

  it('translates numeric exclusive bounds and refuses tuples', () => {
    const s: JsonSchemaProps = structuralSchema(Type.Object({ f: Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1 }) }), 'X v1');
    expect(s.properties!.f).to.deep.equal({ type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 1, exclusiveMaximum: true });
    expect(() => structuralSchema(Type.Object({ t: Type.Tuple([Type.String(), Type.Integer()]) }), 'X v1')).to.throw(/items is a tuple/);
  });
});

describe('CustomResource.validate', () => {
  const valid = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'ns' }, spec: { replicas: 2 } };

  it('accepts a valid object, applying defaults before checking as the server does', () => {
    expect(Widgets.validate(valid)).to.deep.equal([]);
  });

  it('lists every violation with its field path', () => {
    const violations = Widgets.validate({
      ...valid,
      spec: {
        replicas: 0,
        mode: 'slow',
        owner: 'nobody',
        startAt: 'yesterday',
        target: true,
        labels: { a: 1 },
        tags: ['x', 'x'],
        note: null,
      },
    });
    expect(violations).to.deep.include.members([
      { field: 'spec.replicas', message: 'must be >= 1' },
      { field: 'spec.mode', message: 'must be one of "fast", "safe", got "slow"' },
      { field: 'spec.owner', message: 'must be a valid email' },
      { field: 'spec.startAt', message: 'must be a valid date-time' },
      { field: 'spec.target', message: 'must be an integer or a string, got boolean' },
      // kube-apiserver 1.36 names a map value's schema problem `spec.labels.a` (CEL rules' `[a]`).
      { field: 'spec.labels.a', message: 'must be of type string, got integer' },
      { field: 'spec.tags[1]', message: 'duplicate value "x"' },
    ]);
    expect(violations.map((v) => v.field)).not.to.include('spec.note');
    // A missing required field blocks the CEL rules, as on kube-apiserver (custom-resource-blocking.test.ts).
    expect(Widgets.validate({ ...valid, spec: undefined })).to.deep.equal([
      { field: 'spec', message: 'is required' },
      {
        field: '<nil>',
        message:
          'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
      },
    ]);
  });

  it('evaluates CEL rules with messageExpression and fieldPath', () => {
    expect(Widgets.validate({ ...valid, spec: { replicas: 12, maxReplicas: 10 } })).to.deep.equal([
      { field: 'spec', message: 'replicas exceed maxReplicas in safe mode' },
    ]);
    expect(Widgets.validate({ ...valid, spec: { replicas: 1, mode: 'fast', name: '' } })).to.deep.equal([
      { field: 'spec.name', message: 'fast mode needs a name' },
    ]);
  });

  it('evaluates the Kubernetes CEL functions operators use: has, size, matches, string and list functions, macros', () => {
    const rule = (r: string) => ({ rule: r, message: r });
    const Checked = customResource({
      group: 'example.com',
      kind: 'Checked',
      plural: 'checkeds',
      versions: {
        v1: {
          spec: Type.Object(
            {
              name: Type.String(),
              // Bounded: unbounded, the filter-and-map rule would cost over kube-apiserver's budget.
              tags: Type.Array(Type.String({ maxLength: 32 }), { maxItems: 16 }),
              sizes: Type.Array(Type.Integer()),
              owner: Type.Optional(Type.String()),
            },
            {
              'x-kubernetes-validations': [
                rule("self.name.matches('^[a-z-]+$')"),
                rule("size(self.tags) <= 3 && self.tags.all(t, t.startsWith('t-'))"),
                rule("self.tags.exists(t, t.endsWith('-main'))"),
                rule("self.name.lowerAscii() == self.name && self.name.split('-').size() <= 2"),
                rule("!has(self.owner) || self.owner.contains('@')"),
                rule('self.sizes.isSorted() && self.sizes.sum() <= 10 && self.sizes.max() <= 5'),
                rule("self.tags.filter(t, t == 't-x').size() <= 1 && self.tags.map(t, size(t)).all(n, n < 10)"),
              ],
            },
          ),
        },
      },
    });
    const object = (spec: Record<string, unknown>) => ({ apiVersion: 'example.com/v1', kind: 'Checked', spec });
    expect(Checked.validate(object({ name: 'web-app', tags: ['t-main', 't-x'], sizes: [1, 2, 5] }))).to.deep.equal([]);
    const failed = Checked.validate(object({ name: 'Web_App', tags: ['t-a', 'x', 't-x', 't-x'], sizes: [5, 1], owner: 'nobody' }));
    expect(failed.map((v) => v.message)).to.deep.equal([
      "self.name.matches('^[a-z-]+$')",
      "size(self.tags) <= 3 && self.tags.all(t, t.startsWith('t-'))",
      "self.tags.exists(t, t.endsWith('-main'))",
      "self.name.lowerAscii() == self.name && self.name.split('-').size() <= 2",
      "!has(self.owner) || self.owner.contains('@')",
      'self.sizes.isSorted() && self.sizes.sum() <= 10 && self.sizes.max() <= 5',
      "self.tags.filter(t, t == 't-x').size() <= 1 && self.tags.map(t, size(t)).all(n, n < 10)",
    ]);
    expect(new Set(failed.map((v) => v.field))).to.deep.equal(new Set(['spec']));
  });

  it('leaves to the server a rule calling a Kubernetes library it does not have, and reports one that fails', () => {
    const Sized = customResource({
      group: 'example.com',
      kind: 'Sized',
      plural: 'sizeds',
      versions: {
        v1: {
          spec: Type.Object(
            { memory: Type.String(), net: Type.String() },
            {
              'x-kubernetes-validations': [
                { rule: 'isCIDR(self.net)', message: 'net must be a CIDR' },
                { rule: 'self.limit > 0', message: 'limit must be positive' },
                { rule: "quantity(self.memory).isLessThan(quantity('4Gi'))", message: 'at most 4Gi' },
              ],
            },
          ),
        },
      },
    });
    expect(Sized.validate({ apiVersion: 'example.com/v1', kind: 'Sized', spec: { memory: '1Gi', net: 'not a CIDR' } })).to.deep.equal([
      { field: 'spec', message: 'rule "self.limit > 0" could not be evaluated: No such key: limit' },
    ]);
    // The quantity library is provided: its rule is checked client-side.
    expect(Sized.validate({ apiVersion: 'example.com/v1', kind: 'Sized', spec: { memory: '8Gi', net: '10.0.0.0/8' } })).to.deep.equal([
      { field: 'spec', message: 'rule "self.limit > 0" could not be evaluated: No such key: limit' },
      { field: 'spec', message: 'at most 4Gi' },
    ]);
  });

  it('evaluates oldSelf transition rules only against an old object', () => {
    const renamed = { ...valid, spec: { replicas: 1, name: 'b' } };
    expect(Widgets.validate(renamed)).to.deep.equal([]);
    expect(Widgets.validate(renamed, { old: { ...valid, spec: { replicas: 1, name: 'a' } } })).to.deep.equal([
      { field: 'spec.name', message: 'name is immutable' },
    ]);
    expect(Widgets.validate(renamed, { old: renamed })).to.deep.equal([]);
  });

  it('finds duplicate keys in a list-type map and validates its items', () => {
    const ports = [
      { name: 'http', port: 80 },
      { name: 'http', port: 0 },
    ];
    expect(Widgets.validate({ ...valid, spec: { replicas: 1, ports } })).to.deep.equal([
      { field: 'spec.ports[1]', message: 'duplicate entry with key ["http"]' },
      { field: 'spec.ports[1].port', message: 'must be >= 1' },
    ]);
  });

  it('checks an object against the schema of its apiVersion', () => {
    expect(Widgets.validate({ apiVersion: 'example.com/v1beta1', kind: 'Widget', spec: { size: 'big' } })).to.deep.equal([
      { field: 'spec.size', message: 'must be of type integer, got string' },
    ]);
    expect(Widgets.validate({ apiVersion: 'example.com/v9', kind: 'Widget', spec: {} })[0]!.field).to.equal('apiVersion');
  });

  it('leaves required fields and CEL out for an apply configuration', () => {
    expect(Widgets.validate({ ...valid, spec: { maxReplicas: 0 } }, { partial: true })).to.deep.equal([]);
    expect(Widgets.validate({ ...valid, spec: { replicas: -1 } }, { partial: true })).to.deep.equal([
      { field: 'spec.replicas', message: 'must be >= 1' },
    ]);
  });

  it('assertValid throws CustomResourceValidationError naming the object and each field', () => {
    expect(() => Widgets.assertValid({ ...valid, spec: { replicas: 0 } }))
      .to.throw(CustomResourceValidationError)
      .with.property('message', 'example.com/v1/Widget ns/w is invalid (fix these fields):\n  spec.replicas: must be >= 1');
  });
});

describe('KubeClient validate option', () => {
  // A server that does not exist: a validated write fails before any request is sent.
  const kubeConfig = offlineKubeConfig();
  // Wrong on purpose (replicas 0, fields missing): what a program building objects at run time can send.
  const bad = {
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w', namespace: 'ns' },
    spec: { replicas: 0 },
  } as unknown as ObjectOfKind<typeof Widgets>;

  it('refuses an invalid create, update or apply before sending it', async () => {
    const client = new KubeClient(kubeConfig, { validate: true });
    for (const write of [() => client.create(Widgets, bad), () => client.update(Widgets, bad), () => client.apply(Widgets, bad)]) {
      const error = await write().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(CustomResourceValidationError);
      expect((error as CustomResourceValidationError).violations).to.deep.equal([{ field: 'spec.replicas', message: 'must be >= 1' }]);
    }
  });

  it('is an Operator option too: the client reconcilers write through validates', async () => {
    const operator = new Operator({ kubeConfig, validate: true });
    const error = await operator.client.create(Widgets, bad).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(CustomResourceValidationError);
  });

  it('validates through a fenced client too (the one a sharded controller hands its reconciler)', async () => {
    const fenced = new KubeClient(kubeConfig, { validate: true }).withFence(() => {});
    const error = await fenced.create(Widgets, bad).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(CustomResourceValidationError);
  });

  it('sends unchecked without the option', async () => {
    const client = new KubeClient(kubeConfig);
    const error = await client.create(Widgets, bad).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).not.to.be.instanceOf(CustomResourceValidationError);
  });
});
