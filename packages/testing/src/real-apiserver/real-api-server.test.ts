import { existsSync } from 'node:fs';
import { CoreV1Api, type KubeConfig, type V1ConfigMap, Watch } from '@kubernetes/client-node';
import { expect } from 'chai';
import { eventually, rawRequest, uniqueName } from '../index.js';
import {
  apiServerFlavorFromEnvironment,
  apiStatusOf,
  realApiServerBinaries,
  skipWithReason,
  startRealApiServer,
  type RealApiServer,
} from '../internal.js';
import { isProcessAlive as processExists } from './internal/process-alive.js';

// One watch, ended after its first event or error: what a test needs to see an old-RV watch answer.
function firstWatchOutcome(
  kubeConfig: KubeConfig,
  path: string,
  resourceVersion: string,
): Promise<{ type: string; object: { code?: number; reason?: string } } | { error: unknown }> {
  return new Promise((resolve) => {
    let abort: (() => void) | undefined;
    let settled = false;
    const settle = (outcome: { type: string; object: { code?: number; reason?: string } } | { error: unknown }) => {
      if (settled) return;
      settled = true;
      abort?.();
      resolve(outcome);
    };
    new Watch(kubeConfig)
      .watch(
        path,
        { resourceVersion },
        (type, object: { code?: number; reason?: string }) => settle({ type, object }),
        (error: unknown) => settle({ error: error ?? new Error('watch ended without an event') }),
      )
      .then((controller) => {
        abort = () => controller.abort();
        if (settled) controller.abort();
      })
      .catch((error: unknown) => settle({ error }));
  });
}

describe('startRealApiServer', function () {
  // Starting etcd plus kube-apiserver on two shared cores takes seconds to tens of seconds.
  this.timeout(180_000);
  let server: RealApiServer | undefined;

  before(function () {
    if (apiServerFlavorFromEnvironment() !== 'real') {
      skipWithReason(this, 'runs with KINDEX_APISERVER=real (scripts/real-apiserver/ci.sh builds the binaries it needs)');
    }
  });

  after(async function () {
    await server?.stop();
  });

  function running(): RealApiServer {
    if (server === undefined) throw new Error('the server did not start');
    return server;
  }

  it('runs no kube-controller-manager with garbageCollection: false', async function () {
    const bare = await startRealApiServer({ garbageCollection: false });
    try {
      expect(bare.pids.kubeControllerManager).to.equal(0);
    } finally {
      await bare.stop();
    }
  });

  it('finds the binaries at the pinned versions', function () {
    const binaries = realApiServerBinaries();
    expect(binaries.kubernetesVersion).to.match(/^v1\.\d+\.\d+$/);
    expect(binaries.etcdVersion).to.match(/^v3\.\d+\.\d+$/);
  });

  it('starts a ready server of flavor real on https://127.0.0.1 with the default namespace', async function () {
    server = await startRealApiServer();
    expect(server.flavor).to.equal('real');
    expect(server.url).to.match(/^https:\/\/127\.0\.0\.1:\d+$/);
    const namespace = await server.kubeConfig.makeApiClient(CoreV1Api).readNamespace({ name: 'default' });
    expect(namespace.metadata?.name).to.equal('default');
  });

  it('reports the Kubernetes version it was built at', async function () {
    const version = await rawRequest(running().kubeConfig, { path: '/version' });
    expect(version.status).to.equal(200);
    expect((JSON.parse(version.text) as { gitVersion: string }).gitVersion).to.equal(running().binaries.kubernetesVersion);
  });

  it('rejects requests without the token (authentication is on)', async function () {
    const response = await rawRequest(running().kubeConfig, {
      path: '/api/v1/namespaces/default/configmaps',
      authenticate: false,
    });
    expect(response.status).to.equal(403); // anonymous is authenticated as system:anonymous, and RBAC denies it
  });

  it('creates, lists and watches through client-node', async function () {
    const core = running().kubeConfig.makeApiClient(CoreV1Api);
    const name = uniqueName('cm');
    const created = await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name }, data: { a: '1' } },
    });
    const listed = await core.listNamespacedConfigMap({ namespace: 'default' });
    expect(listed.items.map((item) => item.metadata?.name)).to.include(name);

    const event = await new Promise<{ type: string; object: V1ConfigMap }>((resolve, reject) => {
      new Watch(running().kubeConfig)
        .watch(
          '/api/v1/namespaces/default/configmaps',
          { resourceVersion: listed.metadata?.resourceVersion },
          (type, object: V1ConfigMap) => resolve({ type, object }),
          (error: unknown) => reject(error ?? new Error('watch ended')),
        )
        .then(async (controller) => {
          await core.replaceNamespacedConfigMap({ namespace: 'default', name, body: { ...created, data: { a: '2' } } });
          // Resolve first, then abort: abort triggers the done callback.
          setTimeout(() => controller.abort(), 1_000);
        }, reject);
    });
    expect(event.type).to.equal('MODIFIED');
    expect(event.object.metadata?.name).to.equal(name);
    expect(event.object.data).to.deep.equal({ a: '2' });
    expect(event.object.metadata?.resourceVersion).to.not.equal(created.metadata?.resourceVersion);
  });

  it('keeps its data and its kubeconfig across restart()', async function () {
    const core = running().kubeConfig.makeApiClient(CoreV1Api);
    const name = uniqueName('kept');
    await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name } } });
    const before = running().pids.kubeApiServer;
    await running().faults.restart();
    expect(running().pids.kubeApiServer).to.not.equal(before);
    expect(processExists(before)).to.equal(false);
    const read = await core.readNamespacedConfigMap({ namespace: 'default', name });
    expect(read.metadata?.name).to.equal(name);
  });

  it('runs kube-controller-manager, whose garbage collector still works after restart()', async function () {
    const { kubeControllerManager } = running().pids;
    expect(kubeControllerManager).to.be.greaterThan(0);
    expect(processExists(kubeControllerManager)).to.equal(true);
    const core = running().kubeConfig.makeApiClient(CoreV1Api);
    const owner = await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name: uniqueName('owner') } } });
    const { name, uid } = owner.metadata as { name: string; uid: string };
    const child = uniqueName('child');
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: child, ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name, uid }] } },
    });
    await core.deleteNamespacedConfigMap({ namespace: 'default', name });
    await eventually(
      async () =>
        expect(
          apiStatusOf(await core.readNamespacedConfigMap({ namespace: 'default', name: child }).catch((e: unknown) => e))?.code,
        ).to.equal(404),
      { timeoutMs: 30_000, intervalMs: 200 },
    );
  });

  it('answers 410 Expired to a watch from a resourceVersion older than expireHistory()', async function () {
    const core = running().kubeConfig.makeApiClient(CoreV1Api);
    const name = uniqueName('old');
    const created = await core.createNamespacedConfigMap({ namespace: 'default', body: { metadata: { name } } });
    const oldVersion = created.metadata?.resourceVersion as string;
    await core.replaceNamespacedConfigMap({ namespace: 'default', name, body: { ...created, data: { b: '1' } } });

    await running().faults.expireHistory();

    const outcome = await firstWatchOutcome(running().kubeConfig, '/api/v1/namespaces/default/configmaps', oldVersion);
    // client-node delivers a 410 on an established watch as an ERROR event carrying a Status.
    if ('error' in outcome) {
      expect(apiStatusOf(outcome.error)?.code, String(outcome.error)).to.equal(410);
    } else {
      expect(outcome.type).to.equal('ERROR');
      expect(outcome.object.code).to.equal(410);
      expect(outcome.object.reason).to.equal('Expired');
    }
    // The data itself survives the compaction.
    expect((await core.readNamespacedConfigMap({ namespace: 'default', name })).data).to.deep.equal({ b: '1' });
  });

  it('stop() leaves no process and no directory behind, and may be called twice', async function () {
    const stopping = running();
    const { etcd, kubeApiServer, kubeControllerManager } = stopping.pids;
    expect(processExists(etcd)).to.equal(true);
    expect(processExists(kubeApiServer)).to.equal(true);
    expect(processExists(kubeControllerManager)).to.equal(true);
    await stopping.stop();
    await stopping.stop();
    server = undefined;
    expect(processExists(etcd)).to.equal(false);
    expect(processExists(kubeApiServer)).to.equal(false);
    expect(processExists(kubeControllerManager)).to.equal(false);
    expect(existsSync(stopping.dataDir)).to.equal(false);
  });
});
