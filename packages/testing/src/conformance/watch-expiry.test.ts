import { expect } from 'chai';
import { isStatus } from '../helpers/api-status.js';
import { requireFault, skipWithReason } from '../helpers/require-fault.js';
import { WatchEventCollector } from '../helpers/watch-event-collector.js';
import { asPatch, configMapsPath, createConfigMap, useConformanceFixture } from './conformance-fixture.js';

const HISTORY_WINDOW = 10;

describe('conformance: watch expiry (410)', () => {
  const fixture = useConformanceFixture({ historyWindow: HISTORY_WINDOW, shared: false });
  let w: WatchEventCollector | undefined;
  afterEach(async () => {
    await w?.stop();
    w = undefined;
  });

  async function expectExpired(resourceVersion: string): Promise<void> {
    const { kubeConfig, namespace } = fixture();
    w = await WatchEventCollector.start(kubeConfig, configMapsPath(namespace), { resourceVersion });
    const event = await w.waitFor((e) => e.type === 'ERROR');
    expect(isStatus(event.object), 'the ERROR event carries a Status').to.equal(true);
    const status = event.object as unknown as { code: number; reason?: string; message?: string };
    expect(status.code).to.equal(410);
    expect(status.reason).to.be.oneOf(['Expired', 'Gone']);
    expect(
      w.changes.filter((e) => e.type !== 'ERROR'),
      'no object event precedes or follows the error',
    ).to.deep.equal([]);
  }

  async function churn(count: number): Promise<void> {
    const { core, namespace } = fixture();
    const { metadata } = await createConfigMap(core, namespace);
    for (let i = 0; i < count; i++) {
      await core.patchNamespacedConfigMap({ name: metadata!.name!, namespace, body: { data: { i: String(i) } } }, asPatch.merge());
    }
  }

  it('after the history is expired, a watch from an older resourceVersion gets an ERROR event with 410', async function () {
    const expireHistory = requireFault(this, fixture().server, 'expireHistory');
    const { core, namespace } = fixture();
    const old = (await core.listNamespacedConfigMap({ namespace })).metadata!.resourceVersion!;
    await churn(3);
    await expireHistory();
    await expectExpired(old);
  });

  it('a resourceVersion older than the retained history window gets an ERROR event with 410', async function () {
    if (fixture().server.flavor === 'real') {
      skipWithReason(this, "the real server's history is etcd's, bounded by compaction, not by historyWindow");
    }
    const { core, namespace } = fixture();
    const old = (await core.listNamespacedConfigMap({ namespace })).metadata!.resourceVersion!;
    await churn(HISTORY_WINDOW * 3);
    await expectExpired(old);
  });

  it('a resourceVersion within the retained window still replays the changes since', async function () {
    const { core, kubeConfig, namespace } = fixture();
    const from = (await core.listNamespacedConfigMap({ namespace })).metadata!.resourceVersion!;
    await createConfigMap(core, namespace, { name: 'recent' });
    w = await WatchEventCollector.start(kubeConfig, configMapsPath(namespace), { resourceVersion: from });
    await w.waitForCount(1);
    expect(w.summary()).to.deep.equal(['ADDED recent']);
  });

  it('after a 410, a fresh list and a watch from its resourceVersion deliver later changes', async function () {
    const expireHistory = requireFault(this, fixture().server, 'expireHistory');
    const { core, kubeConfig, namespace } = fixture();
    const old = (await core.listNamespacedConfigMap({ namespace })).metadata!.resourceVersion!;
    await createConfigMap(core, namespace, { name: 'before-expiry' });
    await expireHistory();
    await expectExpired(old);
    await w!.stop();
    const list = await core.listNamespacedConfigMap({ namespace });
    expect(list.items.map((i) => i.metadata?.name)).to.deep.equal(['before-expiry']);
    w = await WatchEventCollector.start(kubeConfig, configMapsPath(namespace), {
      resourceVersion: list.metadata!.resourceVersion!,
    });
    await createConfigMap(core, namespace, { name: 'after-expiry' });
    await w.waitForCount(1);
    expect(w.summary()).to.deep.equal(['ADDED after-expiry']);
  });
});
