// The Reflector's initial state by watch-list against a real-wire API server (embedded by
// default, kube-apiserver 1.36.3 with KINDEX_APISERVER=real, where WatchList is on by default):
// the same view, deltas and health as a paged list. Refusals and servers that ignore the
// parameter are scripted in reflector-watch-list.internal.test.ts.
import { expect } from 'chai';
import { CoreV1Api } from '@kubernetes/client-node';
import { ResourceID, type StoreDelta } from '@kindex/core';
import { createNamespace, eventually, requireFault, useTestApiServer } from '@kindex/testing';
import { Reflector } from '../index.js';
import type { InitialState, ReflectorOptions, ResourceType } from '../index.js';

const configMaps: ResourceType = { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true };

describe('Reflector initialState', function () {
  this.timeout(60_000);
  const server = useTestApiServer({ historyWindow: 1000, bookmarkIntervalMs: 200 });
  let namespace: string;
  let core: CoreV1Api;
  const running: Reflector[] = [];

  beforeEach(async () => {
    namespace = await createNamespace(server().kubeConfig);
    core = server().kubeConfig.makeApiClient(CoreV1Api);
  });

  afterEach(async () => {
    for (const r of running.splice(0)) await r.stop();
  });

  async function start(options: Partial<ReflectorOptions>) {
    const reflector = new Reflector({
      kubeConfig: server().kubeConfig,
      type: configMaps,
      namespace,
      backoff: { initialMs: 20, maxMs: 200 },
      inactivityTimeoutMs: 10_000,
      ...options,
    });
    running.push(reflector);
    const deltas: string[] = [];
    const errors: Error[] = [];
    reflector.onDelta((d, listing) => deltas.push(`${describeDelta(d)}${listing ? '' : ' (watch)'}`));
    reflector.errors$.subscribe((e) => errors.push(e));
    await reflector.start();
    return { reflector, deltas, errors };
  }

  const describeDelta = (d: StoreDelta): string =>
    `${d.type} ${ResourceID.keyOfResource(d.object).split('/')[1]}${d.type === 'delete' && d.deleteStateUnknown ? ' unknown' : ''}`;
  const create = (name: string, labels?: Record<string, string>) =>
    core.createNamespacedConfigMap({
      namespace,
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data: { v: '0' } },
    });
  const update = (name: string, v: string, labels?: Record<string, string>) =>
    core.replaceNamespacedConfigMap({
      name,
      namespace,
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data: { v } },
    });
  const remove = (name: string) => core.deleteNamespacedConfigMap({ name, namespace });
  const serverState = async (labelSelector?: string) => {
    const list = await core.listNamespacedConfigMap({ namespace, labelSelector });
    return Object.fromEntries(list.items.map((o): [string, string | undefined] => [o.metadata!.name!, o.metadata!.resourceVersion]).sort());
  };
  const viewOf = (reflector: Reflector) =>
    Object.fromEntries(
      reflector
        .list()
        .map((o): [string, string | undefined] => [o.metadata!.name!, o.metadata!.resourceVersion])
        .sort(),
    );

  for (const [mode, syncedBy] of [
    ['auto', 'watch-list'],
    ['watch-list', 'watch-list'],
    ['list', 'list'],
  ] as const satisfies ReadonlyArray<readonly [InitialState, string]>) {
    describe(`'${mode}'`, () => {
      it(`syncs the whole state by ${syncedBy} in one batch, then follows the watch`, async () => {
        for (let i = 0; i < 30; i += 10)
          await Promise.all(Array.from({ length: 10 }, (_, j) => create(`cm-${String(i + j).padStart(2, '0')}`)));
        const run = await start({ initialState: mode, pageSize: 7 });
        expect(await run.reflector.waitForSync({ timeoutMs: 20_000 })).to.equal(true);
        expect(run.reflector.health).to.include({ lastSyncBy: syncedBy, lists: 1 });
        expect(run.deltas).to.have.length(30);
        expect(run.deltas.every((d) => d.startsWith('create ') && !d.endsWith('(watch)'))).to.equal(true);
        expect(viewOf(run.reflector)).to.deep.equal(await serverState());
        expect(Number(run.reflector.resourceVersion)).to.be.at.least(Math.max(...Object.values(await serverState()).map(Number)));

        await create('fresh');
        await update('cm-00', '1');
        await remove('cm-01');
        await eventually(async () => expect(viewOf(run.reflector)).to.deep.equal(await serverState()), { timeoutMs: 20_000 });
        expect(run.deltas.slice(30)).to.deep.equal(['create fresh (watch)', 'update cm-00 (watch)', 'delete cm-01 (watch)']);
        expect(run.errors).to.deep.equal([]);
      });

      it('applies label and field selectors to the initial state and the watch', async () => {
        await create('in-a', { app: 'web' });
        await create('in-b', { app: 'web' });
        await create('out', { app: 'db' });
        const run = await start({ initialState: mode, labelSelector: 'app=web', fieldSelector: 'metadata.name!=in-b' });
        expect(await run.reflector.waitForSync({ timeoutMs: 20_000 })).to.equal(true);
        expect(run.reflector.health.lastSyncBy).to.equal(syncedBy);
        expect(Object.keys(viewOf(run.reflector))).to.deep.equal(['in-a']);
        await update('out', '1', { app: 'web' });
        await update('in-a', '1', { app: 'db' });
        await eventually(() => expect(Object.keys(viewOf(run.reflector))).to.deep.equal(['out']), { timeoutMs: 20_000 });
        expect(run.deltas).to.deep.equal(['create in-a', 'create out (watch)', 'delete in-a (watch)']);
      });

      it('reads the state again after 410 and emits only the real differences, deletes marked final state unknown', async function () {
        const pause = requireFault(this, server(), 'pauseEvents');
        const resume = requireFault(this, server(), 'resumeEvents');
        const expire = requireFault(this, server(), 'expireHistory');
        const close = requireFault(this, server(), 'closeWatches');
        for (const name of ['a', 'b', 'c', 'd']) await create(name);
        const run = await start({ initialState: mode });
        expect(await run.reflector.waitForSync({ timeoutMs: 20_000 })).to.equal(true);
        pause();
        try {
          await create('x');
          await update('a', '1');
          await remove('b');
          await expire();
          await close();
          await eventually(() => expect(run.reflector.health.lists).to.equal(2), { timeoutMs: 20_000 });
        } finally {
          resume();
        }
        await eventually(async () => expect(viewOf(run.reflector)).to.deep.equal(await serverState()), { timeoutMs: 20_000 });
        expect(run.deltas.slice(4).sort()).to.deep.equal(['create x', 'delete b unknown', 'update a']);
        expect(run.reflector.health).to.include({ lastSyncBy: syncedBy, restarts: 1 });
      });
    });
  }
});
