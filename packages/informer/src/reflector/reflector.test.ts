// The Reflector against a real-wire API server (embedded by default, a real kube-apiserver with
// KINDEX_APISERVER=real): after every fault the consumer's state must equal the server's list,
// no event may be lost and none duplicated for an unchanged object.
import { expect } from 'chai';
import fc from 'fast-check';
import { CoreV1Api } from '@kubernetes/client-node';
import { ResourceID, type KubernetesObject, type StoreDelta } from '@kindex/core';
import { createNamespace, eventually, requireFault, uniqueName, useTestApiServer } from '@kindex/testing';
import { skipWithReason } from '@kindex/testing/internal';
import { InactivityTimeoutError, Reflector } from '../index.js';
import { resolveResourceType } from '../internal.js';
import type { InitialState, ReflectorHealth, ReflectorOptions, ResourceType } from '../index.js';

const configMaps: ResourceType = { group: '', version: 'v1', plural: 'configmaps', kind: 'ConfigMap', namespaced: true };

/** The store key of a delta's object (`namespace/name`). */
const keyOf = (d: StoreDelta): string => ResourceID.keyOfResource(d.object);

/** A consumer store fed by deltas that records every delta that does not fit what it holds. */
class StrictConsumer {
  readonly objects = new Map<string, KubernetesObject>();
  readonly violations: string[] = [];
  readonly deltas: StoreDelta[] = [];

  apply(d: StoreDelta): void {
    this.deltas.push(d);
    const key = keyOf(d);
    const held = this.objects.get(key);
    const rv = d.object.metadata?.resourceVersion;
    if (d.type === 'create') {
      if (held !== undefined) this.violations.push(`create ${key}@${rv} while holding @${held.metadata?.resourceVersion}`);
      this.objects.set(key, d.object);
    } else if (d.type === 'update') {
      if (held === undefined) this.violations.push(`update ${key}@${rv} not held`);
      else if (held !== d.oldObject) this.violations.push(`update ${key}: oldObject is not the object held`);
      if (d.oldObject.metadata?.resourceVersion === rv) this.violations.push(`update ${key}@${rv} without a change`);
      if (d.oldObject.metadata?.uid !== d.object.metadata?.uid) this.violations.push(`update ${key}@${rv} across two uids`);
      this.objects.set(key, d.object);
    } else {
      if (held === undefined) this.violations.push(`delete ${key}@${rv} not held`);
      this.objects.delete(key);
    }
  }

  state(): Record<string, string | undefined> {
    return Object.fromEntries([...this.objects].map(([k, o]) => [k, o.metadata?.resourceVersion]).sort());
  }
}

describe('Reflector', function () {
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

  let mode: 'deltas$' | 'onDelta' = 'deltas$';

  async function start(options: Partial<ReflectorOptions> = {}) {
    const consumer = new StrictConsumer();
    const reflector = new Reflector({
      kubeConfig: server().kubeConfig,
      type: configMaps,
      namespace,
      backoff: { initialMs: 20, maxMs: 200 },
      inactivityTimeoutMs: 10_000,
      ...options,
    });
    running.push(reflector);
    const errors: Error[] = [];
    const health: ReflectorHealth[] = [];
    if (mode === 'deltas$') reflector.deltas$.subscribe((d) => consumer.apply(d));
    else reflector.onDelta((d) => consumer.apply(d));
    reflector.errors$.subscribe((e) => errors.push(e));
    reflector.health$.subscribe((h) => health.push(h));
    await reflector.start();
    return { reflector, consumer, errors, health };
  }

  async function serverState(labelSelector?: string): Promise<Record<string, string | undefined>> {
    const list = await core.listNamespacedConfigMap({ namespace, labelSelector });
    return Object.fromEntries(list.items.map((o) => [`${namespace}/${o.metadata!.name}`, o.metadata!.resourceVersion]).sort());
  }

  /** Waits until the consumer equals the server, then checks it equals the reflector's own view. */
  async function converged(run: { reflector: Reflector; consumer: StrictConsumer }, labelSelector?: string): Promise<void> {
    await eventually(async () => expect(run.consumer.state()).to.deep.equal(await serverState(labelSelector)), {
      timeoutMs: 20_000,
      description: 'consumer equals the server',
    });
    const own = Object.fromEntries(
      run.reflector
        .list()
        .map((o) => [`${o.metadata!.namespace}/${o.metadata!.name}`, o.metadata!.resourceVersion])
        .sort(),
    );
    expect(own).to.deep.equal(run.consumer.state());
    const stored = Object.fromEntries(
      run.reflector.store
        .list()
        .map((o) => [ResourceID.keyOfResource(o), o.metadata!.resourceVersion])
        .sort(),
    );
    expect(stored).to.deep.equal(run.consumer.state());
    expect(run.consumer.violations).to.deep.equal([]);
  }

  const create = (name: string, data: Record<string, string> = { v: '0' }, labels?: Record<string, string>) =>
    core.createNamespacedConfigMap({ namespace, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data } });
  const update = (name: string, data: Record<string, string>, labels?: Record<string, string>) =>
    core.replaceNamespacedConfigMap({ name, namespace, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data } });
  const remove = (name: string) => core.deleteNamespacedConfigMap({ name, namespace });

  async function createMany(names: string[]): Promise<void> {
    for (let i = 0; i < names.length; i += 20) await Promise.all(names.slice(i, i + 20).map((n) => create(n)));
  }

  /**
   * Creates four objects, syncs, then while events are held writes three changes and expires the
   * history: the reflector must read the state again and emit exactly those three differences.
   */
  async function relistAfter410(context: Mocha.Context, options: Partial<ReflectorOptions> = {}) {
    const pause = requireFault(context, server(), 'pauseEvents');
    const resume = requireFault(context, server(), 'resumeEvents');
    const expire = requireFault(context, server(), 'expireHistory');
    const close = requireFault(context, server(), 'closeWatches');
    await createMany(['a', 'b', 'c', 'd']);
    const run = await start(options);
    await run.reflector.waitForSync({ timeoutMs: 20_000 });
    await converged(run);
    const before = run.consumer.deltas.length;

    pause();
    try {
      await create('x');
      await update('a', { v: '1' });
      await remove('b');
      await expire();
      await close();
      await eventually(() => expect(run.reflector.health.lists).to.equal(2), { timeoutMs: 20_000 });
    } finally {
      resume();
    }
    await converged(run);
    const tail = run.consumer.deltas
      .slice(before)
      .map((d) => `${d.type} ${keyOf(d).split('/')[1]}${d.type === 'delete' ? ` unknown=${d.deleteStateUnknown}` : ''}`)
      .sort();
    expect(tail).to.deep.equal(['create x', 'delete b unknown=true', 'update a']);
    return run;
  }

  for (const delivery of ['deltas$', 'onDelta'] as const) {
    describe(`followed through ${delivery}`, () => {
      before(() => {
        mode = delivery;
      });

      it('lists every page of a large collection, then reports each watch change once, in order', async () => {
        const names = Array.from({ length: 60 }, (_, i) => `cm-${String(i).padStart(3, '0')}`);
        await createMany(names);
        const run = await start({ pageSize: 7, initialState: 'list' });
        expect(await run.reflector.waitForSync({ timeoutMs: 20_000 })).to.equal(true);
        expect(run.consumer.deltas.filter((d) => d.type === 'create')).to.have.length(60);
        await converged(run);
        const before = run.consumer.deltas.length;

        await create('fresh');
        await update('cm-000', { v: '1' });
        await remove('cm-001');
        await converged(run);
        const tail = run.consumer.deltas
          .slice(before)
          .map((d) => `${d.type} ${keyOf(d)}${d.type === 'delete' ? ` unknown=${d.deleteStateUnknown}` : ''}`);
        expect(tail).to.deep.equal([`create ${namespace}/fresh`, `update ${namespace}/cm-000`, `delete ${namespace}/cm-001 unknown=false`]);
      });

      it('keeps objects as plain frozen JSON of one shape whether they came from the list or the watch', async () => {
        await create('listed', { a: '1' });
        const run = await start();
        await run.reflector.waitForSync({ timeoutMs: 20_000 });
        await create('watched', { a: '1' });
        await converged(run);
        const listed = run.reflector.get(`${namespace}/listed`)!;
        const watched = run.reflector.get(`${namespace}/watched`)!;
        expect(Object.keys(listed)).to.deep.equal(Object.keys(watched));
        for (const name of ['listed', 'watched']) {
          const o = run.reflector.get(`${namespace}/${name}`) as KubernetesObject & { data: Record<string, string> };
          expect([o.apiVersion, o.kind, o.data]).to.deep.equal(['v1', 'ConfigMap', { a: '1' }]);
          expect(o.metadata).to.not.have.property('managedFields');
          expect(typeof o.metadata!.creationTimestamp).to.equal('string');
          expect(Object.isFrozen(o) && Object.isFrozen(o.metadata) && Object.isFrozen(o.data)).to.equal(true);
        }
      });

      it('relists after 410 mid-stream and emits only real differences, deletes marked final state unknown', async function () {
        await relistAfter410(this);
      });

      it('resumes dropped watches from the last resourceVersion without losing or repeating events', async function () {
        const close = requireFault(this, server(), 'closeWatches');
        const run = await start();
        await run.reflector.waitForSync({ timeoutMs: 20_000 });
        for (let i = 0; i < 5; i++) {
          await create(`drop-${i}`);
          await close();
          await update(`drop-${i}`, { v: '1' });
          if (i > 0) await remove(`drop-${i - 1}`);
          await close();
        }
        await converged(run);
        expect(run.reflector.health.lists).to.equal(1);
        const keys = run.consumer.deltas.map((d) => `${d.type} ${keyOf(d).split('/')[1]}`);
        expect(keys.filter((k) => k === 'create drop-0')).to.have.length(1);
        expect(keys.filter((k) => k.startsWith('update'))).to.have.length(5);
      });

      it('converges after a server restart', async function () {
        const restart = requireFault(this, server(), 'restart');
        await createMany(['r-a', 'r-b']);
        const run = await start();
        await run.reflector.waitForSync({ timeoutMs: 20_000 });
        // Synced means listed; restart only once the watch is open, or the reflector may simply
        // open its first watch on the restarted server and never see the restart.
        await eventually(() => expect(run.reflector.health.watching).to.equal(true));
        await restart();
        await create('r-c');
        await update('r-a', { v: '2' });
        await remove('r-b');
        await converged(run);
        expect(run.reflector.health.restarts).to.be.at.least(1);
      });

      it('honours 429 Retry-After bursts and keeps going', async function () {
        const fail = requireFault(this, server(), 'failNextRequests');
        const close = requireFault(this, server(), 'closeWatches');
        const run = await start();
        await run.reflector.waitForSync({ timeoutMs: 20_000 });
        fail(2, { status: 429, retryAfterSeconds: 1 });
        await close();
        // The injected failures hit any request: let the reflector use them all up before writing.
        await eventually(() => expect(run.errors.filter((e) => (e as { status?: number }).status === 429)).to.have.length(2));
        await create('after-429');
        await converged(run);
      });

      it('rides out a burst of 500s with backoff, including on the first list', async function () {
        const fail = requireFault(this, server(), 'failNextRequests');
        const close = requireFault(this, server(), 'closeWatches');
        await create('early');
        fail(4, { status: 500 });
        const run = await start();
        await run.reflector.waitForSync({ timeoutMs: 20_000 });
        fail(4, { status: 500 });
        await close();
        await eventually(() => expect(run.errors.filter((e) => (e as { status?: number }).status === 500)).to.have.length(8));
        await create('late');
        await converged(run);
        expect(run.reflector.health.restarts).to.be.at.least(8);
      });

      it('replaces a silent half-open watch through the inactivity watchdog', async function () {
        const pause = requireFault(this, server(), 'pauseEvents');
        const resume = requireFault(this, server(), 'resumeEvents');
        // Bookmarks every 200 ms keep a healthy watch well inside the 1.5 s watchdog.
        const run = await start({ inactivityTimeoutMs: 1500 });
        await run.reflector.waitForSync({ timeoutMs: 20_000 });
        pause();
        try {
          await create('during-silence');
          await update('during-silence', { v: '1' });
          await converged(run); // before resume: only a new watch can have delivered them
          expect(run.errors.some((e) => e instanceof InactivityTimeoutError)).to.equal(true);
        } finally {
          resume();
        }
        await create('after-silence');
        await converged(run);
      });

      it('follows a label selector server-side: objects leaving it are deleted, objects entering it added', async () => {
        await create('in', { v: '0' }, { team: 'a' });
        await create('out', { v: '0' }, { team: 'b' });
        const run = await start({ labelSelector: 'team=a' });
        await run.reflector.waitForSync({ timeoutMs: 20_000 });
        await converged(run, 'team=a');
        await update('in', { v: '1' }, { team: 'b' });
        await update('out', { v: '1' }, { team: 'a' });
        await converged(run, 'team=a');
        expect(Object.keys(run.consumer.state())).to.deep.equal([`${namespace}/out`]);
      });

      it('reports health: synced, watching, and the resourceVersion bookmarks advance', async function () {
        if (server().flavor === 'real')
          skipWithReason(this, 'kube-apiserver sends bookmarks about once a minute, whatever bookmarkIntervalMs says');
        const run = await start();
        expect(await run.reflector.waitForSync({ timeoutMs: 20_000 })).to.equal(true);
        expect(run.reflector.hasSynced()).to.equal(true);
        await eventually(() => expect(run.reflector.health.watching).to.equal(true));
        const listed = run.reflector.health.lastSyncResourceVersion;
        // A change in another namespace moves the server's resourceVersion; only a bookmark tells us.
        await core.createNamespacedConfigMap({
          namespace: await createNamespace(server().kubeConfig),
          body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: uniqueName('elsewhere') } },
        });
        await eventually(() => expect(run.health.at(-1)!.lastSyncResourceVersion).to.not.equal(listed), { timeoutMs: 10_000 });
        expect(run.consumer.deltas).to.deep.equal([]);
        expect(run.health[0]).to.include({ synced: false, watching: false });
      });

      it('converges to the server under a random mix of writes and faults, without lost or repeated events (property)', async function () {
        this.timeout(120_000);
        const faults = server().faults;
        if (!faults.closeWatches || !faults.failNextRequests || !faults.pauseEvents || !faults.resumeEvents || !faults.expireHistory) {
          skipWithReason(this, `the ${server().flavor} API server cannot inject every fault this property mixes`);
        }
        const names = ['p0', 'p1', 'p2', 'p3'];
        const write = fc.record({ kind: fc.constantFrom('create', 'update', 'delete'), name: fc.constantFrom(...names), v: fc.nat(9) });
        const step = fc.oneof(
          { weight: 6, arbitrary: write },
          { weight: 1, arbitrary: fc.constant({ kind: 'close' as const }) },
          { weight: 1, arbitrary: fc.record({ kind: fc.constant('fail' as const), count: fc.integer({ min: 1, max: 4 }) }) },
          // Writes the watch misses, then 410: the relist must find creates, updates and deletes.
          {
            weight: 2,
            arbitrary: fc.record({ kind: fc.constant('expire' as const), writes: fc.array(write, { minLength: 2, maxLength: 4 }) }),
          },
        );
        // Writes may meet an injected failure themselves: retry them as any client would.
        const persist = async (op: () => Promise<unknown>): Promise<void> => {
          for (;;) {
            try {
              await op();
              return;
            } catch (error) {
              const code = (error as { code?: number }).code;
              if (code === 404 || code === 409) return; // the random op did not apply to the current state
              if (code !== 500) throw error;
            }
          }
        };
        const apply = (w: { kind: string; name: string; v: number }) =>
          persist(() =>
            w.kind === 'create'
              ? create(w.name, { v: String(w.v) })
              : w.kind === 'update'
                ? update(w.name, { v: String(w.v) })
                : remove(w.name),
          );
        await fc.assert(
          fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 15 }), async (steps) => {
            namespace = await createNamespace(server().kubeConfig);
            const run = await start();
            try {
              await run.reflector.waitForSync({ timeoutMs: 20_000 });
              for (const st of steps) {
                if (st.kind === 'close') await faults.closeWatches!();
                else if (st.kind === 'fail') {
                  faults.failNextRequests!(st.count, { status: 500 });
                  await faults.closeWatches!();
                } else if (st.kind === 'expire') {
                  faults.pauseEvents!();
                  try {
                    for (const w of st.writes) await apply(w);
                    await faults.expireHistory!();
                    await faults.closeWatches!();
                  } finally {
                    faults.resumeEvents!();
                  }
                } else await apply(st);
              }
              faults.failNextRequests!(0, { status: 500 });
              await converged(run);
            } finally {
              await run.reflector.stop();
            }
          }),
          { numRuns: 12 },
        );
      });

      it('resolves a ResourceType through discovery', async () => {
        expect(await resolveResourceType(server().kubeConfig, 'v1', 'ConfigMap')).to.deep.equal(configMaps);
        const deployments = await resolveResourceType(server().kubeConfig, 'apps/v1', 'Deployment').catch((e: Error) => e);
        if (!(deployments instanceof Error)) expect(deployments).to.include({ group: 'apps', plural: 'deployments', namespaced: true });
        const missing = await resolveResourceType(server().kubeConfig, 'v1', 'NoSuchKind').catch((e: Error) => e);
        expect(missing).to.have.property('name', 'UnknownResourceTypeError');
      });
    });
  }

  // The initial state read each way gives the same view, deltas and health; on kube-apiserver
  // 1.36.3 WatchList is on, so 'auto' streams. Refusals and ignored parameters: reflector-watch-list.internal.test.ts.
  for (const [initialState, syncedBy] of [
    ['auto', 'watch-list'],
    ['watch-list', 'watch-list'],
    ['list', 'list'],
  ] as const satisfies ReadonlyArray<readonly [InitialState, string]>) {
    describe(`initialState '${initialState}'`, () => {
      /** Starts a reflector whose deltas are also recorded marked as from the initial state or the watch. */
      async function startMarked(options: Partial<ReflectorOptions>) {
        const run = await start({ initialState, ...options });
        const marked: string[] = [];
        run.reflector.onDelta((d, listing) => marked.push(`${d.type} ${keyOf(d).split('/')[1]}${listing ? '' : ' (watch)'}`));
        return { ...run, marked };
      }

      it(`syncs the whole state by ${syncedBy} in one batch, then follows the watch`, async () => {
        await createMany(Array.from({ length: 30 }, (_, i) => `cm-${String(i).padStart(2, '0')}`));
        const run = await startMarked({ pageSize: 7 });
        expect(await run.reflector.waitForSync({ timeoutMs: 20_000 })).to.equal(true);
        expect(run.reflector.health).to.include({ lastSyncBy: syncedBy, lists: 1 });
        expect(run.marked).to.have.length(30);
        expect(run.marked.every((d) => d.startsWith('create ') && !d.endsWith('(watch)'))).to.equal(true);
        await converged(run);
        const versions = Object.values(await serverState()).map(Number);
        expect(Number(run.reflector.resourceVersion)).to.be.at.least(Math.max(...versions));

        await create('fresh');
        await update('cm-00', { v: '1' });
        await remove('cm-01');
        await converged(run);
        expect(run.marked.slice(30)).to.deep.equal(['create fresh (watch)', 'update cm-00 (watch)', 'delete cm-01 (watch)']);
        expect(run.errors).to.deep.equal([]);
      });

      it('applies label and field selectors to the initial state and the watch', async () => {
        await create('in-a', { v: '0' }, { app: 'web' });
        await create('in-b', { v: '0' }, { app: 'web' });
        await create('out', { v: '0' }, { app: 'db' });
        const run = await startMarked({ labelSelector: 'app=web', fieldSelector: 'metadata.name!=in-b' });
        expect(await run.reflector.waitForSync({ timeoutMs: 20_000 })).to.equal(true);
        expect(run.reflector.health.lastSyncBy).to.equal(syncedBy);
        expect(Object.keys(run.consumer.state())).to.deep.equal([`${namespace}/in-a`]);
        await update('out', { v: '1' }, { app: 'web' });
        await update('in-a', { v: '1' }, { app: 'db' });
        await eventually(() => expect(Object.keys(run.consumer.state())).to.deep.equal([`${namespace}/out`]), { timeoutMs: 20_000 });
        expect(run.marked).to.deep.equal(['create in-a', 'create out (watch)', 'delete in-a (watch)']);
      });

      it('reads the state again after 410 and emits only the real differences, deletes marked final state unknown', async function () {
        const run = await relistAfter410(this, { initialState });
        expect(run.reflector.health).to.include({ lastSyncBy: syncedBy, restarts: 1 });
      });
    });
  }
});
