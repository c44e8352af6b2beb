// Wire-level behaviour of the Reflector against a scripted HTTP server, for input and timing no
// well-behaved API server produces (bad lines, bad objects, expired continue tokens, silence).
import { expect } from 'chai';
import { InvalidResourceError, ResourceID } from '@kindex/core';
import type { KubernetesObject, StoreDelta } from '@kindex/core';
import { eventually } from '@kindex/testing';
import { KubeApiError, InactivityTimeoutError, Reflector, WatchLineError } from '../index.js';
import type { ReflectorOptions, ResourceType } from '../index.js';
import { ScriptedReflector, ScriptedServer, configMap, configMapList, sendJson, startWatch, status } from './internal/scripted-server.js';
import type { Script } from './internal/scripted-server.js';

const configMaps: ResourceType = { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true };

interface Run {
  reflector: Reflector;
  deltas: StoreDelta[];
  errors: Error[];
}

describe('Reflector (scripted wire)', () => {
  const scripted = new ScriptedReflector();
  let server: ScriptedServer | undefined;

  afterEach(async () => {
    await scripted.close();
    server = undefined;
  });

  async function start(handler: Script, options: Partial<ReflectorOptions> = {}): Promise<Run> {
    const opened = await scripted.open(handler, {
      type: configMaps,
      backoff: { initialMs: 10, maxMs: 50 },
      watchTimeoutSeconds: 60,
      inactivityTimeoutMs: 5000,
      // These scripts answer a list then watches; watch-list scripts are in reflector-watch-list.internal.test.ts.
      initialState: 'list',
      ...options,
    });
    server = opened.server;
    const reflector = opened.reflector;
    const deltas: StoreDelta[] = [];
    const errors: Error[] = [];
    reflector.deltas$.subscribe((d) => deltas.push(d));
    reflector.errors$.subscribe((e) => errors.push(e));
    await reflector.start();
    return { reflector, deltas, errors };
  }

  const summary = (deltas: readonly StoreDelta[]): string[] =>
    deltas.map(
      (d) =>
        `${d.type} ${ResourceID.keyOfResource(d.object)}@${d.object.metadata?.resourceVersion}${d.type === 'delete' && d.deleteStateUnknown ? ' unknown' : ''}`,
    );

  it('reports bad list items and bad watch lines with the object key and field, and the stream goes on', async () => {
    const { reflector, deltas, errors } = await start((req, res, i) => {
      if (i === 0) {
        sendJson(
          res,
          200,
          configMapList('10', [
            configMap('a', '5'),
            { metadata: { namespace: 'ns' } },
            { metadata: { name: 'b', namespace: 'ns', resourceVersion: 6 } },
          ]),
        );
      } else if (i === 1) {
        startWatch(res, [
          'this is not JSON\n',
          { type: 'ADDED', object: { kind: 'ConfigMap' } },
          { type: 'ADDED', object: configMap('c', '11') },
          {
            type: 'MODIFIED',
            object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'd', namespace: 5, resourceVersion: '12' } },
          },
          { type: 'SOMETHING', object: {} },
          { type: 'ADDED', object: configMap('e', '13') },
        ]);
      } else {
        startWatch(res);
      }
    });
    await eventually(() => expect(reflector.resourceVersion).to.equal('13'));
    expect(summary(deltas)).to.deep.equal(['create ns/a@5', 'create ns/c@11', 'create ns/e@13']);
    const described = errors.map((e) =>
      e instanceof InvalidResourceError
        ? `${e.objectKey ?? '?'} ${e.field}`
        : e instanceof WatchLineError
          ? `line ${e.linePrefix}`
          : e.message,
    );
    expect(described).to.deep.equal([
      '? metadata.name',
      'ns/b metadata.resourceVersion',
      'line this is not JSON',
      '? metadata',
      'd metadata.namespace',
      'line {"type":"SOMETHING","object":{}}',
    ]);
    expect(server!.watches()).to.have.length(1);
    expect(reflector.health.lastError?.error).to.equal(errors.at(-1));
  });

  it('gives list items the kind and apiVersion of watch objects, and freezes them', async () => {
    const { reflector } = await start((req, res, i) => {
      if (i === 0) sendJson(res, 200, configMapList('10', [configMap('a', '5', { k: 'v' })]));
      else startWatch(res);
    });
    expect(await reflector.waitForSync({ timeoutMs: 10_000 })).to.equal(true);
    const a = reflector.get('ns/a') as KubernetesObject & { data: Record<string, string> };
    expect(a).to.deep.equal(configMap('a', '5', { k: 'v' }));
    expect(Object.isFrozen(a) && Object.isFrozen(a.metadata) && Object.isFrozen(a.data)).to.equal(true);
  });

  it('applies a custom transform to list and watch objects alike, and keeps objects as sent with transform null', async () => {
    const withManaged = (name: string, rv: string) => {
      const o = configMap(name, rv) as KubernetesObject;
      return { ...o, metadata: { ...o.metadata, managedFields: [{ manager: 'm' }] } };
    };
    const script: Script = (req, res, i) => {
      if (i === 0) sendJson(res, 200, configMapList('10', [withManaged('a', '5')]));
      else if (i === 1) startWatch(res, [{ type: 'ADDED', object: withManaged('b', '11') }]);
      else startWatch(res);
    };
    const upper = (o: KubernetesObject): KubernetesObject => ({ ...o, metadata: { ...o.metadata, name: o.metadata!.name!.toUpperCase() } });
    const { reflector } = await start(script, { transform: upper });
    await eventually(() => expect(reflector.resourceVersion).to.equal('11'));
    expect(reflector.list().map((o) => o.metadata!.name)).to.deep.equal(['A', 'B']);
    await reflector.stop();
    await server!.stop();

    const raw = await start(script, { transform: null });
    await eventually(() => expect(raw.reflector.resourceVersion).to.equal('11'));
    expect(raw.reflector.list().map((o) => o.metadata!.managedFields)).to.deep.equal([[{ manager: 'm' }], [{ manager: 'm' }]]);
  });

  it('refuses a namespace for a cluster-scoped type', async () => {
    const standalone = await ScriptedServer.start(() => {});
    const namespaces: ResourceType = { group: '', version: 'v1', plural: 'namespaces', kind: 'Namespace', namespaced: false };
    try {
      expect(() => new Reflector({ kubeConfig: standalone.kubeConfig, type: namespaces, namespace: 'x' })).to.throw(
        TypeError,
        /cluster-scoped/,
      );
    } finally {
      await standalone.stop();
    }
  });

  it('paginates with limit/continue and falls back to one full list when the continue token expires', async () => {
    const { reflector, deltas } = await start(
      (req, res, i) => {
        if (i === 0) sendJson(res, 200, configMapList('10', [configMap('a', '1'), configMap('b', '2')], 'token-1'));
        else if (i === 1) sendJson(res, 410, status(410, 'Expired', 'continue token expired'));
        else if (i === 2) sendJson(res, 200, configMapList('20', [configMap('a', '1'), configMap('b', '2'), configMap('c', '3')]));
        else startWatch(res);
      },
      { pageSize: 2 },
    );
    await eventually(() => expect(server!.watches()).to.have.length(1));
    const [first, second, full, watch] = server!.requests.map((r) => r.url.searchParams);
    expect([first!.get('limit'), first!.get('continue')]).to.deep.equal(['2', null]);
    expect([second!.get('limit'), second!.get('continue')]).to.deep.equal(['2', 'token-1']);
    expect([full!.get('limit'), full!.get('continue')]).to.deep.equal([null, null]);
    expect(watch!.get('resourceVersion')).to.equal('20');
    expect(watch!.get('allowWatchBookmarks')).to.equal('true');
    expect(watch!.get('timeoutSeconds')).to.equal('60');
    expect(summary(deltas)).to.deep.equal(['create ns/a@1', 'create ns/b@2', 'create ns/c@3']);
    expect(reflector.health.lists).to.equal(1);
  });

  it('relists on a watch ERROR 410 and emits only the real differences', async () => {
    const { reflector, deltas } = await start((req, res, i) => {
      if (i === 0) sendJson(res, 200, configMapList('10', [configMap('a', '5'), configMap('b', '6'), configMap('c', '7')]));
      else if (i === 1)
        startWatch(res, [
          { type: 'MODIFIED', object: configMap('a', '11') },
          { type: 'ERROR', object: status(410, 'Expired') },
        ]);
      else if (i === 2) sendJson(res, 200, configMapList('20', [configMap('a', '11'), configMap('b', '15'), configMap('d', '16')]));
      else startWatch(res);
    });
    await eventually(() => expect(server!.watches()).to.have.length(2));
    expect(summary(deltas)).to.deep.equal([
      'create ns/a@5',
      'create ns/b@6',
      'create ns/c@7',
      'update ns/a@11',
      'update ns/b@15',
      'create ns/d@16',
      'delete ns/c@7 unknown',
    ]);
    expect(server!.watches()[1]!.url.searchParams.get('resourceVersion')).to.equal('20');
    expect(reflector.health).to.include({ lists: 2, restarts: 1, synced: true });
  });

  it('relists on an HTTP 410 answer to the watch', async () => {
    const { reflector } = await start((req, res, i) => {
      if (i === 0) sendJson(res, 200, configMapList('10', [configMap('a', '5')]));
      else if (i === 1) sendJson(res, 410, status(410, 'Expired', 'too old resource version'));
      else if (i === 2) sendJson(res, 200, configMapList('30', []));
      else startWatch(res);
    });
    await eventually(() => expect(server!.watches()).to.have.length(2));
    expect(server!.requests[2]!.url.searchParams.get('watch')).to.equal(null);
    expect(reflector.list()).to.deep.equal([]);
  });

  it('restarts a watch that ends normally from its last resourceVersion, without relisting', async () => {
    const { reflector } = await start((req, res, i) => {
      if (i === 0) sendJson(res, 200, configMapList('10', []));
      else if (i === 1) {
        startWatch(res, [
          { type: 'ADDED', object: configMap('a', '11') },
          { type: 'BOOKMARK', object: { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: '42' } } },
        ]);
        res.end();
      } else startWatch(res);
    });
    await eventually(() => expect(server!.watches()).to.have.length(2));
    expect(server!.watches()[1]!.url.searchParams.get('resourceVersion')).to.equal('42');
    expect(reflector.health).to.include({ lists: 1, restarts: 0 });
  });

  it('waits for Retry-After when the server answers 429', async () => {
    const { reflector, errors } = await start((req, res, i) => {
      if (i === 0) sendJson(res, 429, status(429, 'TooManyRequests'), { 'retry-after': '1' });
      else if (i === 1) sendJson(res, 200, configMapList('10', []));
      else startWatch(res);
    });
    expect(await reflector.waitForSync({ timeoutMs: 10_000 })).to.equal(true);
    const [first, second] = server!.requests;
    expect(second!.at - first!.at).to.be.at.least(950);
    expect(errors[0]).to.be.instanceOf(KubeApiError).and.include({ status: 429, retryAfterSeconds: 1 });
  });

  it('keeps retrying through 500s with backoff and never stops', async () => {
    const { reflector, errors } = await start((req, res, i) => {
      if (i < 4) sendJson(res, 500, status(500, 'InternalError'));
      else if (i === 4) sendJson(res, 200, configMapList('10', [configMap('a', '1')]));
      else startWatch(res);
    });
    expect(await reflector.waitForSync({ timeoutMs: 10_000 })).to.equal(true);
    expect(errors.map((e) => (e as KubeApiError).status)).to.deep.equal([500, 500, 500, 500]);
    expect(reflector.health.restarts).to.equal(4);
  });

  it('replaces a silent (half-open) watch after the inactivity timeout', async () => {
    const { reflector, errors } = await start(
      (req, res, i) => {
        if (i === 0) sendJson(res, 200, configMapList('10', []));
        else if (i === 1)
          startWatch(res); // headers, then silence forever
        else startWatch(res, [{ type: 'ADDED', object: configMap('x', '11') }]);
      },
      { inactivityTimeoutMs: 300 },
    );
    await eventually(() => expect(reflector.get('ns/x')).to.not.equal(undefined));
    expect(errors[0]).to.be.instanceOf(InactivityTimeoutError);
    expect(server!.watches()[1]!.url.searchParams.get('resourceVersion')).to.equal('10');
  });

  it('stops quietly and promptly, even while backing off, and completes its observables', async () => {
    const { reflector, errors } = await start((req, res) => sendJson(res, 500, status(500, 'InternalError')), {
      backoff: { initialMs: 60_000, maxMs: 60_000 },
    });
    await eventually(() => expect(errors).to.have.length(1));
    let completed = 0;
    reflector.deltas$.subscribe({ complete: () => completed++ });
    reflector.health$.subscribe({ complete: () => completed++ });
    await reflector.stop();
    await reflector.stop();
    expect(completed).to.equal(2);
    expect(errors).to.have.length(1);
    expect(await reflector.waitForSync({ timeoutMs: 1000 })).to.equal(false);
  });

  it('emits nothing more once stop() is called from a delta handler', async () => {
    const { reflector, deltas } = await start((req, res, i) => {
      if (i === 0) sendJson(res, 200, configMapList('10', []));
      // One write, so the three events arrive in one chunk.
      else
        startWatch(res, [
          [1, 2, 3].map((n) => `${JSON.stringify({ type: 'ADDED', object: configMap(`c${n}`, String(10 + n)) })}\n`).join(''),
        ]);
    });
    reflector.deltas$.subscribe(() => void reflector.stop());
    await eventually(() => expect(deltas).to.have.length(1));
    await reflector.stop();
    expect(deltas).to.have.length(1);
  });

  it('stops quietly in the middle of an open watch', async () => {
    const { reflector, errors } = await start((req, res, i) => {
      if (i === 0) sendJson(res, 200, configMapList('10', []));
      else startWatch(res);
    });
    await eventually(() => expect(reflector.health.watching).to.equal(true));
    await reflector.stop();
    expect(errors).to.deep.equal([]);
    expect(reflector.health.watching).to.equal(false);
  });
});
