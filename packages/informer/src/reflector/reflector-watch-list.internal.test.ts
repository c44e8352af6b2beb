// Watch-list (initialState) wire behaviour against a scripted server: what is sent, when the view
// is replaced, and the fallback to paged lists for servers that refuse or ignore sendInitialEvents.
// The same behaviour against a real-wire server is in reflector.test.ts (initialState).
import { expect } from 'chai';
import { ResourceID } from '@kindex/core';
import type { StoreDelta } from '@kindex/core';
import { eventually } from '@kindex/testing';
import { KubeApiError, isNonTransient, Reflector } from '../index.js';
import type { ReflectorOptions, ResourceType } from '../index.js';
import { ScriptedReflector, ScriptedServer, configMap, configMapList, sendJson, startWatch, status } from './internal/scripted-server.js';
import type { Script, ScriptedRequest } from './internal/scripted-server.js';

const configMaps: ResourceType = { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true };

const bookmark = (rv: string, end = true): object => ({
  type: 'BOOKMARK',
  object: {
    kind: 'ConfigMap',
    apiVersion: 'v1',
    metadata: { resourceVersion: rv, ...(end ? { annotations: { 'k8s.io/initial-events-end': 'true' } } : {}) },
  },
});
const added = (name: string, rv: string, uid?: string): object => {
  const o = configMap(name, rv) as { metadata: Record<string, unknown> };
  return { type: 'ADDED', object: uid === undefined ? o : { ...o, metadata: { ...o.metadata, uid } } };
};
const isWatchList = (r: ScriptedRequest): boolean => r.url.searchParams.get('sendInitialEvents') === 'true';
const isList = (r: ScriptedRequest): boolean => r.url.searchParams.get('watch') === null;

describe('Reflector initialState (scripted wire)', () => {
  const scripted = new ScriptedReflector();
  afterEach(() => scripted.close());

  async function start(handler: Script, options: Partial<ReflectorOptions> = {}) {
    const { server, reflector } = await scripted.open(handler, {
      type: configMaps,
      backoff: { initialMs: 10, maxMs: 50 },
      watchTimeoutSeconds: 60,
      inactivityTimeoutMs: 5000,
      ...options,
    });
    const deltas: string[] = [];
    const errors: Error[] = [];
    reflector.onDelta((d, listing) => deltas.push(`${summary(d)}${listing ? '' : ' (watch)'}`));
    reflector.errors$.subscribe((e) => errors.push(e));
    await reflector.start();
    return { reflector, deltas, errors, server };
  }

  const summary = (d: StoreDelta): string =>
    `${d.type} ${ResourceID.keyOfResource(d.object)}@${d.object.metadata?.resourceVersion}${d.type === 'delete' && d.deleteStateUnknown ? ' unknown' : ''}`;

  it('streams the initial state with one watch-list request, delivers it at the end bookmark, and goes on watching on the same stream', async () => {
    let resRef: Parameters<Parameters<typeof ScriptedServer.start>[0]>[1] | undefined;
    const { reflector, deltas, errors, server } = await start(
      (req, res) => {
        resRef = res;
        startWatch(res, [added('a', '5'), added('b', '7')]);
      },
      { labelSelector: 'app=web', fieldSelector: 'metadata.name!=z' },
    );
    await eventually(() => expect(reflector.objectsReceived).to.equal(2));
    // Held aside until the end bookmark: nothing emitted, not synced.
    expect(deltas).to.deep.equal([]);
    expect(reflector.hasSynced()).to.equal(false);
    expect(reflector.list()).to.deep.equal([]);
    resRef!.write(`${JSON.stringify(bookmark('9'))}\n`);
    expect(await reflector.waitForSync({ timeoutMs: 5000 })).to.equal(true);
    resRef!.write(`${JSON.stringify({ type: 'MODIFIED', object: configMap('a', '10') })}\n`);
    await eventually(() => expect(reflector.resourceVersion).to.equal('10'));
    expect(deltas).to.deep.equal(['create ns/a@5', 'create ns/b@7', 'update ns/a@10 (watch)']);
    expect(server.requests).to.have.length(1);
    const query = Object.fromEntries(server.requests[0]!.url.searchParams);
    expect(query).to.deep.include({
      watch: 'true',
      sendInitialEvents: 'true',
      resourceVersionMatch: 'NotOlderThan',
      allowWatchBookmarks: 'true',
      labelSelector: 'app=web',
      fieldSelector: 'metadata.name!=z',
    });
    expect(query).to.not.have.property('resourceVersion');
    expect(reflector.health).to.include({ lists: 1, lastSyncBy: 'watch-list', lastSyncResourceVersion: '9' });
    expect(errors).to.deep.equal([]);
  });

  it('applies changes that arrive before the end bookmark to the held state, so only the final state is delivered', async () => {
    const { reflector, deltas } = await start((req, res) =>
      startWatch(res, [
        added('a', '5'),
        added('b', '6'),
        { type: 'MODIFIED', object: configMap('a', '8') },
        { type: 'DELETED', object: configMap('b', '9') },
        added('c', '10'),
        bookmark('10'),
      ]),
    );
    expect(await reflector.waitForSync({ timeoutMs: 5000 })).to.equal(true);
    expect(deltas).to.deep.equal(['create ns/a@8', 'create ns/c@10']);
  });

  it('restarts by watch-list after a 410 and emits only the real differences, a new uid as delete then create', async () => {
    const { reflector, deltas, server } = await start((req, res, i) => {
      if (i === 0)
        startWatch(res, [
          added('a', '5'),
          added('b', '6'),
          added('c', '7'),
          added('u', '8'),
          bookmark('10'),
          { type: 'ERROR', object: status(410, 'Expired') },
        ]);
      else if (i === 1) startWatch(res, [added('a', '5'), added('b', '15'), added('d', '16'), added('u', '17', 'uid-u2'), bookmark('20')]);
      else startWatch(res);
    });
    await eventually(() => expect(reflector.health.lists).to.equal(2));
    expect(deltas).to.deep.equal([
      'create ns/a@5',
      'create ns/b@6',
      'create ns/c@7',
      'create ns/u@8',
      'update ns/b@15',
      'create ns/d@16',
      'delete ns/u@8 unknown',
      'create ns/u@17',
      'delete ns/c@7 unknown',
    ]);
    expect(server.requests.map(isWatchList)).to.deep.equal([true, true]);
    expect(server.requests[1]!.url.searchParams.get('resourceVersion')).to.equal(null);
    expect(reflector.health).to.include({ restarts: 1, lastSyncResourceVersion: '20', lastSyncBy: 'watch-list' });
  });

  it('streams again when the stream ends before the end bookmark, never delivering a partial state', async () => {
    const { reflector, deltas, server } = await start((req, res, i) => {
      if (i === 0) {
        startWatch(res, [added('a', '5')]);
        res.end();
      } else startWatch(res, [added('a', '5'), added('b', '6'), bookmark('9')]);
    });
    expect(await reflector.waitForSync({ timeoutMs: 5000 })).to.equal(true);
    expect(deltas).to.deep.equal(['create ns/a@5', 'create ns/b@6']);
    expect(server.requests.map(isWatchList)).to.deep.equal([true, true]);
  });

  for (const code of [400, 422] as const) {
    it(`auto: falls back to paged lists, quietly and for good, when the server answers the watch-list with ${code}`, async () => {
      let watches = 0;
      const { reflector, deltas, errors, server } = await start((req, res, i) => {
        if (isWatchList(req)) sendJson(res, code, status(code, code === 422 ? 'Invalid' : 'BadRequest', 'sendInitialEvents is forbidden'));
        else if (isList(req)) sendJson(res, 200, configMapList(i < 3 ? '10' : '30', [configMap('a', '5')]));
        else if (++watches === 1) startWatch(res, [{ type: 'ERROR', object: status(410, 'Expired') }]);
        else startWatch(res);
      });
      expect(await reflector.waitForSync({ timeoutMs: 5000 })).to.equal(true);
      // The 410 relists by list: the refusal is remembered.
      await eventually(() =>
        expect(server.requests.map((r) => (isWatchList(r) ? 'watch-list' : isList(r) ? 'list' : 'watch'))).to.deep.equal([
          'watch-list',
          'list',
          'watch',
          'list',
          'watch',
        ]),
      );
      expect(deltas).to.deep.equal(['create ns/a@5']);
      // The refusal is not a fault (a 410 ERROR event is not reported either).
      expect(errors).to.deep.equal([]);
      expect(reflector.health).to.include({ lastSyncBy: 'list', restarts: 1 });
    });
  }

  it('auto: falls back to paged lists when the server ignores sendInitialEvents (a plain bookmark before the end)', async () => {
    const { reflector, deltas, errors, server } = await start((req, res) => {
      if (isWatchList(req)) startWatch(res, [added('a', '5'), bookmark('10', false)]);
      else if (isList(req)) sendJson(res, 200, configMapList('10', [configMap('a', '5')]));
      else startWatch(res);
    });
    expect(await reflector.waitForSync({ timeoutMs: 5000 })).to.equal(true);
    expect(deltas).to.deep.equal(['create ns/a@5']);
    expect(errors).to.deep.equal([]);
    await eventually(() => expect(server.requests.map(isWatchList)).to.deep.equal([true, false, false]));
    expect(reflector.health.lastSyncBy).to.equal('list');
  });

  for (const code of [403, 404] as const) {
    it(`auto: reports a ${code} on the watch-list as a watch failure (a list would get it too) and does not fall back`, async () => {
      const { reflector, errors, server } = await start((req, res) =>
        sendJson(res, code, status(code, code === 403 ? 'Forbidden' : 'NotFound')),
      );
      const sync = reflector.waitForSync({ timeoutMs: 5000, rejectOn: isNonTransient });
      const error: unknown = await sync.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).to.be.instanceOf(KubeApiError).and.include({ status: code, verb: 'watch' });
      expect(errors[0]).to.equal(error);
      expect(server.requests.every(isWatchList)).to.equal(true);
    });
  }

  it("'watch-list': reports a refusal and retries the watch-list, never listing", async () => {
    const { reflector, errors, server } = await start(
      (req, res, i) => {
        if (i < 2) sendJson(res, 422, status(422, 'Invalid', 'sendInitialEvents is forbidden'));
        else startWatch(res, [added('a', '5'), bookmark('9')]);
      },
      { initialState: 'watch-list' },
    );
    expect(await reflector.waitForSync({ timeoutMs: 5000 })).to.equal(true);
    expect(server.requests.map(isWatchList)).to.deep.equal([true, true, true]);
    expect(errors.map((e) => (e as KubeApiError).status)).to.deep.equal([422, 422]);
  });

  it("'watch-list': reports a server that ignores sendInitialEvents with the option to change", async () => {
    const { reflector, errors } = await start(
      (req, res, i) => startWatch(res, i < 1 ? [added('a', '5'), bookmark('10', false)] : [added('a', '5'), bookmark('10')]),
      { initialState: 'watch-list' },
    );
    expect(await reflector.waitForSync({ timeoutMs: 5000 })).to.equal(true);
    expect(errors).to.have.length(1);
    expect(errors[0]!.message).to.match(/ignored sendInitialEvents.*initialState to 'list' or 'auto'/);
  });

  it("'list' and a shard selector under 'auto' read the initial state by paged lists", async () => {
    for (const options of [
      { initialState: 'list' as const },
      { shardSelector: "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')" },
    ]) {
      const { reflector, server } = await start((req, res) => {
        if (isList(req)) sendJson(res, 200, configMapList('10', []));
        else startWatch(res);
      }, options);
      expect(await reflector.waitForSync({ timeoutMs: 5000 })).to.equal(true);
      await eventually(() => expect(server.requests.map(isWatchList)).to.deep.equal([false, false]));
      expect(reflector.health.lastSyncBy).to.equal('list');
      await reflector.stop();
      await server.stop();
    }
  });

  it('rejects an unknown initialState naming the option and the choices', () => {
    expect(() => new Reflector({ kubeConfig: undefined as never, type: configMaps, initialState: 'stream' as never })).to.throw(
      TypeError,
      /initialState must be 'auto', 'watch-list' or 'list', got "stream"/,
    );
  });

  it('stops quietly in the middle of the initial events, delivering nothing', async () => {
    const { reflector, deltas, errors } = await start((req, res) => startWatch(res, [added('a', '5')]));
    await eventually(() => expect(reflector.objectsReceived).to.equal(1));
    await reflector.stop();
    expect(deltas).to.deep.equal([]);
    expect(errors).to.deep.equal([]);
    expect(reflector.hasSynced()).to.equal(false);
  });

  it('replaces a silent watch-list after the inactivity timeout and streams again', async () => {
    const { reflector, deltas, server } = await start(
      (req, res, i) => (i === 0 ? startWatch(res, [added('a', '5')]) : startWatch(res, [added('a', '5'), bookmark('9')])),
      { inactivityTimeoutMs: 300 },
    );
    expect(await reflector.waitForSync({ timeoutMs: 5000 })).to.equal(true);
    expect(deltas).to.deep.equal(['create ns/a@5']);
    expect(server.requests.map(isWatchList)).to.deep.equal([true, true]);
  });
});
