// The operator against an API server: the embedded one by default (in-process, starts in
// milliseconds), a real kube-apiserver with KINDEX_APISERVER=real. The same assertions hold on both.
import { expect } from 'chai';
import { ResourceID, findStatusCondition } from '@kindex/core';
import { createNamespace, eventually, startTestApiServer, type TestApiServer } from '@kindex/testing';
import { KubeApiError, KubeClient, Kinds, Operator, installCrds } from '@kindex/informer';
import { registerControllers } from './operator.js';
import { Widgets, type Widget } from './widget.js';
import { configMapName } from './widget-reconciler.js';

describe('the Widget operator', function () {
  this.timeout(120_000);
  let server: TestApiServer;
  let operator: Operator;
  let client: KubeClient;
  let namespace: string;

  before(async () => {
    server = await startTestApiServer();
    await installCrds(server.kubeConfig, [Widgets.crd]);
    namespace = await createNamespace(server.kubeConfig);
    client = new KubeClient(server.kubeConfig);
    // The controllers of src/operator.ts, without its HTTPS server and leader election.
    operator = new Operator({ kubeConfig: server.kubeConfig });
    registerControllers(operator);
    await operator.start();
  });

  after(async () => {
    await operator?.stop();
    await server?.stop();
  });

  const widget = (name: string, spec: Widget['spec']): Widget => ({
    apiVersion: Widgets.apiVersion,
    kind: Widgets.kind,
    metadata: { name, namespace },
    spec,
  });

  it('writes the ConfigMap, owned by the Widget, and marks the Widget Ready', async () => {
    const created = await client.create(Widgets, widget('hello', { message: 'Hello, kindex', key: 'greeting' }));
    const ready = await eventually(
      async () => {
        const read = await client.get(Widgets, ResourceID.of('hello', namespace));
        const condition = findStatusCondition(read?.status?.conditions, 'Ready');
        expect(condition, 'the Ready condition').to.include({
          status: 'True',
          reason: 'ConfigMapReady',
          observedGeneration: created.metadata?.generation,
        });
        return read!;
      },
      { timeoutMs: 30_000 },
    );
    expect(ready.status?.configMap).to.equal(configMapName(ready));

    const configMap = await client.get(Kinds.ConfigMap, ResourceID.of(configMapName(ready), namespace));
    expect(configMap?.data).to.deep.equal({ greeting: 'Hello, kindex' });
    expect(configMap?.metadata?.ownerReferences?.[0]).to.include({
      kind: 'Widget',
      name: 'hello',
      uid: created.metadata?.uid,
      controller: true,
    });
  });

  it('updates the ConfigMap when the message changes', async () => {
    const created = await client.create(Widgets, widget('changing', { message: 'first', key: 'message' }));
    await eventually(
      async () => {
        const configMap = await client.get(Kinds.ConfigMap, ResourceID.of(configMapName(created), namespace));
        expect(configMap?.data).to.deep.equal({ message: 'first' });
      },
      { timeoutMs: 30_000 },
    );
    // A merge patch of the spec alone: the operator writes the status meanwhile, so an update of
    // the object read a moment ago could meet a newer resourceVersion (409 Conflict).
    await client.patch(Widgets, ResourceID.of('changing', namespace), { spec: { message: 'second' } });
    await eventually(
      async () => {
        const configMap = await client.get(Kinds.ConfigMap, ResourceID.of(configMapName(created), namespace));
        expect(configMap?.data).to.deep.equal({ message: 'second' });
      },
      { timeoutMs: 30_000 },
    );
  });

  it('is refused by the API server when spec.message is blank (the CEL rule)', async () => {
    const refused = await client.create(Widgets, widget('blank', { message: '   ', key: 'message' })).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).to.be.instanceOf(KubeApiError);
    expect((refused as KubeApiError).status).to.equal(422);
    expect((refused as KubeApiError).message).to.include('must not be blank');
  });
});
