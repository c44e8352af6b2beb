import { expect } from 'chai';
import { skipWithReason } from '../helpers/require-fault.js';
import { WatchEventCollector } from '../helpers/watch-event-collector.js';
import { configMapsPath, createConfigMap, useConformanceFixture } from './conformance-fixture.js';

const BOOKMARK_INTERVAL_MS = 200;

describe('conformance: watch bookmarks', () => {
  const fixture = useConformanceFixture({ bookmarkIntervalMs: BOOKMARK_INTERVAL_MS });
  const watches: WatchEventCollector[] = [];
  beforeEach(function () {
    if (fixture().server.flavor === 'real') {
      skipWithReason(this, 'the real server sends bookmarks about once a minute, whatever bookmarkIntervalMs says');
    }
  });
  afterEach(async () => {
    await Promise.all(watches.splice(0).map((w) => w.stop()));
  });

  async function watchConfigMaps(query: Record<string, string | boolean>): Promise<WatchEventCollector> {
    const { kubeConfig, namespace } = fixture();
    const w = await WatchEventCollector.start(kubeConfig, configMapsPath(namespace), query);
    watches.push(w);
    return w;
  }

  it('with allowWatchBookmarks, sends periodic BOOKMARK events of the watched kind carrying only a resourceVersion', async () => {
    const { core, namespace } = fixture();
    await createConfigMap(core, namespace, { name: 'present' });
    const list = await core.listNamespacedConfigMap({ namespace });
    const w = await watchConfigMaps({ resourceVersion: list.metadata!.resourceVersion!, allowWatchBookmarks: true });
    const bookmark = await w.waitFor((e) => e.type === 'BOOKMARK', 20 * BOOKMARK_INTERVAL_MS);
    expect(bookmark.object).to.include({ kind: 'ConfigMap', apiVersion: 'v1' });
    expect(bookmark.object.metadata?.resourceVersion).to.be.a('string').and.not.equal('');
    expect(bookmark.object.metadata?.name ?? '').to.equal('');
    expect(w.changes, 'bookmarks replay no objects').to.deep.equal([]);
    await w.waitFor((e) => e.type === 'BOOKMARK' && e !== bookmark, 20 * BOOKMARK_INTERVAL_MS);
  });

  it("a watch resumed from a bookmark's resourceVersion delivers only later changes", async () => {
    const { core, namespace } = fixture();
    const list = await core.listNamespacedConfigMap({ namespace });
    const first = await watchConfigMaps({ resourceVersion: list.metadata!.resourceVersion!, allowWatchBookmarks: true });
    await createConfigMap(core, namespace, { name: 'before' });
    await first.waitForCount(1);
    const after = first.events.length;
    const bookmark = await first.waitFor((e) => e.type === 'BOOKMARK' && first.events.indexOf(e) >= after, 20 * BOOKMARK_INTERVAL_MS);
    await first.stop();
    await createConfigMap(core, namespace, { name: 'after' });
    const resumed = await watchConfigMaps({ resourceVersion: bookmark.object.metadata!.resourceVersion!, allowWatchBookmarks: true });
    await resumed.waitForCount(1);
    expect(resumed.summary()).to.deep.equal(['ADDED after']);
  });

  it('without allowWatchBookmarks, sends no BOOKMARK events', async () => {
    const { core, namespace } = fixture();
    const list = await core.listNamespacedConfigMap({ namespace });
    const w = await watchConfigMaps({ resourceVersion: list.metadata!.resourceVersion! });
    await new Promise((resolve) => setTimeout(resolve, 6 * BOOKMARK_INTERVAL_MS));
    await createConfigMap(core, namespace, { name: 'marker' });
    await w.waitForCount(1);
    expect(w.events.map((e) => e.type)).to.deep.equal(['ADDED']);
  });
});
