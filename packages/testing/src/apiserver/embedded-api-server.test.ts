import { expect } from 'chai';
import {
  CoreV1Api,
  CustomObjectsApi,
  ApiextensionsV1Api,
  PatchStrategy,
  makeInformer,
  setHeaderOptions,
  type V1ConfigMap,
} from '@kubernetes/client-node';
import { startEmbeddedApiServer, catchApiStatus, rawRequest, WatchEventCollector, eventually, type EmbeddedApiServer } from '../index.js';

const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/** A namespaced CRD `<plural>.example.com`: one version v1 with the status subresource, its schema free-form. */
const exampleCrd = (plural: string, kind: string) => ({
  metadata: { name: `${plural}.example.com` },
  spec: {
    group: 'example.com',
    scope: 'Namespaced' as const,
    names: { plural, kind },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: 'object', x_kubernetes_preserve_unknown_fields: true } },
      },
    ],
  },
});

describe('startEmbeddedApiServer', () => {
  let server: EmbeddedApiServer;
  let core: CoreV1Api;
  let n = 0;
  const name = (): string => `obj-${++n}`;
  const cm = (nm: string, labels?: Record<string, string>): V1ConfigMap => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: nm, labels },
    data: { k: 'v' },
  });

  beforeEach(async () => {
    server = await startEmbeddedApiServer({ historyWindow: 20, bookmarkIntervalMs: 100, gcDelayMs: 10 });
    core = server.kubeConfig.makeApiClient(CoreV1Api);
  });
  afterEach(async () => {
    await server.stop();
  });

  describe('discovery', () => {
    it('serves /api, /apis and the core APIResourceList', async () => {
      const api = JSON.parse((await rawRequest(server.kubeConfig, { path: '/api' })).text);
      expect(api.versions).to.deep.equal(['v1']);
      const v1 = JSON.parse((await rawRequest(server.kubeConfig, { path: '/api/v1' })).text);
      const names = v1.resources.map((r: { name: string }) => r.name);
      expect(names).to.include.members(['namespaces', 'configmaps', 'secrets', 'pods', 'pods/status', 'services', 'events']);
      const apis = JSON.parse((await rawRequest(server.kubeConfig, { path: '/apis' })).text);
      expect(apis.groups.map((g: { name: string }) => g.name)).to.include.members(['coordination.k8s.io', 'apiextensions.k8s.io']);
    });

    it('starts with the default, kube-system and kube-public namespaces', async () => {
      const list = await core.listNamespace();
      expect(list.items.map((x) => x.metadata!.name)).to.include.members(['default', 'kube-system', 'kube-public']);
      expect(list.items[0]!.status!.phase).to.equal('Active');
    });
  });

  describe('CRUD', () => {
    it('creates with uid, creationTimestamp and resourceVersion, and rejects a duplicate with 409 AlreadyExists', async () => {
      const nm = name();
      const created = await core.createNamespacedConfigMap({ namespace: 'default', body: cm(nm) });
      expect(created.metadata!.uid).to.match(/^[0-9a-f-]{36}$/);
      expect(created.metadata!.resourceVersion).to.match(/^\d+$/);
      expect(created.metadata!.creationTimestamp).to.be.instanceOf(Date);
      const status = await catchApiStatus(core.createNamespacedConfigMap({ namespace: 'default', body: cm(nm) }));
      expect(status).to.include({ code: 409, reason: 'AlreadyExists' });
    });

    it('generates a name from generateName', async () => {
      const created = await core.createNamespacedConfigMap({
        namespace: 'default',
        body: { metadata: { generateName: 'gen-' }, data: {} },
      });
      expect(created.metadata!.name).to.match(/^gen-[a-z0-9]{5}$/);
    });

    it('rejects a stale resourceVersion on update with 409 Conflict', async () => {
      const nm = name();
      const created = await core.createNamespacedConfigMap({ namespace: 'default', body: cm(nm) });
      await core.replaceNamespacedConfigMap({ name: nm, namespace: 'default', body: { ...created, data: { k: 'w' } } });
      const status = await catchApiStatus(
        core.replaceNamespacedConfigMap({ name: nm, namespace: 'default', body: { ...created, data: { k: 'x' } } }),
      );
      expect(status.code).to.equal(409);
      expect(status.reason).to.equal('Conflict');
      expect(status.message).to.contain('the object has been modified');
    });

    it('does not write an update that changes nothing', async () => {
      const nm = name();
      const created = await core.createNamespacedConfigMap({ namespace: 'default', body: cm(nm) });
      const same = await core.replaceNamespacedConfigMap({ name: nm, namespace: 'default', body: created });
      expect(same.metadata!.resourceVersion).to.equal(created.metadata!.resourceVersion);
    });

    it('returns 404 NotFound for a missing object and for a missing namespace', async () => {
      expect(await catchApiStatus(core.readNamespacedConfigMap({ name: 'nope', namespace: 'default' }))).to.include({
        code: 404,
        reason: 'NotFound',
      });
      const status = await catchApiStatus(core.createNamespacedConfigMap({ namespace: 'nowhere', body: cm(name()) }));
      expect(status).to.include({ code: 404, message: 'namespaces "nowhere" not found' });
    });

    it('answers 400 for malformed JSON and 401 without the token', async () => {
      const bad = await rawRequest(server.kubeConfig, {
        method: 'POST',
        path: '/api/v1/namespaces/default/configmaps',
        headers: { 'content-type': 'application/json' },
        body: '{"kind": ',
      });
      expect(bad.status).to.equal(400);
      expect(JSON.parse(bad.text)).to.include({ kind: 'Status', reason: 'BadRequest' });
      const anonymous = await rawRequest(server.kubeConfig, { path: '/api/v1/configmaps', authenticate: false });
      expect(anonymous.status).to.equal(401);
    });

    it('validates and answers dry runs without changing anything', async () => {
      const dry = await core.createNamespacedConfigMap({ namespace: 'default', body: cm('dry'), dryRun: 'All' });
      expect(dry.metadata!.name).to.equal('dry');
      expect(dry.metadata!.resourceVersion).to.equal(undefined);
      expect((await catchApiStatus(core.readNamespacedConfigMap({ name: 'dry', namespace: 'default' }))).code).to.equal(404);
      const rv = server.resourceVersion();
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('wet') });
      await core.patchNamespacedConfigMap({ name: 'wet', namespace: 'default', body: { data: { k: 'dry' } }, dryRun: 'All' }, merge);
      await core.deleteNamespacedConfigMap({ name: 'wet', namespace: 'default', dryRun: 'All' });
      const wet = await core.readNamespacedConfigMap({ name: 'wet', namespace: 'default' });
      expect(wet.data).to.deep.equal({ k: 'v' });
      expect(Number(server.resourceVersion())).to.equal(Number(rv) + 1);
      const bad = await catchApiStatus(core.createNamespacedConfigMap({ namespace: 'default', body: cm('x'), dryRun: 'Some' }));
      // kube-apiserver answers 422 Invalid on CreateOptions (see conformance/request-options.test.ts).
      expect(bad).to.include({ code: 422, reason: 'Invalid' });
    });

    it('applies merge and JSON patches', async () => {
      const nm = name();
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm(nm) });
      const merged = await rawRequest(server.kubeConfig, {
        method: 'PATCH',
        path: `/api/v1/namespaces/default/configmaps/${nm}`,
        headers: { 'content-type': 'application/merge-patch+json' },
        body: JSON.stringify({ data: { k: null, j: 'x' } }),
      });
      expect(JSON.parse(merged.text).data).to.deep.equal({ j: 'x' });
      const patched = await rawRequest(server.kubeConfig, {
        method: 'PATCH',
        path: `/api/v1/namespaces/default/configmaps/${nm}`,
        headers: { 'content-type': 'application/json-patch+json' },
        body: JSON.stringify([{ op: 'add', path: '/data/z', value: '1' }]),
      });
      expect(JSON.parse(patched.text).data).to.deep.equal({ j: 'x', z: '1' });
    });
  });

  describe('list', () => {
    it('filters by label selector and pages with limit and continue', async () => {
      for (let i = 0; i < 5; i++)
        await core.createNamespacedConfigMap({ namespace: 'default', body: cm(`p-${i}`, { tier: i % 2 ? 'odd' : 'even' }) });
      const even = await core.listNamespacedConfigMap({ namespace: 'default', labelSelector: 'tier in (even)' });
      expect(even.items.map((x) => x.metadata!.name)).to.deep.equal(['p-0', 'p-2', 'p-4']);
      const page1 = await core.listNamespacedConfigMap({ namespace: 'default', limit: 2 });
      expect(page1.items.map((x) => x.metadata!.name)).to.deep.equal(['p-0', 'p-1']);
      expect(page1.metadata!.remainingItemCount).to.equal(3);
      const page2 = await core.listNamespacedConfigMap({ namespace: 'default', limit: 2, _continue: page1.metadata!._continue! });
      expect(page2.items.map((x) => x.metadata!.name)).to.deep.equal(['p-2', 'p-3']);
      expect(page2.metadata!.resourceVersion).to.equal(page1.metadata!.resourceVersion);
    });

    it('lists the snapshot at an exact resourceVersion, and answers 504 for a future one', async () => {
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('early') });
      const rv = server.resourceVersion();
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('late') });
      await core.deleteNamespacedConfigMap({ name: 'early', namespace: 'default' });
      const then = await core.listNamespacedConfigMap({ namespace: 'default', resourceVersion: rv, resourceVersionMatch: 'Exact' });
      expect(then.items.map((x) => x.metadata!.name)).to.deep.equal(['early']);
      expect(then.metadata!.resourceVersion).to.equal(rv);
      const future = await catchApiStatus(core.listNamespacedConfigMap({ namespace: 'default', resourceVersion: '999999' }));
      expect(future).to.include({ code: 504, reason: 'Timeout' });
    });

    it('rejects an invalid selector and an unsupported field label with 400', async () => {
      expect(await catchApiStatus(core.listNamespacedConfigMap({ namespace: 'default', labelSelector: 'a in (' }))).to.include({
        code: 400,
      });
      const status = await catchApiStatus(core.listNamespacedConfigMap({ namespace: 'default', fieldSelector: 'data.k=v' }));
      expect(status).to.include({
        code: 400,
        message: '"data.k" is not a known field selector: only "metadata.name", "metadata.namespace"',
      });
    });
  });

  describe('watch', () => {
    it('delivers ADDED, MODIFIED and DELETED from a resourceVersion', async () => {
      const list = await core.listNamespacedConfigMap({ namespace: 'default' });
      const watch = await WatchEventCollector.start(server.kubeConfig, '/api/v1/namespaces/default/configmaps', {
        resourceVersion: list.metadata!.resourceVersion,
      });
      const nm = name();
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm(nm) });
      await core.patchNamespacedConfigMap({ name: nm, namespace: 'default', body: { data: { k: 'changed' } } }, merge);
      await core.deleteNamespacedConfigMap({ name: nm, namespace: 'default' });
      await watch.waitForCount(3);
      expect(watch.summary()).to.deep.equal([`ADDED ${nm}`, `MODIFIED ${nm}`, `DELETED ${nm}`]);
      await watch.stop();
    });

    it('turns selector transitions into ADDED and DELETED', async () => {
      const nm = name();
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm(nm, { on: 'no' }) });
      const watch = await WatchEventCollector.start(server.kubeConfig, '/api/v1/namespaces/default/configmaps', {
        labelSelector: 'on=yes',
      });
      await core.patchNamespacedConfigMap({ name: nm, namespace: 'default', body: { metadata: { labels: { on: 'yes' } } } }, merge);
      await core.patchNamespacedConfigMap({ name: nm, namespace: 'default', body: { data: { k: '2' } } }, merge);
      await core.patchNamespacedConfigMap({ name: nm, namespace: 'default', body: { metadata: { labels: { on: 'no' } } } }, merge);
      await watch.waitForCount(3);
      expect(watch.summary()).to.deep.equal([`ADDED ${nm}`, `MODIFIED ${nm}`, `DELETED ${nm}`]);
      await watch.stop();
    });

    it('sends an ERROR 410 Expired for a resourceVersion older than the history window', async () => {
      const first = await core.createNamespacedConfigMap({ namespace: 'default', body: cm(name()) });
      for (let i = 0; i < 25; i++)
        await core.patchNamespacedConfigMap({ name: first.metadata!.name!, namespace: 'default', body: { data: { i: String(i) } } }, merge);
      const watch = await WatchEventCollector.start(server.kubeConfig, '/api/v1/namespaces/default/configmaps', {
        resourceVersion: first.metadata!.resourceVersion,
      });
      await watch.waitForCount(1);
      const [event] = watch.events;
      expect(event!.type).to.equal('ERROR');
      expect(event!.object).to.include({ code: 410, reason: 'Expired' });
      await watch.stop();
    });

    it('ends a watch after timeoutSeconds', async () => {
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('timed') });
      const r = await rawRequest(server.kubeConfig, { path: '/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1' });
      expect(r.status).to.equal(200);
      const events = r.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; object: { metadata: { name: string } } });
      expect(events.map((e) => `${e.type} ${e.object.metadata.name}`)).to.deep.equal(['ADDED timed']);
    });

    it('streams initial events then an initial-events-end bookmark with sendInitialEvents', async () => {
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('initial') });
      const r = await rawRequest(server.kubeConfig, {
        path: '/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan',
      });
      const events = r.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { type: string; object: { metadata: { name?: string; annotations?: Record<string, string> } } });
      expect(events[0]!.type).to.equal('ADDED');
      expect(events[1]!.type).to.equal('BOOKMARK');
      expect(events[1]!.object.metadata.annotations).to.deep.equal({ 'k8s.io/initial-events-end': 'true' });
    });

    it('sends bookmarks when allowed', async () => {
      const watch = await WatchEventCollector.start(server.kubeConfig, '/api/v1/namespaces/default/configmaps', {
        allowWatchBookmarks: true,
        resourceVersion: server.resourceVersion(),
      });
      await eventually(() => expect(watch.events.some((e) => e.type === 'BOOKMARK')).to.equal(true));
      await watch.stop();
    });
  });

  describe('client-node informer', () => {
    it('lists, watches and follows changes through makeInformer', async () => {
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('before') });
      const informer = makeInformer(server.kubeConfig, '/api/v1/namespaces/default/configmaps', () =>
        core.listNamespacedConfigMap({ namespace: 'default' }),
      );
      const seen: string[] = [];
      informer.on('add', (o) => seen.push(`add ${o.metadata!.name}`));
      informer.on('delete', (o) => seen.push(`delete ${o.metadata!.name}`));
      await informer.start();
      try {
        await core.createNamespacedConfigMap({ namespace: 'default', body: cm('after') });
        await core.deleteNamespacedConfigMap({ name: 'before', namespace: 'default' });
        await eventually(() => expect(seen).to.deep.equal(['add before', 'add after', 'delete before']));
        expect(informer.list('default').map((o) => o.metadata!.name)).to.deep.equal(['after']);
      } finally {
        await informer.stop();
      }
    });
  });

  describe('status subresource and generation', () => {
    const widgetCrd = exampleCrd('gadgets', 'Gadget');
    const path = '/apis/example.com/v1/namespaces/default/gadgets';
    const send = async (method: string, p: string, body: unknown, contentType = 'application/json') =>
      rawRequest(server.kubeConfig, { method, path: p, headers: { 'content-type': contentType }, body: JSON.stringify(body) });

    it('writes to /status change only status; writes to the resource ignore status and bump generation only on spec', async () => {
      await server.kubeConfig.makeApiClient(ApiextensionsV1Api).createCustomResourceDefinition({ body: widgetCrd });
      await send('POST', path, { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' }, spec: { n: 1 } });
      const statusWrite = JSON.parse(
        (await send('PATCH', `${path}/g/status`, { spec: { n: 99 }, status: { ready: true } }, 'application/merge-patch+json')).text,
      );
      expect(statusWrite.spec).to.deep.equal({ n: 1 });
      expect(statusWrite.status).to.deep.equal({ ready: true });
      expect(statusWrite.metadata.generation).to.equal(1);
      const mainWrite = JSON.parse(
        (await send('PATCH', `${path}/g`, { spec: { n: 2 }, status: { ready: false } }, 'application/merge-patch+json')).text,
      );
      expect(mainWrite.status).to.deep.equal({ ready: true });
      expect(mainWrite.metadata.generation).to.equal(2);
      const labelOnly = JSON.parse(
        (await send('PATCH', `${path}/g`, { metadata: { labels: { a: 'b' } } }, 'application/merge-patch+json')).text,
      );
      expect(labelOnly.metadata.generation).to.equal(2);
    });

    it('refuses strategic merge patch on custom resources with 415', async () => {
      await server.kubeConfig.makeApiClient(ApiextensionsV1Api).createCustomResourceDefinition({ body: widgetCrd });
      await send('POST', path, { apiVersion: 'example.com/v1', kind: 'Gadget', metadata: { name: 'g' }, spec: { n: 1 } });
      const r = await send('PATCH', `${path}/g`, { spec: { n: 2 } }, 'application/strategic-merge-patch+json');
      expect(r.status).to.equal(415);
    });
  });

  describe('delete collection', () => {
    it('deletes the objects matching a label selector', async () => {
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('keep', { t: 'keep' }) });
      await core.createNamespacedConfigMap({ namespace: 'default', body: cm('drop', { t: 'drop' }) });
      await core.deleteCollectionNamespacedConfigMap({ namespace: 'default', labelSelector: 't=drop' });
      const left = await core.listNamespacedConfigMap({ namespace: 'default' });
      expect(left.items.map((i) => i.metadata!.name)).to.deep.equal(['keep']);
    });
  });

  describe('custom resources', () => {
    it('serves a CRD once created and stops serving it once deleted', async () => {
      const ext = server.kubeConfig.makeApiClient(ApiextensionsV1Api);
      const objects = server.kubeConfig.makeApiClient(CustomObjectsApi);
      await ext.createCustomResourceDefinition({ body: exampleCrd('widgets', 'Widget') });
      const w = (await objects.createNamespacedCustomObject({
        group: 'example.com',
        version: 'v1',
        namespace: 'default',
        plural: 'widgets',
        body: { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 1 }, status: { ignored: true } },
      })) as { metadata: { generation: number }; status?: unknown };
      expect(w.metadata.generation).to.equal(1);
      expect(w.status).to.equal(undefined);
      await ext.deleteCustomResourceDefinition({ name: 'widgets.example.com' });
      const status = await catchApiStatus(
        objects.listNamespacedCustomObject({ group: 'example.com', version: 'v1', namespace: 'default', plural: 'widgets' }),
      );
      expect(status.code).to.equal(404);
    });
  });
});
