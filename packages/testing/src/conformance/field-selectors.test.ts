import { expect } from 'chai';
import { catchApiStatus } from '../helpers/api-status.js';
import { createNamespace } from '../helpers/create-namespace.js';
import { createConfigMap, useConformanceFixture } from './conformance-fixture.js';

describe('conformance: field selectors', () => {
  const fixture = useConformanceFixture();

  async function names(list: Promise<{ items: { metadata?: { name?: string } }[] }>): Promise<string[]> {
    return (await list).items.map((i) => i.metadata!.name!).sort();
  }

  it('metadata.name= selects the one object of that name', async () => {
    const { core, namespace } = fixture();
    await createConfigMap(core, namespace, { name: 'one' });
    await createConfigMap(core, namespace, { name: 'two' });
    expect(await names(core.listNamespacedConfigMap({ namespace, fieldSelector: 'metadata.name=one' }))).to.deep.equal(['one']);
    expect(await names(core.listNamespacedConfigMap({ namespace, fieldSelector: 'metadata.name==two' }))).to.deep.equal(['two']);
  });

  it('metadata.name!= excludes the object of that name', async () => {
    const { core, namespace } = fixture();
    for (const name of ['one', 'two', 'three']) await createConfigMap(core, namespace, { name });
    expect(await names(core.listNamespacedConfigMap({ namespace, fieldSelector: 'metadata.name!=two' }))).to.deep.equal(['one', 'three']);
  });

  it('metadata.namespace= selects one namespace in an all-namespaces list', async () => {
    const { core, kubeConfig, namespace } = fixture();
    const other = await createNamespace(kubeConfig);
    await createConfigMap(core, namespace, { name: 'here' });
    await createConfigMap(core, other, { name: 'there' });
    const list = await core.listConfigMapForAllNamespaces({ fieldSelector: `metadata.namespace=${namespace}` });
    expect(list.items.map((i) => `${i.metadata?.namespace}/${i.metadata?.name}`)).to.deep.equal([`${namespace}/here`]);
  });

  it('combines field and label selectors', async () => {
    const { core, namespace } = fixture();
    await createConfigMap(core, namespace, { name: 'one', labels: { app: 'x' } });
    await createConfigMap(core, namespace, { name: 'two', labels: { app: 'x' } });
    await createConfigMap(core, namespace, { name: 'three', labels: { app: 'y' } });
    const selected = await names(core.listNamespacedConfigMap({ namespace, fieldSelector: 'metadata.name!=one', labelSelector: 'app=x' }));
    expect(selected).to.deep.equal(['two']);
  });

  it('secrets can be selected by type', async () => {
    const { core, namespace } = fixture();
    await core.createNamespacedSecret({ namespace, body: { metadata: { name: 'opaque' }, type: 'Opaque', stringData: { a: 'b' } } });
    await core.createNamespacedSecret({
      namespace,
      body: { metadata: { name: 'custom' }, type: 'kindex.test/custom', stringData: { a: 'b' } },
    });
    expect(await names(core.listNamespacedSecret({ namespace, fieldSelector: 'type=kindex.test/custom' }))).to.deep.equal(['custom']);
    expect(await names(core.listNamespacedSecret({ namespace, fieldSelector: 'type!=kindex.test/custom' }))).to.deep.equal(['opaque']);
  });

  it('events can be selected by involvedObject and reason', async () => {
    const { core, namespace } = fixture();
    for (const [name, target, reason] of [
      ['e1', 'alpha', 'Started'],
      ['e2', 'beta', 'Started'],
      ['e3', 'alpha', 'Failed'],
    ] as const) {
      await core.createNamespacedEvent({
        namespace,
        body: {
          metadata: { name },
          involvedObject: { apiVersion: 'v1', kind: 'ConfigMap', name: target, namespace },
          reason,
          message: `${reason} ${target}`,
          type: 'Normal',
          source: { component: 'kindex-test' },
          count: 1,
          firstTimestamp: new Date(),
          lastTimestamp: new Date(),
        },
      });
    }
    expect(await names(core.listNamespacedEvent({ namespace, fieldSelector: 'involvedObject.name=alpha' }))).to.deep.equal(['e1', 'e3']);
    expect(await names(core.listNamespacedEvent({ namespace, fieldSelector: 'involvedObject.name=alpha,reason=Started' }))).to.deep.equal([
      'e1',
    ]);
    expect(await names(core.listNamespacedEvent({ namespace, fieldSelector: 'involvedObject.kind=ConfigMap' }))).to.have.length(3);
  });

  it('pods can be selected by spec.nodeName and status.phase', async () => {
    const { core, namespace } = fixture();
    for (const [name, nodeName] of [
      ['on-a', 'node-a'],
      ['on-b', 'node-b'],
    ] as const) {
      await core.createNamespacedPod({
        namespace,
        body: { metadata: { name }, spec: { nodeName, containers: [{ name: 'main', image: 'registry.invalid/kindex:1' }] } },
      });
    }
    expect(await names(core.listNamespacedPod({ namespace, fieldSelector: 'spec.nodeName=node-a' }))).to.deep.equal(['on-a']);
    expect(await names(core.listNamespacedPod({ namespace, fieldSelector: 'status.phase=Pending' }))).to.deep.equal(['on-a', 'on-b']);
    expect(await names(core.listNamespacedPod({ namespace, fieldSelector: 'status.phase=Running' }))).to.deep.equal([]);
  });

  it('namespaces can be selected by status.phase', async () => {
    const { core, namespace } = fixture();
    const list = await core.listNamespace({ fieldSelector: `status.phase=Active,metadata.name=${namespace}` });
    expect(list.items.map((i) => i.metadata?.name)).to.deep.equal([namespace]);
    expect(list.items[0]?.status?.phase).to.equal('Active');
  });

  it('rejects a field the kind does not support with 400 BadRequest naming the field', async () => {
    const { core, namespace } = fixture();
    const status = await catchApiStatus(core.listNamespacedConfigMap({ namespace, fieldSelector: 'data.key=value' }));
    expect(status).to.include({ code: 400, reason: 'BadRequest' });
    expect(status.message).to.contain('data.key');
  });

  it('rejects a malformed field selector with 400 BadRequest', async () => {
    const { core, namespace } = fixture();
    const status = await catchApiStatus(core.listNamespacedConfigMap({ namespace, fieldSelector: 'metadata.name' }));
    expect(status).to.include({ code: 400, reason: 'BadRequest' });
  });

  it('rejects set-based operators, which field selectors do not have, with 400 BadRequest', async () => {
    const { core, namespace } = fixture();
    const status = await catchApiStatus(core.listNamespacedConfigMap({ namespace, fieldSelector: 'metadata.name in (a,b)' }));
    expect(status).to.include({ code: 400, reason: 'BadRequest' });
  });
});
