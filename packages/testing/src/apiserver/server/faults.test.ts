import { expect } from 'chai';
import { CoreV1Api } from '@kubernetes/client-node';
import { startEmbeddedApiServer, catchApiStatus, rawRequest, WatchEventCollector, type EmbeddedApiServer } from '../../index.js';

describe('EmbeddedApiServer faults', () => {
  let server: EmbeddedApiServer;
  let core: CoreV1Api;
  const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: '1' } });

  beforeEach(async () => {
    server = await startEmbeddedApiServer({ historyWindow: 50 });
    core = server.kubeConfig.makeApiClient(CoreV1Api);
  });
  afterEach(async () => {
    await server.stop();
  });

  it('fails the next N requests with 429 and Retry-After, then serves again', async () => {
    server.faults.failNextRequests(2, { status: 429, retryAfterSeconds: 7 });
    const first = await rawRequest(server.kubeConfig, { path: '/api/v1/namespaces/default/configmaps' });
    expect(first.status).to.equal(429);
    expect(first.headers['retry-after']).to.equal('7');
    expect(JSON.parse(first.text)).to.include({ reason: 'TooManyRequests', code: 429 });
    expect((await rawRequest(server.kubeConfig, { path: '/api/v1/namespaces/default/configmaps' })).status).to.equal(429);
    expect((await rawRequest(server.kubeConfig, { path: '/api/v1/namespaces/default/configmaps' })).status).to.equal(200);
  });

  it('fails requests with 500 InternalError', async () => {
    server.faults.failNextRequests(1, { status: 500 });
    const status = await catchApiStatus(core.listNamespacedConfigMap({ namespace: 'default' }));
    expect(status).to.include({ code: 500, reason: 'InternalError' });
  });

  it('closes every open watch', async () => {
    const watch = await WatchEventCollector.start(server.kubeConfig, '/api/v1/namespaces/default/configmaps', {
      resourceVersion: server.resourceVersion(),
    });
    expect(server.openWatches()).to.equal(1);
    await server.faults.closeWatches();
    expect(server.openWatches()).to.equal(0);
    await watch.stop();
  });

  it('expires history so that a watch from an older resourceVersion gets 410', async () => {
    const rv = server.resourceVersion();
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('a') });
    await server.faults.expireHistory();
    const watch = await WatchEventCollector.start(server.kubeConfig, '/api/v1/namespaces/default/configmaps', { resourceVersion: rv });
    const [event] = await watch.waitForCount(1);
    expect(event!.type).to.equal('ERROR');
    expect(event!.object).to.include({ code: 410, reason: 'Expired' });
    await watch.stop();
  });

  it('holds events while paused and delivers them in order on resume', async () => {
    const watch = await WatchEventCollector.start(server.kubeConfig, '/api/v1/namespaces/default/configmaps', {
      resourceVersion: server.resourceVersion(),
    });
    server.faults.pauseEvents();
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('p1') });
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('p2') });
    await new Promise((r) => setTimeout(r, 200));
    expect(watch.events).to.have.length(0);
    server.faults.resumeEvents();
    await watch.waitForCount(2);
    expect(watch.summary()).to.deep.equal(['ADDED p1', 'ADDED p2']);
    await watch.stop();
  });

  it('adds latency to responses', async () => {
    server.faults.setLatency(300);
    const start = Date.now();
    await core.listNamespacedConfigMap({ namespace: 'default' });
    // A lower bound only: the delay is a minimum, never a timed upper-bound assertion.
    expect(Date.now() - start).to.be.at.least(290);
    server.faults.setLatency(0);
  });

  it('restarts on the same port keeping its data', async () => {
    await core.createNamespacedConfigMap({ namespace: 'default', body: cm('kept') });
    const rv = server.resourceVersion();
    await server.faults.restart();
    const read = await core.readNamespacedConfigMap({ name: 'kept', namespace: 'default' });
    expect(read.data).to.deep.equal({ a: '1' });
    expect(server.resourceVersion()).to.equal(rv);
  });
});
