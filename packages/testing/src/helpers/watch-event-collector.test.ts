import { expect } from 'chai';
import { CoreV1Api } from '@kubernetes/client-node';
import { createNamespace, useTestApiServer, WatchEventCollector } from '../index.js';

describe('WatchEventCollector', () => {
  const server = useTestApiServer();

  async function fromNow(namespace: string, query: Record<string, string | number> = {}): Promise<WatchEventCollector> {
    const core = server().kubeConfig.makeApiClient(CoreV1Api);
    const list = await core.listNamespacedConfigMap({ namespace });
    return WatchEventCollector.start(server().kubeConfig, `/api/v1/namespaces/${namespace}/configmaps`, {
      resourceVersion: list.metadata!.resourceVersion!,
      ...query,
    });
  }

  it('records events in arrival order and summarizes them as TYPE name', async () => {
    const namespace = await createNamespace(server().kubeConfig);
    const core = server().kubeConfig.makeApiClient(CoreV1Api);
    const watch = await fromNow(namespace);
    try {
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'a' } } });
      await core.deleteNamespacedConfigMap({ name: 'a', namespace });
      const events = await watch.waitForCount(2);
      expect(events.map((e) => e.type)).to.deep.equal(['ADDED', 'DELETED']);
      expect(watch.summary()).to.deep.equal(['ADDED a', 'DELETED a']);
    } finally {
      await watch.stop();
    }
  });

  it('waitForCount fails with the events seen so far when too few arrive', async () => {
    const namespace = await createNamespace(server().kubeConfig);
    const core = server().kubeConfig.makeApiClient(CoreV1Api);
    const watch = await fromNow(namespace);
    try {
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'only' } } });
      const error = await watch.waitForCount(2, 300).catch((e: unknown) => e);
      expect((error as Error).message).to.contain('1 of 2 watch events: [ADDED only]');
    } finally {
      await watch.stop();
    }
  });

  it('reports the end of a stream the server closes (timeoutSeconds)', async () => {
    const namespace = await createNamespace(server().kubeConfig);
    const watch = await fromNow(namespace, { timeoutSeconds: 1 });
    expect(await watch.waitForEnd(15_000)).to.equal(null);
    expect(watch.ended).to.equal(true);
  });
});
