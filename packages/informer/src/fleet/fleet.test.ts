import { expect } from 'chai';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { ResourceID, UpdateControl, type KubernetesObject } from '@kindex/core';
import { createNamespace, eventually, startEmbeddedApiServer, startTestApiServer, uniqueName, type TestApiServer } from '@kindex/testing';
import {
  ClusterNameConflictError,
  InformerEventSource,
  Kinds,
  KubeClient,
  KubeconfigSecretProvider,
  Operator,
  resourceKind,
  StaticClusterProvider,
  type ClusterClient,
  type FleetController,
  type FleetReconciler,
} from '../index.js';

// One reconciler in a fleet of clusters: the home server (the real kube-apiserver under
// KINDEX_APISERVER=real) and two embedded ones, engaged and disengaged while the operator runs.

type ConfigMap = KubernetesObject & { data?: Record<string, string> };
type Event = KubernetesObject & { note?: string; regarding?: { name?: string } };
const EventKind = resourceKind<Event>({ group: 'events.k8s.io', version: 'v1', kind: 'Event', plural: 'events', namespaced: true });

/** What the reconciles saw, per cluster. */
class Seen {
  readonly primaries = new Map<string, Set<string>>();
  readonly secondaries = new Map<string, number>();
  readonly clients = new Map<string, ClusterClient>();

  reconciler(): FleetReconciler<ConfigMap> {
    return {
      prepareEventSources: (context) => [InformerEventSource.from(Kinds.Secret, Kinds.ConfigMap).build(context)],
      reconcile: async (primary, context) => {
        const client = context.getClient();
        const name = primary.metadata!.name!;
        this.clients.set(client.cluster, client);
        if (!this.primaries.has(client.cluster)) this.primaries.set(client.cluster, new Set());
        this.primaries.get(client.cluster)!.add(name);
        this.secondaries.set(`${client.cluster}/${name}`, context.getSecondaryResources(Kinds.Secret).length);
        context.getEventRecorder().record({ type: 'Normal', reason: 'Seen', action: 'Reconcile', note: `seen in ${client.cluster}` });
        // Written through the reconcile's client: it must land in the primary's own cluster.
        await client.apply(Kinds.Secret, {
          metadata: {
            name: `${name}-seen`,
            namespace: primary.metadata!.namespace!,
            ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name, uid: primary.metadata!.uid!, controller: true }],
          },
          stringData: { cluster: client.cluster },
        });
        return UpdateControl.noUpdate();
      },
    };
  }

  saw(cluster: string, name: string): boolean {
    return this.primaries.get(cluster)?.has(name) === true;
  }
}

/** A pino logger whose JSON lines the test reads. */
function capturedLogger(): { logger: pino.Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

async function createConfigMap(server: TestApiServer, namespace: string, name: string): Promise<void> {
  await eventually(() => new KubeClient(server.kubeConfig).create(Kinds.ConfigMap, { metadata: { name, namespace }, data: { a: '1' } }));
}

/** The cluster a `<name>-seen` Secret says wrote it, read from `server` itself. */
async function seenBy(server: TestApiServer, namespace: string, name: string): Promise<string | undefined> {
  const secret = await new KubeClient(server.kubeConfig).get(Kinds.Secret, ResourceID.of(`${name}-seen`, namespace)).catch(() => undefined);
  const data = secret?.data?.['cluster'];
  return data === undefined ? undefined : Buffer.from(data, 'base64').toString('utf8');
}

/** /debug/controllers' entries and listing, as the fleet's tests read them. */
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

describe('Operator.registerFleet', function () {
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

  /** A namespace of one name in every server. */
  async function namespaceEverywhere(): Promise<string> {
    const ns = uniqueName('fleet');
    await Promise.all([home, beta, gamma].map((s) => createNamespace(s.kubeConfig, ns)));
    return ns;
  }

  it('reconciles in each cluster with its own client and caches; a cluster added mid-run is engaged, one removed is dropped', async () => {
    const ns = await namespaceEverywhere();
    const seen = new Seen();
    const { logger, lines } = capturedLogger();
    const clusters = new StaticClusterProvider([
      { name: 'alpha', kubeConfig: home.kubeConfig },
      { name: 'beta', kubeConfig: beta.kubeConfig },
    ]);
    operator = new Operator({ kubeConfig: home.kubeConfig, logger });
    const fleet: FleetController<ConfigMap> = operator.registerFleet(seen.reconciler(), {
      kind: Kinds.ConfigMap,
      namespaces: [ns],
      clusters,
    });
    await Promise.all([createConfigMap(home, ns, 'a1'), createConfigMap(beta, ns, 'b1'), createConfigMap(gamma, ns, 'g1')]);
    await operator.start();

    await eventually(
      () => {
        expect(seen.saw('alpha', 'a1') && seen.saw('beta', 'b1')).to.equal(true);
        expect(fleet.clusters.map((c) => [c.name, c.state])).to.have.deep.members([
          ['alpha', 'ready'],
          ['beta', 'ready'],
        ]);
      },
      { timeoutMs: 30_000 },
    );
    // Each cluster's primaries only: alpha never saw beta's ConfigMap, and the writes went home.
    expect([...seen.primaries.get('alpha')!]).to.deep.equal(['a1']);
    expect([...seen.primaries.get('beta')!]).to.deep.equal(['b1']);
    await eventually(async () => {
      expect(await seenBy(home, ns, 'a1')).to.equal('alpha');
      expect(await seenBy(beta, ns, 'b1')).to.equal('beta');
    });
    // Events are written to the primary's cluster.
    await eventually(async () => {
      const events = await new KubeClient(beta.kubeConfig).list(EventKind, { namespace: ns });
      expect(events.map((e) => [e.regarding?.name, e.note])).to.deep.include(['b1', 'seen in beta']);
    });
    // The Secret written is a secondary of its primary, in that cluster's cache.
    await createConfigMap(beta, ns, 'b2');
    await eventually(() => expect(seen.secondaries.get('beta/b2')).to.equal(1), { timeoutMs: 20_000 });
    expect(fleet.controllerOf('beta')!.getPrimary(`${ns}/b1`)).to.not.equal(undefined);
    expect(fleet.controllerOf('alpha')!.getPrimary(`${ns}/b1`)).to.equal(undefined);

    // Mid-run: gamma joins, beta leaves.
    const betaClient = seen.clients.get('beta')!;
    clusters.add({ name: 'gamma', kubeConfig: gamma.kubeConfig });
    clusters.remove('beta');
    await eventually(() => expect(seen.saw('gamma', 'g1')).to.equal(true), { timeoutMs: 30_000 });
    await eventually(() => expect(fleet.clusters.map((c) => c.name)).to.have.members(['alpha', 'gamma']));
    expect(fleet.controllerOf('beta')).to.equal(undefined);
    // beta's informers are stopped and its cache is gone.
    await eventually(() => expect(betaClient.registry?.size).to.equal(0));
    await createConfigMap(beta, ns, 'b3');
    await createConfigMap(home, ns, 'a2');
    await eventually(() => expect(seen.saw('alpha', 'a2')).to.equal(true), { timeoutMs: 20_000 });
    expect(seen.saw('beta', 'b3')).to.equal(false);

    // Logs name the cluster; metrics carry a cluster label.
    expect(lines.some((l) => l['cluster'] === 'gamma' && l['msg'] === 'cluster engaged')).to.equal(true);
    const scrape = await operator.metrics.scrape();
    expect(scrape).to.match(/kindex_fleet_reconcile_total\{controller="configmaps.core",cluster="gamma",result="success"\} [1-9]/);
    expect(scrape).to.match(/kindex_fleet_cluster_ready\{controller="configmaps.core",cluster="alpha"\} 1/);
    expect(scrape).to.not.match(/cluster="beta"/);
  });

  it('degrades only the cluster whose kubeconfig cannot authenticate, naming it; the others reconcile', async () => {
    const ns = await namespaceEverywhere();
    const seen = new Seen();
    const { logger, lines } = capturedLogger();
    const badYaml = beta.kubeconfigYaml.replace(/token: .*/, 'token: not-the-token');
    const bad = new KubeConfig();
    bad.loadFromString(badYaml);
    operator = new Operator({ kubeConfig: home.kubeConfig, logger });
    const fleet = operator.registerFleet(seen.reconciler(), {
      kind: Kinds.ConfigMap,
      namespaces: [ns],
      engageRetryMs: 60_000,
      clusters: new StaticClusterProvider([
        { name: 'refused', kubeConfig: bad },
        { name: 'gamma', kubeConfig: gamma.kubeConfig },
      ]),
    });
    await createConfigMap(gamma, ns, 'g1');
    await operator.start();
    await eventually(() => expect(seen.saw('gamma', 'g1')).to.equal(true), { timeoutMs: 30_000 });
    await eventually(
      () => {
        const refused = fleet.cluster('refused');
        expect(refused?.state).to.equal('degraded');
        expect(refused?.error).to.match(/^cluster refused: .*401/s);
        // The fix names the cluster and where its kubeconfig comes from, not the pod's token.
        expect(refused?.error).to.contain(
          "Fix: cluster refused did not accept the credentials in the kubeconfig from static cluster list entry 0: check its token, client certificate and expiry there (the pod's service account token is not used for this cluster).",
        );
      },
      { timeoutMs: 30_000 },
    );
    expect(fleet.cluster('gamma')?.state).to.equal('ready');
    expect(lines.some((l) => l['cluster'] === 'refused' && l['level'] === 40)).to.equal(true);
  });

  it('refuses a cluster name used twice, naming both sources', () => {
    expect(
      () =>
        new StaticClusterProvider([
          { name: 'alpha', kubeConfig: home.kubeConfig },
          { name: 'alpha', kubeConfig: beta.kubeConfig },
        ]),
    )
      .to.throw(ClusterNameConflictError)
      .with.property('message')
      .that.matches(/cluster name "alpha" is used twice: by static cluster list entry 0 and by static cluster list entry 1/);
  });

  it('runs one cluster of a name two providers engage, and logs the second with both sources', async () => {
    const ns = await namespaceEverywhere();
    const seen = new Seen();
    const { logger, lines } = capturedLogger();
    operator = new Operator({ kubeConfig: home.kubeConfig, logger });
    const fleet = operator.registerFleet(seen.reconciler(), {
      kind: Kinds.ConfigMap,
      namespaces: [ns],
      clusters: [
        new StaticClusterProvider([{ name: 'shared', kubeConfig: beta.kubeConfig }], { name: 'list one' }),
        new StaticClusterProvider([{ name: 'shared', kubeConfig: gamma.kubeConfig }], { name: 'list two' }),
      ],
    });
    await Promise.all([createConfigMap(beta, ns, 'b1'), createConfigMap(gamma, ns, 'g1')]);
    await operator.start();
    await eventually(() => expect(seen.saw('shared', 'b1')).to.equal(true), { timeoutMs: 30_000 });
    expect(fleet.clusters.map((c) => c.source)).to.deep.equal(['list one entry 0']);
    expect(seen.saw('shared', 'g1')).to.equal(false);
    expect(
      lines.some(
        (l) =>
          typeof l['error'] === 'string' &&
          l['error'].includes('cluster name "shared" is used twice: by list one entry 0 and by list two entry 0;'),
      ),
      JSON.stringify(lines.filter((l) => l['level'] === 50)),
    ).to.equal(true);
  });

  describe('KubeconfigSecretProvider', () => {
    /** A kubeconfig Secret in the home cluster. */
    async function putSecret(namespace: string, name: string, data: Record<string, string>, update = false): Promise<void> {
      const core = home.kubeConfig.makeApiClient(CoreV1Api);
      const body = {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name, namespace, labels: { 'sigs.k8s.io/multicluster-runtime-kubeconfig': 'true' } },
        stringData: data,
      };
      if (update) await core.replaceNamespacedSecret({ name, namespace, body });
      else await core.createNamespacedSecret({ namespace, body });
    }

    it('engages a cluster per labelled Secret, re-engages it when its kubeconfig changes, disengages it when deleted', async () => {
      const ns = await namespaceEverywhere();
      const fleetNs = await createNamespace(home.kubeConfig);
      const seen = new Seen();
      const { logger, lines } = capturedLogger();
      await putSecret(fleetNs, 'beta', { kubeconfig: beta.kubeconfigYaml });
      operator = new Operator({ kubeConfig: home.kubeConfig, logger });
      const fleet = operator.registerFleet(seen.reconciler(), {
        kind: Kinds.ConfigMap,
        namespaces: [ns],
        clusters: new KubeconfigSecretProvider({ namespace: fleetNs }),
      });
      await Promise.all([createConfigMap(beta, ns, 'b1'), createConfigMap(gamma, ns, 'g1')]);
      await operator.start();
      await eventually(() => expect(seen.saw('beta', 'b1')).to.equal(true), { timeoutMs: 30_000 });
      expect(fleet.cluster('beta')?.source).to.equal(`Secret ${fleetNs}/beta`);
      // The operator's RBAC lets it read the Secrets.
      const manifest = await operator.rbacManifest();
      const rules = manifest.namespacedRules.get(fleetNs) ?? [];
      expect(rules.some((r) => r.resources.includes('secrets') && r.verbs.includes('watch'))).to.equal(true);
      // Every member cluster grants the reconciles what they read there, in a manifest of its own:
      // ConfigMaps in the fleet's namespace, not the Secrets of the operator's own cluster.
      const member = manifest.fleets?.get(fleet.name);
      const memberRules = member?.namespacedRules.get(ns) ?? [];
      expect(
        memberRules.some((r) => r.resources.includes('configmaps') && r.verbs.includes('watch')),
        member?.yaml,
      ).to.equal(true);
      expect(member?.namespacedRules.has(fleetNs), member?.yaml).to.equal(false);
      expect(
        member?.objects.some((o) => o.kind.endsWith('Binding')),
        'no binding: bound there to the kubeconfig identity',
      ).to.equal(false);

      // Added at run time.
      await putSecret(fleetNs, 'gamma', { kubeconfig: gamma.kubeconfigYaml });
      await eventually(() => expect(seen.saw('gamma', 'g1')).to.equal(true), { timeoutMs: 30_000 });
      await eventually(async () => expect(await seenBy(gamma, ns, 'g1')).to.equal('gamma'));

      // Changed: 'beta' now points at gamma's server, so its reconciles see gamma's objects.
      await putSecret(fleetNs, 'beta', { kubeconfig: gamma.kubeconfigYaml }, true);
      await eventually(() => expect(seen.saw('beta', 'g1')).to.equal(true), { timeoutMs: 30_000 });

      // A Secret without the key: named, with the fix; the others go on.
      await putSecret(fleetNs, 'broken', { config: 'x' });
      await eventually(() =>
        expect(
          lines.some(
            (l) =>
              typeof l['error'] === 'string' &&
              l['error'].includes(`Secret ${fleetNs}/broken: no kubeconfig under data key "kubeconfig" (it has "config")`) &&
              l['error'].includes('--from-file=kubeconfig='),
          ),
        ).to.equal(true),
      );
      expect(fleet.cluster('broken')).to.equal(undefined);

      // Deleted.
      const gammaClient = seen.clients.get('gamma')!;
      await home.kubeConfig.makeApiClient(CoreV1Api).deleteNamespacedSecret({ name: 'gamma', namespace: fleetNs });
      await eventually(() => expect(fleet.clusters.map((c) => c.name)).to.deep.equal(['beta']), { timeoutMs: 20_000 });
      await eventually(() => expect(gammaClient.registry?.size).to.equal(0));
    });
  });

  // What a fleet shows over the operator's HTTP server: /debug/controllers lists each cluster's
  // controller (named with its cluster) as clusters come and go, `?cluster=` addresses one, and a
  // member that refuses our credentials degrades alone: /readyz and /healthz stay 200.
  describe('on the operator server', () => {
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
});
