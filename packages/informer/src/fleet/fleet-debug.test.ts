import { expect } from 'chai';
import { KubeConfig } from '@kubernetes/client-node';
import { UpdateControl, type KubernetesObject } from '@kindex/core';
import { createNamespace, eventually, startEmbeddedApiServer, startTestApiServer, uniqueName, type TestApiServer } from '@kindex/testing';
import { Kinds, KubeClient, Operator, StaticClusterProvider, type FleetReconciler } from '../index.js';

// What a fleet shows over the operator's HTTP server: /debug/controllers lists each cluster's
// controller (named with its cluster) as clusters come and go, `?cluster=` addresses one, and a
// member that refuses our credentials degrades alone: /readyz and /healthz stay 200.

interface View {
  readonly name: string;
  readonly cluster?: string;
  readonly clusterState?: string;
  readonly primaryCache: { readonly objects: number; readonly synced: boolean };
}
interface Listing {
  readonly controllers: View[];
  readonly fleets?: { name: string; kind: string; clusters: { name: string; state: string; error?: string }[] }[];
}

describe('FleetController on the operator server', function () {
  this.timeout(180_000);
  let home: TestApiServer;
  let beta: TestApiServer;
  let gamma: TestApiServer;
  let operator: Operator | undefined;

  before(async () => {
    [home, beta, gamma] = await Promise.all([startTestApiServer(), startEmbeddedApiServer(), startEmbeddedApiServer()]);
  });
  afterEach(async () => {
    await operator?.stop({ drainTimeoutMs: 5_000 });
    operator = undefined;
  });
  after(async () => {
    await Promise.all([home?.stop(), beta?.stop(), gamma?.stop()]);
  });

  async function get(path: string): Promise<{ status: number; text: string; json: () => unknown }> {
    const response = await fetch(`http://127.0.0.1:${operator!.server!.address!.port}${path}`);
    const text = await response.text();
    return { status: response.status, text, json: () => JSON.parse(text) as unknown };
  }

  it("lists each cluster's controller with its cluster as clusters come and go, addresses one with ?cluster=, and keeps the probes up while one member is refused", async () => {
    const ns = uniqueName('fleet-debug');
    await Promise.all([home, beta, gamma].map((s) => createNamespace(s.kubeConfig, ns)));
    for (const [server, name] of [
      [beta, 'b1'],
      [gamma, 'g1'],
    ] as const) {
      await new KubeClient(server.kubeConfig).create(Kinds.ConfigMap, { metadata: { name, namespace: ns }, data: { a: '1' } });
    }
    const refused = new KubeConfig();
    refused.loadFromString(beta.kubeconfigYaml.replace(/token: .*/, 'token: not-the-token'));
    const reconciler: FleetReconciler<KubernetesObject> = { reconcile: () => UpdateControl.noUpdate() };
    const clusters = new StaticClusterProvider([
      { name: 'beta', kubeConfig: beta.kubeConfig },
      { name: 'refused', kubeConfig: refused },
    ]);
    operator = new Operator({ kubeConfig: home.kubeConfig, server: { port: 0, host: '127.0.0.1', debug: true } });
    const fleet = operator.registerFleet(reconciler, { kind: Kinds.ConfigMap, namespaces: [ns], engageRetryMs: 60_000, clusters });
    expect(operator.fleets).to.deep.equal([fleet]);
    expect(operator.controllers).to.deep.equal([]);
    await operator.start();
    clusters.add({ name: 'gamma', kubeConfig: gamma.kubeConfig });

    const members = async (): Promise<View[]> => ((await get('/debug/controllers')).json() as Listing).controllers;
    await eventually(
      async () => {
        const views = await members();
        expect(views.map((v) => [v.name, v.cluster, v.clusterState, v.primaryCache.objects])).to.deep.equal([
          ['configmaps.core', 'beta', 'ready', 1],
          ['configmaps.core', 'gamma', 'ready', 1],
        ]);
        expect(fleet.cluster('refused')?.state).to.equal('degraded');
      },
      { timeoutMs: 30_000 },
    );
    const listing = (await get('/debug/controllers')).json() as Listing;
    const refusedStatus = listing.fleets![0]!.clusters.find((c) => c.name === 'refused');
    expect(refusedStatus).to.include({ state: 'degraded' });
    expect(refusedStatus!.error).to.contain('cluster refused did not accept the credentials');

    // The fleet's own page: its clusters, and how to address one.
    const page = await get('/debug/controllers/configmaps.core');
    expect(page.status).to.equal(200);
    expect(page.json()).to.deep.include({ name: 'configmaps.core', kind: 'v1/ConfigMap' });
    expect((page.json() as { hint: string }).hint).to.equal(
      "one cluster's controller: /debug/controllers/configmaps.core?cluster=<cluster> (beta, refused, gamma)",
    );
    const one = await get('/debug/controllers/configmaps.core?cluster=gamma');
    expect(one.json()).to.deep.include({ name: 'configmaps.core', cluster: 'gamma', clusterState: 'ready' });
    const primary = await get(`/debug/controllers/configmaps.core/primaries/${ns}/b1?cluster=beta`);
    expect(primary.status).to.equal(200);
    expect(primary.json()).to.deep.include({ key: `${ns}/b1`, cached: true });
    // Not there: g1 lives in gamma.
    expect((await get(`/debug/controllers/configmaps.core/primaries/${ns}/g1?cluster=beta`)).json()).to.deep.include({ cached: false });
    const unnamed = await get(`/debug/controllers/configmaps.core/primaries/${ns}/b1`);
    expect(unnamed.status).to.equal(400);
    expect(unnamed.json()).to.deep.equal({
      error: `controller "configmaps.core" is a fleet: name the cluster, one cluster's controller: /debug/controllers/configmaps.core/primaries/${ns}/b1?cluster=<cluster> (beta, refused, gamma)`,
      clusters: ['beta', 'gamma'],
    });
    const missing = await get('/debug/controllers/configmaps.core?cluster=delta');
    expect(missing.status).to.equal(404);
    expect(missing.json()).to.deep.equal({
      error: 'cluster "delta" of fleet "configmaps.core" is not engaged on this replica',
      clusters: ['beta', 'gamma'],
    });

    // One member refusing our credentials degrades alone: the operator stays ready and live.
    expect((await get('/readyz?verbose')).status).to.equal(200);
    expect((await get('/healthz?verbose')).status).to.equal(200);
    const scrape = (await get('/metrics')).text;
    expect(scrape).to.match(/kindex_fleet_cluster_ready\{controller="configmaps.core",cluster="refused"\} 0/);
    expect(scrape).to.match(/kindex_fleet_cluster_ready\{controller="configmaps.core",cluster="beta"\} 1/);

    // A cluster removed leaves the listing; added again, it is back.
    clusters.remove('gamma');
    await eventually(async () => expect((await members()).map((v) => v.cluster)).to.deep.equal(['beta']), { timeoutMs: 30_000 });
    expect((await get('/debug/controllers/configmaps.core?cluster=gamma')).status).to.equal(404);
    clusters.add({ name: 'gamma', kubeConfig: gamma.kubeConfig });
    await eventually(
      async () =>
        expect((await members()).map((v) => [v.cluster, v.clusterState])).to.deep.equal([
          ['beta', 'ready'],
          ['gamma', 'ready'],
        ]),
      { timeoutMs: 30_000 },
    );
  });

  it('refuses ?cluster= on a controller that is not a fleet, and lists fleets among the names of an unknown one', async () => {
    operator = new Operator({ kubeConfig: home.kubeConfig, server: { port: 0, host: '127.0.0.1', debug: true } });
    operator.register({ reconcile: () => UpdateControl.noUpdate() }, { kind: Kinds.Secret, namespaces: [uniqueName('none')] });
    operator.registerFleet(
      { reconcile: () => UpdateControl.noUpdate() },
      { kind: Kinds.ConfigMap, clusters: new StaticClusterProvider([]) },
    );
    await operator.start();
    const wrong = await get('/debug/controllers/secrets.core?cluster=beta');
    expect(wrong.status).to.equal(400);
    expect(wrong.json()).to.deep.equal({
      error: 'controller "secrets.core" is not a fleet: it runs in the operator\'s own cluster; drop ?cluster=',
    });
    const unknown = await get('/debug/controllers/nope');
    expect(unknown.status).to.equal(404);
    expect(unknown.json()).to.deep.equal({ error: 'no controller named "nope"', controllers: ['secrets.core', 'configmaps.core'] });
    const listing = (await get('/debug/controllers')).json() as Listing;
    expect(listing.controllers.map((v) => [v.name, v.cluster])).to.deep.equal([['secrets.core', undefined]]);
    expect(listing.fleets).to.deep.equal([{ name: 'configmaps.core', kind: 'v1/ConfigMap', clusters: [] }]);
  });
});
