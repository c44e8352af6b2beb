// KubeClient's writes of a kind fill in the apiVersion and kind the kind already knows, over HTTP
// against an API server (embedded by default, kube-apiserver with KINDEX_APISERVER=real). A custom
// resource is the case that matters: the server decodes its body without a Go type, so a body
// without kind is refused with 400 "Object 'Kind' is missing", while built-in kinds are defaulted
// from the URL.
import { expect } from 'chai';
import Type from 'typebox';
import { InvalidResourceError, ResourceID } from '@kindex/core';
import { createNamespace, uniqueName, useTestApiServer } from '@kindex/testing';
import { InvalidApplyConfigurationError, Kinds, KubeClient, customResource, installCrds } from '../index.js';

function widgets(group: string) {
  return customResource({
    group,
    kind: 'Widget',
    plural: 'widgets',
    versions: {
      // The same field in both: without a conversion webhook, kube-apiserver prunes what the storage version lacks.
      v1beta1: { spec: Type.Object({ replicas: Type.Integer() }), storage: false },
      v1: { spec: Type.Object({ replicas: Type.Integer({ minimum: 1 }) }), storage: true },
    },
  });
}

describe('KubeClient writes of a kind', function () {
  this.timeout(120_000);
  const server = useTestApiServer({ shared: true });
  let Widgets: ReturnType<typeof widgets>;
  let group: string;
  let namespace: string;
  let client: KubeClient;
  /** Writes the client tried to send (the fence runs before each one). */
  let attempted: number;

  before(async () => {
    group = `${uniqueName('tm')}.kindex.dev`;
    Widgets = widgets(group);
    await installCrds(server().kubeConfig, [Widgets.crd]);
    namespace = await createNamespace(server().kubeConfig);
  });
  beforeEach(() => {
    attempted = 0;
    client = new KubeClient(server().kubeConfig, { fieldManager: 'kindex-test' }).withFence(() => void attempted++);
  });

  it('create, update and apply of a custom resource fill in apiVersion and kind left out', async () => {
    const name = uniqueName('w');
    const created = await client.create(Widgets, { metadata: { name, namespace }, spec: { replicas: 1 } });
    expect([created.apiVersion, created.kind, created.spec.replicas]).to.deep.equal([`${group}/v1`, 'Widget', 1]);

    const updated = await client.update(Widgets, { metadata: created.metadata, spec: { replicas: 2 } });
    expect([updated.apiVersion, updated.kind, updated.spec.replicas]).to.deep.equal([`${group}/v1`, 'Widget', 2]);

    const applied = await client.apply(Widgets, { metadata: { name, namespace }, spec: { replicas: 3 } }, { force: true });
    expect([applied.apiVersion, applied.kind, applied.spec.replicas]).to.deep.equal([`${group}/v1`, 'Widget', 3]);
    expect((await client.get(Widgets, ResourceID.of(name, namespace)))?.spec.replicas).to.equal(3);
  });

  it('writes through the kind of another version as that version', async () => {
    const name = uniqueName('w');
    const created = await client.create(Widgets.kinds.v1beta1, { metadata: { name, namespace }, spec: { replicas: 2 } });
    expect([created.apiVersion, created.kind, created.spec.replicas]).to.deep.equal([`${group}/v1beta1`, 'Widget', 2]);
  });

  it('keeps the object as given when apiVersion and kind are set (built-in kinds too)', async () => {
    const name = uniqueName('cm');
    const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { a: '1' } };
    const created = await client.create(Kinds.ConfigMap, configMap);
    expect(created.data).to.deep.equal({ a: '1' });
    const withoutTypeMeta = await client.create(Kinds.ConfigMap, { metadata: { name: uniqueName('cm'), namespace } });
    expect([withoutTypeMeta.apiVersion, withoutTypeMeta.kind]).to.deep.equal(['v1', 'ConfigMap']);
  });

  it('refuses a contradicting kind or apiVersion before any request, naming the object, the field and the fix', async () => {
    const name = uniqueName('w');
    const wrongKind = { kind: 'Gadget', metadata: { name, namespace }, spec: { replicas: 1 } };
    const createError = await client.create(Widgets, wrongKind).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(createError).to.be.instanceOf(InvalidResourceError);
    expect((createError as InvalidResourceError).field).to.equal('kind');
    expect((createError as Error).message).to.equal(
      `object ${namespace}/${name}: kind: is "Gadget", but KubeClient.create was given the ${group}/v1 Widget kind; ` +
        `leave kind out to have it filled in, or pass the kind of a Gadget`,
    );

    const wrongVersion = { apiVersion: `${group}/v2`, metadata: { name, namespace, resourceVersion: '1' }, spec: { replicas: 1 } };
    const updateError = await client.update(Widgets, wrongVersion).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(updateError).to.be.instanceOf(InvalidResourceError);
    expect((updateError as InvalidResourceError).field).to.equal('apiVersion');
    expect((updateError as Error).message).to.contain(
      `apiVersion: is "${group}/v2", but KubeClient.update was given the ${group}/v1 Widget kind`,
    );

    expect(() => client.apply(Widgets, wrongKind)).to.throw(
      InvalidApplyConfigurationError,
      `KubeClient.apply: Widget ${namespace}/${name}: kind is "Gadget", but the kind given is ${group}/v1 Widget; ` +
        `leave kind out to have it filled in, or pass the kind of a Gadget`,
    );
    expect(attempted).to.equal(0);
    expect(await client.get(Widgets, ResourceID.of(name, namespace))).to.equal(undefined);
  });
});
