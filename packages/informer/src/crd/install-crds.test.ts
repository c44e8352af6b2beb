import { expect } from 'chai';
import Type from 'typebox';
import { ResourceID } from '@kindex/core';
import { createNamespace, uniqueName, useTestApiServer } from '@kindex/testing';
import {
  KubeApiError,
  KubeClient,
  KubeType,
  customResource,
  installCrds,
  resourceKind,
  type CustomResourceDefinition,
  type ObjectOfKind,
} from '../index.js';

const CustomResourceDefinitions = resourceKind<CustomResourceDefinition>({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
});

/**
 * The judge of a generated CRD is the API server: it must accept the schema as structural, serve
 * the kind, and refuse what the client-side validation refuses, at the same field path.
 */
describe('installCrds', function () {
  this.timeout(120_000);
  const server = useTestApiServer({ shared: true });

  // A fresh group per run: CRDs are cluster-wide and the server is shared between tests.
  function gadgets(group: string) {
    return customResource({
      group,
      kind: 'Gadget',
      plural: 'gadgets',
      shortNames: ['gd'],
      categories: ['kindex-test'],
      printerColumns: [{ name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' }],
      versions: {
        v1alpha1: { spec: Type.Object({ replicas: Type.Integer() }), storage: false },
        v1: {
          storage: true,
          spec: Type.Object(
            {
              replicas: Type.Integer({ minimum: 1, default: 1 }),
              maxReplicas: Type.Integer({ default: 10 }),
              mode: Type.Optional(Type.Union([Type.Literal('fast'), Type.Literal('safe')])),
              port: Type.Optional(KubeType.IntOrString()),
              note: Type.Optional(KubeType.Nullable(Type.String())),
              template: Type.Optional(KubeType.EmbeddedResource()),
              extra: Type.Optional(KubeType.AnyObject()),
              tags: Type.Optional(
                Type.Array(Type.String({ maxLength: 63 }), {
                  maxItems: 16,
                  'x-kubernetes-list-type': 'set',
                  'x-kubernetes-validations': [{ rule: "self.all(t, t.matches('^[a-z]+$'))", message: 'tags are lower-case words' }],
                }),
              ),
              ports: Type.Optional(
                Type.Array(Type.Object({ name: Type.String({ maxLength: 15 }), port: Type.Integer() }), {
                  maxItems: 16,
                  'x-kubernetes-list-type': 'map',
                  'x-kubernetes-list-map-keys': ['name'],
                }),
              ),
              name: Type.Optional(
                Type.String({ maxLength: 63, 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'name is immutable' }] }),
              ),
            },
            {
              'x-kubernetes-validations': [
                {
                  rule: 'self.replicas <= self.maxReplicas',
                  // kube-apiserver refuses messageExpressions whose estimated cost is unbounded (string(int) is): this one is bounded.
                  messageExpression:
                    "has(self.mode) && self.mode == 'fast' ? 'replicas exceed maxReplicas (fast mode)' : 'replicas exceed maxReplicas'",
                },
              ],
            },
          ),
          status: Type.Object({ replicas: Type.Optional(Type.Integer()) }),
          subresources: { status: true, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } },
        },
      },
    });
  }

  let Gadgets: ReturnType<typeof gadgets>;
  let namespace: string;
  let client: KubeClient;

  before(async () => {
    Gadgets = gadgets(`${uniqueName('crd')}.kindex.dev`);
    await installCrds(server().kubeConfig, [Gadgets.crd]);
    namespace = await createNamespace(server().kubeConfig);
    client = new KubeClient(server().kubeConfig);
  });

  /** A Gadget built loosely, as a program does at run time: some of these are invalid on purpose. */
  const gadget = (name: string, spec: Record<string, unknown>) =>
    ({ apiVersion: Gadgets.apiVersion, kind: 'Gadget', metadata: { name, namespace }, spec }) as unknown as ObjectOfKind<typeof Gadgets>;

  /** kube-apiserver's form of one field error: `<field>: Invalid value: [<value>: ]<message>`. */
  function serverViolation(field: string, message: string): RegExp {
    const quote = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return new RegExp(`(^|[ \\[])${quote(field)}: Invalid value: (.*: )?${quote(message)}`);
  }

  async function refusal(write: Promise<unknown>): Promise<KubeApiError> {
    const error = await write.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error, 'the server accepted an invalid object').to.be.instanceOf(KubeApiError);
    return error as KubeApiError;
  }

  it('installs the generated CRD, Established and served, and applying it again changes nothing', async () => {
    await installCrds(server().kubeConfig, [Gadgets.crd]);
    const created = await client.create(
      Gadgets,
      gadget('plain', { replicas: 2, port: '80%', note: null, tags: ['a'], ports: [{ name: 'http', port: 80 }] }),
    );
    expect(created.spec).to.include({ replicas: 2, port: '80%' });
    const read = await client.get(Gadgets, ResourceID.of('plain', namespace));
    expect(read?.spec.tags).to.deep.equal(['a']);
    // Defaulting is the API server's; the embedded one does not default custom resources yet.
    if (server().flavor === 'real') expect(read?.spec.maxReplicas).to.equal(10);
  });

  it('updates an installed CRD by apply, and leaves it alone with onlyIfMissing', async () => {
    const crd = Gadgets.crd;
    const live = async () => (await client.get(CustomResourceDefinitions, ResourceID.of(crd.metadata.name)))!.spec.names.shortNames;
    crd.spec.names.shortNames = ['gd', 'gdg'];
    await installCrds(server().kubeConfig, [crd], { onlyIfMissing: true });
    expect(await live()).to.deep.equal(['gd']);
    await installCrds(server().kubeConfig, [crd]);
    expect(await live()).to.deep.equal(['gd', 'gdg']);
    await installCrds(server().kubeConfig, [Gadgets.crd]);
    expect(await live()).to.deep.equal(['gd']);
  });

  it('creates a missing CRD with onlyIfMissing and waits until it is Established', async () => {
    const Other = gadgets(`${uniqueName('crd')}.kindex.dev`);
    await installCrds(server().kubeConfig, [Other.crd], { onlyIfMissing: true });
    await client.create(Other, {
      apiVersion: Other.apiVersion,
      kind: 'Gadget',
      metadata: { name: 'first', namespace },
      spec: { replicas: 1, maxReplicas: 1 },
    });
    expect(await client.get(Other, ResourceID.of('first', namespace))).not.to.equal(undefined);
  });

  it('serves every version of the CRD', async () => {
    const created = await client.create(Gadgets.kinds.v1alpha1, {
      apiVersion: Gadgets.kinds.v1alpha1.apiVersion,
      kind: 'Gadget',
      metadata: { name: 'old', namespace },
      spec: { replicas: 3 },
    });
    expect(created.apiVersion).to.equal(Gadgets.kinds.v1alpha1.apiVersion);
  });

  it('refuses a schema violation on the server and in the client, at the same field path', async () => {
    const bad = gadget('zero', { replicas: 0 });
    expect(Gadgets.validate(bad)).to.deep.equal([{ field: 'spec.replicas', message: 'must be >= 1' }]);
    const error = await refusal(client.create(Gadgets, bad));
    expect(error.status).to.equal(422);
    expect(error.message).to.include('spec.replicas');
  });

  it('refuses a CEL violation on the server with the rule message, and in the client at the same field path', async () => {
    const bad = gadget('cel', { replicas: 12, maxReplicas: 10 });
    const [violation] = Gadgets.validate(bad);
    expect(violation).to.deep.equal({ field: 'spec', message: 'replicas exceed maxReplicas' });
    const error = await refusal(client.create(Gadgets, bad));
    expect(error.status).to.equal(422);
    expect(error.message).to.match(serverViolation(violation!.field, violation!.message));
  });

  it('refuses a list rule with matches() on the server and in the client, at the same field path', async () => {
    const bad = gadget('tags', { replicas: 1, maxReplicas: 1, tags: ['ok', 'Not-OK'] });
    expect(Gadgets.validate(bad)).to.deep.equal([{ field: 'spec.tags', message: 'tags are lower-case words' }]);
    const error = await refusal(client.create(Gadgets, bad));
    expect(error.message).to.match(serverViolation('spec.tags', 'tags are lower-case words'));
  });

  it('refuses a transition rule violation on update, as the client does with the old object', async () => {
    const created = await client.create(Gadgets, gadget('named', { replicas: 1, maxReplicas: 10, name: 'a' }));
    const renamed = { ...created, spec: { ...created.spec, name: 'b' } };
    expect(Gadgets.validate(renamed, { old: created })).to.deep.equal([{ field: 'spec.name', message: 'name is immutable' }]);
    const error = await refusal(client.update(Gadgets, renamed));
    expect(error.message).to.match(serverViolation('spec.name', 'name is immutable'));
  });

  it('with the validate option, the client refuses before the server sees the object', async () => {
    const validating = new KubeClient(server().kubeConfig, { validate: true });
    const error = await validating.create(Gadgets, gadget('never', { replicas: 12, maxReplicas: 10 })).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as Error).name).to.equal('CustomResourceValidationError');
    expect(await client.get(Gadgets, ResourceID.of('never', namespace))).to.equal(undefined);
  });
});
