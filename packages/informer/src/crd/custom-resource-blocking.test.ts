// CustomResource.validate() leaves the CEL rules unchecked after a blocking schema problem, as
// kube-apiserver does (hasBlockingErr in apiextensions-apiserver's strategy.go): judged here
// against the server's answer to the same objects over HTTP (embedded by default, kube-apiserver
// with KINDEX_APISERVER=real).
import { expect } from 'chai';
import Type from 'typebox';
import { createNamespace, uniqueName, useTestApiServer } from '@kindex/testing';
import { KubeApiError, KubeClient, customResource, installCrds, type FieldViolation } from '../index.js';

const NOT_CHECKED: FieldViolation = {
  field: '<nil>',
  message: 'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
};

function widgets(group: string) {
  return customResource({
    group,
    kind: 'Widget',
    plural: 'widgets',
    versions: {
      v1: {
        spec: Type.Object(
          {
            replicas: Type.Integer({ minimum: 0 }),
            mode: Type.Optional(Type.Union([Type.Literal('fast'), Type.Literal('safe')])),
            name: Type.Optional(Type.String({ maxLength: 5 })),
          },
          // Fails for every object below: the question is whether it was evaluated.
          { 'x-kubernetes-validations': [{ rule: 'self.replicas > 100', message: 'replicas must exceed 100' }] },
        ),
      },
    },
  });
}

describe('CustomResource.validate after blocking schema errors', function () {
  this.timeout(120_000);
  const server = useTestApiServer({ shared: true });
  let Widgets: ReturnType<typeof widgets>;
  let namespace: string;
  let client: KubeClient;

  before(async () => {
    Widgets = widgets(`${uniqueName('blk')}.kindex.dev`);
    await installCrds(server().kubeConfig, [Widgets.crd]);
    namespace = await createNamespace(server().kubeConfig);
    client = new KubeClient(server().kubeConfig);
  });

  /** The server's refusal of `spec` (the client does not validate), as its message. */
  async function serverRefusal(spec: Record<string, unknown>): Promise<string> {
    const error = await client.create(Widgets, { metadata: { name: uniqueName('w'), namespace }, spec: spec as { replicas: number } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).to.be.instanceOf(KubeApiError);
    expect((error as KubeApiError).status).to.equal(422);
    return (error as Error).message;
  }

  it('reports an enum, a type, a length or a missing required field, and that the rules were not checked', async () => {
    for (const [spec, field] of [
      [{ replicas: 1, mode: 'slow' }, 'spec.mode'],
      [{ replicas: 'three' }, 'spec.replicas'],
      [{ replicas: 1, name: 'abcdefgh' }, 'spec.name'],
      [{ mode: 'fast' }, 'spec.replicas'],
    ] as const) {
      const violations = Widgets.validate({ apiVersion: Widgets.apiVersion, kind: 'Widget', spec });
      expect(
        violations.map((v) => v.field),
        JSON.stringify(spec),
      ).to.deep.equal([field, '<nil>']);
      expect(violations.at(-1)).to.deep.equal(NOT_CHECKED);
      const refusal = await serverRefusal(spec);
      expect(refusal, JSON.stringify(spec)).to.contain(`${field}: `).and.contain(`<nil>: Invalid value: null: ${NOT_CHECKED.message}`);
      expect(refusal).not.to.contain('replicas must exceed 100');
    }
  });

  it('still evaluates the rules after a problem that does not block them, listing theirs last', async () => {
    const violations = Widgets.validate({ apiVersion: Widgets.apiVersion, kind: 'Widget', spec: { replicas: -1 } });
    expect(violations.map((v) => v.field)).to.deep.equal(['spec.replicas', 'spec']);
    expect(violations.at(-1)).to.deep.equal({ field: 'spec', message: 'replicas must exceed 100' });
    const refusal = await serverRefusal({ replicas: -1 });
    expect(refusal).to.contain('spec.replicas: ').and.contain('spec: Invalid value: replicas must exceed 100').and.not.contain('<nil>');
  });
});
