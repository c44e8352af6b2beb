import { expect } from 'chai';
import { catchApiStatus } from '../helpers/api-status.js';
import { eventually } from '../helpers/eventually.js';
import { rawRequest } from '../helpers/raw-request.js';
import { requireFault } from '../helpers/require-fault.js';
import { WatchEventCollector } from '../helpers/watch-event-collector.js';
import { configMapsPath, createConfigMap, stored, useConformanceFixture } from './conformance-fixture.js';

describe('conformance: fault injection', () => {
  const fixture = useConformanceFixture({ shared: false });
  const watches: WatchEventCollector[] = [];
  afterEach(async () => {
    const { server } = fixture();
    server.faults.setLatency?.(0);
    server.faults.resumeEvents?.();
    await Promise.all(watches.splice(0).map((w) => w.stop()));
  });

  async function watchFromNow(): Promise<WatchEventCollector> {
    const { core, kubeConfig, namespace } = fixture();
    const list = await core.listNamespacedConfigMap({ namespace });
    const w = await WatchEventCollector.start(kubeConfig, configMapsPath(namespace), {
      resourceVersion: list.metadata!.resourceVersion!,
    });
    watches.push(w);
    return w;
  }

  it('closeWatches ends open watches, and a watch from the last seen resourceVersion loses nothing', async function () {
    const closeWatches = requireFault(this, fixture().server, 'closeWatches');
    const { core, kubeConfig, namespace } = fixture();
    const w = await watchFromNow();
    await createConfigMap(core, namespace, { name: 'before' });
    const [seen] = await w.waitForCount(1);
    await closeWatches();
    await w.waitForEnd();
    await createConfigMap(core, namespace, { name: 'while-closed' });
    const resumed = await WatchEventCollector.start(kubeConfig, configMapsPath(namespace), {
      resourceVersion: seen!.object.metadata!.resourceVersion!,
    });
    watches.push(resumed);
    await resumed.waitForCount(1);
    expect(resumed.summary()).to.deep.equal(['ADDED while-closed']);
  });

  it('failNextRequests fails exactly the next N requests with the given status, then serves normally', async function () {
    const failNextRequests = requireFault(this, fixture().server, 'failNextRequests');
    const { core, namespace } = fixture();
    failNextRequests(2, { status: 500 });
    expect((await catchApiStatus(core.listNamespacedConfigMap({ namespace }))).code).to.equal(500);
    expect((await catchApiStatus(createConfigMap(core, namespace, { name: 'not-stored' }))).code).to.equal(500);
    const list = await core.listNamespacedConfigMap({ namespace });
    expect(list.items, 'a failed write stores nothing').to.deep.equal([]);
  });

  it('a 429 failure carries Retry-After and a TooManyRequests Status', async function () {
    const failNextRequests = requireFault(this, fixture().server, 'failNextRequests');
    const { kubeConfig, namespace } = fixture();
    failNextRequests(1, { status: 429, retryAfterSeconds: 3 });
    const response = await rawRequest(kubeConfig, { path: configMapsPath(namespace) });
    expect(response.status).to.equal(429);
    expect(response.headers['retry-after']).to.equal('3');
    const status = JSON.parse(response.text) as { code?: number; reason?: string; details?: { retryAfterSeconds?: number } };
    expect(status).to.include({ code: 429, reason: 'TooManyRequests' });
    const next = await rawRequest(kubeConfig, { path: configMapsPath(namespace) });
    expect(next.status).to.equal(200);
  });

  it('failNextRequests also fails watch requests', async function () {
    const failNextRequests = requireFault(this, fixture().server, 'failNextRequests');
    const { kubeConfig, namespace } = fixture();
    failNextRequests(1, { status: 503 });
    const response = await rawRequest(kubeConfig, { path: `${configMapsPath(namespace)}?watch=true&timeoutSeconds=1` });
    expect(response.status).to.equal(503);
  });

  it('setLatency delays every response by at least that long, and 0 removes it', async function () {
    const setLatency = requireFault(this, fixture().server, 'setLatency');
    const { core, namespace } = fixture();
    setLatency(300);
    const started = Date.now();
    await core.listNamespacedConfigMap({ namespace });
    expect(Date.now() - started).to.be.at.least(290);
    setLatency(0);
    // Only checks the request still works; how fast it is belongs in benchmarks.
    await core.listNamespacedConfigMap({ namespace });
  });

  it('pauseEvents holds watch events back and resumeEvents delivers them in order', async function () {
    const pauseEvents = requireFault(this, fixture().server, 'pauseEvents');
    const resumeEvents = requireFault(this, fixture().server, 'resumeEvents');
    const { core, namespace } = fixture();
    const w = await watchFromNow();
    pauseEvents();
    await createConfigMap(core, namespace, { name: 'one' });
    await createConfigMap(core, namespace, { name: 'two' });
    await core.deleteNamespacedConfigMap({ name: 'one', namespace });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(w.changes, 'nothing arrives while paused').to.deep.equal([]);
    const list = await core.listNamespacedConfigMap({ namespace });
    expect(
      list.items.map((i) => i.metadata?.name),
      'writes still succeed while paused',
    ).to.deep.equal(['two']);
    resumeEvents();
    await w.waitForCount(3);
    expect(w.summary()).to.deep.equal(['ADDED one', 'ADDED two', 'DELETED one']);
  });

  it('restart keeps the data and the URL, breaks open watches, and serves list-then-watch again', async function () {
    this.timeout(120_000);
    const restart = requireFault(this, fixture().server, 'restart');
    const { server, core, kubeConfig, namespace } = fixture();
    const url = server.url;
    const w = await watchFromNow();
    const created = stored(await createConfigMap(core, namespace, { name: 'durable', data: { kept: 'yes' } }));
    await w.waitForCount(1);
    await restart();
    await w.waitForEnd(30_000);
    expect(server.url).to.equal(url);
    const read = await eventually(() => core.readNamespacedConfigMap({ name: 'durable', namespace }), { timeoutMs: 30_000 });
    expect(read.metadata?.uid).to.equal(created.uid);
    expect(read.metadata?.resourceVersion).to.equal(created.resourceVersion);
    expect(read.data).to.deep.equal({ kept: 'yes' });
    // A watch from a pre-restart resourceVersion may legitimately get 410 (a real server rebuilds
    // its watch cache), so resume the way clients do: from a fresh list.
    const list = await core.listNamespacedConfigMap({ namespace });
    expect(list.items.map((i) => i.metadata?.name)).to.deep.equal(['durable']);
    const resumed = await WatchEventCollector.start(kubeConfig, configMapsPath(namespace), {
      resourceVersion: list.metadata!.resourceVersion!,
    });
    watches.push(resumed);
    await createConfigMap(core, namespace, { name: 'after-restart' });
    await resumed.waitForCount(1);
    expect(resumed.summary()).to.deep.equal(['ADDED after-restart']);
  });
});
