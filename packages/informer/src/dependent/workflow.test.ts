// Dependent resources and workflows end to end: an Operator reconciles a Site primary into a
// ConfigMap, a Service that depends on it and an optional Secret, through server-side apply,
// against an API server over HTTP (embedded; KINDEX_APISERVER=real without garbage collection).
import { expect } from 'chai';
import { DeleteControl, GenericRetry, ResourceID, UpdateControl, type Context, type KubernetesObject } from '@kindex/core';
import { createNamespace, eventually } from '@kindex/testing';
import {
  AmbiguousDependentResourceError,
  InformerEventSource,
  InvalidWorkflowError,
  KubeClient,
  KubernetesDependentResource,
  Kinds,
  Operator,
  Workflow,
  resourceKind,
  type WorkflowNode,
  type WorkflowResult,
  InformerRegistry,
} from '../index.js';
import { useOperatorSuite } from '../testing-fixtures/operator-suite.js';

interface Site extends KubernetesObject {
  spec?: { html?: string; secret?: boolean; expose?: boolean; serviceReady?: boolean; chain?: boolean };
  status?: { ready?: boolean; writes?: number };
}
// On the real tier kube-controller-manager does this: its garbage collector finds a new custom
// resource type within 30 s (its discovery period), and its namespace controller takes seconds.
const GARBAGE_COLLECTED = { timeoutMs: 60_000 };
const NAMESPACE_GONE = { timeoutMs: 60_000 };
const SiteKind = resourceKind<Site>({ group: 'deps.kindex.dev', version: 'v1', kind: 'Site', plural: 'sites', namespaced: true });
interface ConfigMap extends KubernetesObject {
  data?: Record<string, string>;
}

function siteWorkflow(): Workflow<Site> {
  const html = new KubernetesDependentResource<ConfigMap, Site>({
    kind: Kinds.ConfigMap,
    primaryKind: SiteKind,
    name: 'html',
    desired: (site) => ({
      metadata: { name: `${site.metadata!.name}-html`, labels: { site: site.metadata!.name! } },
      data: { 'index.html': site.spec?.html ?? '' },
    }),
  });
  const service = new KubernetesDependentResource<KubernetesObject, Site>({
    kind: Kinds.Service,
    primaryKind: SiteKind,
    name: 'service',
    // Server-defaulted fields (protocol, targetPort, type, clusterIP, ...) must not look like a diff.
    desired: (site) =>
      ({
        metadata: { name: `${site.metadata!.name}-svc` },
        spec: { selector: { site: site.metadata!.name! }, ports: [{ port: 80 }] },
      }) as KubernetesObject,
  });
  const secret = new KubernetesDependentResource<KubernetesObject, Site>({
    kind: Kinds.Secret,
    primaryKind: SiteKind,
    name: 'secret',
    desired: (site) => ({ metadata: { name: `${site.metadata!.name}-secret` }, stringData: { token: 't' } }) as KubernetesObject,
  });
  return new Workflow<Site>([
    { dependent: html },
    {
      dependent: service,
      dependsOn: ['html'],
      reconcilePrecondition: (s) => s.spec?.expose !== false,
      readyPostcondition: (_svc, s) => s.spec?.serviceReady !== false,
    },
    { dependent: secret, activationCondition: (s) => s.spec?.secret === true },
  ]);
}

describe('dependent resources and workflows', function () {
  this.timeout(90_000);
  const suite = useOperatorSuite({
    crd: { group: 'deps.kindex.dev', kind: 'Site' },
    client: (kubeConfig) => new KubeClient(kubeConfig, { fieldManager: 'test-user' }),
  });

  async function runSites(namespace: string, workflow = siteWorkflow()) {
    const results: WorkflowResult[] = [];
    suite.operator = new Operator({ kubeConfig: suite.server.kubeConfig });
    suite.operator.register<Site>(
      {
        prepareEventSources: (context) => workflow.dependents.map((d) => d.eventSource(context as never)),
        reconcile: async (site, context: Context<Site, KubeClient>) => {
          const result = await workflow.reconcile(site, context);
          results.push(result);
          result.throwIfFailed();
          return UpdateControl.patchStatus<Site>({ ...site, status: { ready: result.allReady } });
        },
      },
      { kind: SiteKind, namespaces: [namespace], primaryWrites: 'apply' },
    );
    await suite.operator.start();
    return results;
  }

  // A ConfigMap dependent `<site>-<name>` holding the Site's html, optionally labelled.
  const page = (name: string, options: { label?: string; discriminate?: boolean } = {}) =>
    new KubernetesDependentResource<ConfigMap, Site>({
      kind: Kinds.ConfigMap,
      primaryKind: SiteKind,
      name,
      desired: (s) => ({
        metadata: { name: `${s.metadata!.name}-${name}`, ...(options.label ? { labels: { component: options.label } } : {}) },
        data: { html: s.spec?.html ?? '' },
      }),
      ...(options.discriminate ? { discriminator: (cm: ConfigMap) => cm.metadata?.labels?.['component'] === options.label } : {}),
    });
  const htmlOf = async (ns: string, name: string) =>
    (await suite.client.get<ConfigMap>(Kinds.ConfigMap, ResourceID.of(name, ns)))?.data?.['html'];

  const site = (namespace: string, spec: Site['spec']): Site => ({
    apiVersion: 'deps.kindex.dev/v1',
    kind: 'Site',
    metadata: { name: 'web', namespace },
    spec,
  });

  it('creates the dependents in order with owner references, gets ready, and a no-change reconcile writes nothing', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const results = await runSites(ns);
    const created = await suite.client.create(SiteKind, site(ns, { html: '<h1>hi</h1>' }));
    await eventually(async () => expect((await suite.client.get<Site>(SiteKind, ResourceID.of('web', ns)))?.status?.ready).to.equal(true));
    const cm = await suite.client.get<ConfigMap>(Kinds.ConfigMap, ResourceID.of('web-html', ns));
    expect(cm?.data).to.deep.equal({ 'index.html': '<h1>hi</h1>' });
    expect(cm?.metadata?.ownerReferences).to.deep.equal([
      {
        apiVersion: 'deps.kindex.dev/v1',
        kind: 'Site',
        name: 'web',
        uid: created.metadata!.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(await suite.client.get(Kinds.Service, ResourceID.of('web-svc', ns))).to.not.equal(undefined);
    // The Secret's activation condition is false: never touched.
    expect(await suite.client.get(Kinds.Secret, ResourceID.of('web-secret', ns))).to.equal(undefined);
    const first = results[0]!;
    expect(Object.fromEntries([...first.results].map(([k, r]) => [k, r.status]))).to.deep.equal({
      html: 'ready',
      service: 'ready',
      secret: 'inactive',
    });
    const toReady = results.findIndex((r) => r.allReady) + 1;
    console.log(`      (reconciles from creation to ready: ${toReady}; workflow runs so far: ${results.length})`);

    // Another writer labels the ConfigMap: the event reconciles the Site, and since the label is
    // not ours and nothing we own changed, that reconcile writes nothing (and keeps the label).
    const runs = results.length;
    await suite.client.patch(Kinds.ConfigMap, ResourceID.of('web-html', ns), { metadata: { labels: { extra: 'x' } } });
    await eventually(() => expect(results.length).to.be.greaterThan(runs));
    await new Promise((r) => setTimeout(r, 300));
    for (const r of results.slice(runs)) expect(r.writes).to.equal(0);
    expect(results.slice(runs).every((r) => r.allReady)).to.equal(true);
    console.log(
      `      (writes of the no-change reconciles: ${results
        .slice(runs)
        .map((r) => r.writes)
        .join(', ')})`,
    );

    // A spec change updates the ConfigMap by apply.
    await suite.client.patch(SiteKind, ResourceID.of('web', ns), { spec: { html: '<h1>bye</h1>' } });
    await eventually(async () =>
      expect((await suite.client.get<ConfigMap>(Kinds.ConfigMap as never, ResourceID.of('web-html', ns)))?.data).to.deep.equal({
        'index.html': '<h1>bye</h1>',
      }),
    );
    const after = await suite.client.get<ConfigMap>(Kinds.ConfigMap, ResourceID.of('web-html', ns));
    expect(after?.metadata?.labels).to.deep.equal({ site: 'web', extra: 'x' });
  });

  it('skips what depends on a not-ready dependent, deletes on a false reconcile precondition, activates on demand', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const results = await runSites(ns);
    await suite.client.create(SiteKind, site(ns, { html: 'x', serviceReady: false }));
    await eventually(() => expect(results.some((r) => r.results.get('service')?.status === 'notReady')).to.equal(true));
    const last = results.at(-1)!;
    expect(last.allReady).to.equal(false);

    await suite.client.patch(SiteKind, ResourceID.of('web', ns), { spec: { html: 'x', expose: false, secret: true } });
    await eventually(async () => expect(await suite.client.get(Kinds.Service as never, ResourceID.of('web-svc', ns))).to.equal(undefined));
    await eventually(async () =>
      expect(await suite.client.get(Kinds.Secret as never, ResourceID.of('web-secret', ns))).to.not.equal(undefined),
    );
    await eventually(() => expect(results.at(-1)!.results.get('service')).to.deep.include({ status: 'deleted' }));
  });

  it('the garbage collector removes the dependents with the primary', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    await runSites(ns);
    await suite.client.create(SiteKind, site(ns, { html: 'x' }));
    await eventually(async () =>
      expect(await suite.client.get(Kinds.ConfigMap as never, ResourceID.of('web-html', ns))).to.not.equal(undefined),
    );
    await suite.client.delete(SiteKind, ResourceID.of('web', ns));
    await eventually(
      async () => expect(await suite.client.get(Kinds.ConfigMap as never, ResourceID.of('web-html', ns))).to.equal(undefined),
      GARBAGE_COLLECTED,
    );
    await eventually(
      async () => expect(await suite.client.get(Kinds.Service as never, ResourceID.of('web-svc', ns))).to.equal(undefined),
      GARBAGE_COLLECTED,
    );
  });

  it('refuses unknown dependsOn names and cycles with errors naming them', () => {
    const a = new KubernetesDependentResource<ConfigMap, Site>({
      kind: Kinds.ConfigMap,
      primaryKind: SiteKind,
      name: 'a',
      desired: () => ({ metadata: { name: 'a' } }),
    });
    const b = new KubernetesDependentResource<ConfigMap, Site>({
      kind: Kinds.ConfigMap,
      primaryKind: SiteKind,
      name: 'b',
      desired: () => ({ metadata: { name: 'b' } }),
    });
    expect(() => new Workflow<Site>([{ dependent: a, dependsOn: ['nope'] }])).to.throw(InvalidWorkflowError, 'depends on "nope"');
    expect(
      () =>
        new Workflow<Site>([
          { dependent: a, dependsOn: ['b'] },
          { dependent: b, dependsOn: ['a'] },
        ]),
    ).to.throw(InvalidWorkflowError, 'cycle: a -> b -> a');
  });
  it('shares one informer among the dependents of one kind and a plain event source of it, each reading its own object', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const page = (name: string, key: string) =>
      new KubernetesDependentResource<ConfigMap, Site>({
        kind: Kinds.ConfigMap,
        primaryKind: SiteKind,
        name,
        desired: (s) => ({ metadata: { name: `${s.metadata!.name}-${name}` }, data: { [key]: s.spec?.html ?? '' } }),
      });
    const workflow = new Workflow<Site>([{ dependent: page('index', 'index.html') }, { dependent: page('error', '404.html') }]);
    const seen: string[] = [];
    suite.operator = new Operator({ kubeConfig: suite.server.kubeConfig });
    suite.operator.register<Site>(
      {
        prepareEventSources: (context) => [
          ...workflow.dependents.map((d) => d.eventSource(context as never)),
          // A plain source of the same kind, default transform: it must not cost a second informer.
          InformerEventSource.from<ConfigMap, Site>(Kinds.ConfigMap, SiteKind).withName('plain').build(context),
        ],
        reconcile: async (s, context: Context<Site, KubeClient>) => {
          const result = await workflow.reconcile(s, context);
          result.throwIfFailed();
          for (const d of workflow.dependents) {
            const cm = (d as KubernetesDependentResource<ConfigMap, Site>).getSecondaryResource(s, context);
            if (cm !== undefined) seen.push(cm.metadata!.name!);
          }
          return UpdateControl.noUpdate<Site>();
        },
      },
      { kind: SiteKind, namespaces: [ns] },
    );
    await suite.operator.start();
    await suite.client.create(SiteKind, site(ns, { html: 'hello' }));
    await eventually(async () => {
      expect(await suite.client.get(Kinds.ConfigMap, ResourceID.of('web-index', ns))).to.not.equal(undefined);
      expect(await suite.client.get(Kinds.ConfigMap, ResourceID.of('web-error', ns))).to.not.equal(undefined);
    });
    await eventually(() => expect(seen).to.include.members(['web-index', 'web-error']));
    const configMapInformers = InformerRegistry.of(suite.operator.client)
      .informers()
      .filter((i) => i.spec.type.plural === 'configmaps');
    expect(configMapInformers).to.have.length(1);
    // The shared cache keeps what the no-diff check reads: the dependents' Apply entries.
    const cached = configMapInformers[0]!.store.snapshot().get(`${ns}/web-index`);
    const entries = cached?.metadata?.managedFields as { operation?: string }[] | undefined;
    expect(entries?.map((e) => e.operation)).to.deep.equal(['Apply']);
  });
  it('deletes a cluster-scoped dependent, which no owner reference covers, when the primary goes', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const sandboxName = `${ns}-sandbox`;
    const sandbox = new KubernetesDependentResource<KubernetesObject, Site>({
      kind: Kinds.Namespace,
      primaryKind: SiteKind,
      name: 'sandbox',
      desired: () => ({ metadata: { name: sandboxName } }),
    });
    const workflow = new Workflow<Site>([{ dependent: sandbox }]);
    const cleaned: WorkflowResult[] = [];
    suite.operator = new Operator({ kubeConfig: suite.server.kubeConfig });
    suite.operator.register<Site>(
      {
        prepareEventSources: (context) => workflow.dependents.map((d) => d.eventSource(context as never)),
        reconcile: async (s, context: Context<Site, KubeClient>) => {
          (await workflow.reconcile(s, context)).throwIfFailed();
          return UpdateControl.noUpdate<Site>();
        },
        cleanup: async (s, context: Context<Site, KubeClient>) => {
          const result = await workflow.cleanup(s, context);
          cleaned.push(result);
          result.throwIfFailed();
          return DeleteControl.defaultDelete();
        },
      },
      { kind: SiteKind, namespaces: [ns] },
    );
    await suite.operator.start();
    await suite.client.create(SiteKind, site(ns, { html: 'x' }));
    await eventually(async () => expect(await suite.client.get(Kinds.Namespace, ResourceID.of(sandboxName))).to.not.equal(undefined));
    await suite.client.delete(SiteKind, ResourceID.of('web', ns));
    // The namespace controller (kube-controller-manager's on the real tier) empties it, then removes it.
    await eventually(
      async () => expect(await suite.client.get(Kinds.Namespace, ResourceID.of(sandboxName)), 'sandbox namespace gone').to.equal(undefined),
      NAMESPACE_GONE,
    );
    await eventually(async () => expect(await suite.client.get(SiteKind, ResourceID.of('web', ns))).to.equal(undefined));
    expect(cleaned).to.have.length(1);
    expect(cleaned[0]!.results.get('sandbox')?.status).to.equal('deleted');
  });
  it('runs a managed workflow (controller option): dependents before reconcile, cleanup before the finalizer comes off', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const sandboxName = `${ns}-managed`;
    const html = new KubernetesDependentResource<ConfigMap, Site>({
      kind: Kinds.ConfigMap,
      primaryKind: SiteKind,
      name: 'html',
      desired: (s) => ({ metadata: { name: `${s.metadata!.name}-html` }, data: { 'index.html': s.spec?.html ?? '' } }),
    });
    const sandbox = new KubernetesDependentResource<KubernetesObject, Site>({
      kind: Kinds.Namespace,
      primaryKind: SiteKind,
      name: 'sandbox',
      desired: () => ({ metadata: { name: sandboxName } }),
    });
    const workflow = new Workflow<Site>([{ dependent: html }, { dependent: sandbox, dependsOn: ['html'] }]);
    expect(workflow.needsCleanup, 'a cluster-scoped dependent of a namespaced primary').to.equal(true);
    const seen: string[] = [];
    suite.operator = new Operator({ kubeConfig: suite.server.kubeConfig });
    // No prepareEventSources and no cleanup: the controller registers and cleans the dependents.
    suite.operator.register<Site>(
      {
        reconcile: (s, context: Context<Site, KubeClient>) => {
          const result = workflow.resultOf(context)!;
          seen.push([...result.results].map(([name, r]) => `${name}:${r.status}`).join(','));
          // Read from the dependents' caches, which the controller registered.
          const cm = html.getSecondaryResource(s, context);
          return UpdateControl.patchStatus<Site>({ ...s, status: { ready: result.allReady && cm?.data?.['index.html'] === s.spec?.html } });
        },
      },
      { kind: SiteKind, namespaces: [ns], workflow },
    );
    await suite.operator.start();
    await suite.client.create(SiteKind, site(ns, { html: 'managed' }));
    await eventually(async () =>
      expect((await suite.client.get<Site>(SiteKind, ResourceID.of('web', ns)))?.status).to.deep.equal({ ready: true }),
    );
    expect(seen[0]).to.equal('html:ready,sandbox:ready');
    expect(
      (await suite.client.get(SiteKind, ResourceID.of('web', ns)))?.metadata?.finalizers,
      'a finalizer for the cluster-scoped dependent',
    ).to.have.length(1);
    expect((await suite.client.get<ConfigMap>(Kinds.ConfigMap, ResourceID.of('web-html', ns)))?.data).to.deep.equal({
      'index.html': 'managed',
    });

    await suite.client.delete(SiteKind, ResourceID.of('web', ns));
    await eventually(
      async () => expect(await suite.client.get(Kinds.Namespace, ResourceID.of(sandboxName)), 'sandbox namespace gone').to.equal(undefined),
      NAMESPACE_GONE,
    );
    await eventually(async () => expect(await suite.client.get(SiteKind, ResourceID.of('web', ns))).to.equal(undefined));
  });

  it('fails the reconcile, without calling reconcile, when a managed dependent fails', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const broken = new KubernetesDependentResource<ConfigMap, Site>({
      kind: Kinds.ConfigMap,
      primaryKind: SiteKind,
      name: 'broken',
      // Invalid: ConfigMap data keys must be valid file names; the server answers 422.
      desired: (s) => ({ metadata: { name: `${s.metadata!.name}-broken` }, data: { 'not/a key': 'x' } }),
    });
    const workflow = new Workflow<Site>([{ dependent: broken }]);
    expect(workflow.needsCleanup).to.equal(false);
    let reconciled = 0;
    const failures: unknown[] = [];
    suite.operator = new Operator({ kubeConfig: suite.server.kubeConfig });
    const controller = suite.operator.register<Site>(
      {
        reconcile: () => {
          reconciled++;
          return UpdateControl.noUpdate<Site>();
        },
      },
      { kind: SiteKind, namespaces: [ns], workflow, retry: new GenericRetry({ maxAttempts: 1, initialIntervalMs: 50 }) },
    );
    controller.events$.subscribe((e) => {
      if (e.type === 'processing' && e.event.type === 'retries-exhausted') failures.push(e.event.error);
    });
    await suite.operator.start();
    await suite.client.create(SiteKind, site(ns, { html: 'x' }));
    await eventually(() => expect(failures).to.have.length.greaterThan(0));
    expect(String(failures[0])).to.contain('broken');
    expect(reconciled).to.equal(0);
    expect((await suite.client.get(SiteKind, ResourceID.of('web', ns)))?.metadata?.finalizers ?? []).to.deep.equal([]);
  });
  it('keeps two dependents of one kind apart by name: spec changes reach both across reconciles, none fails', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const one = page('one');
    const two = page('two');
    const results = await runSites(ns, new Workflow<Site>([{ dependent: one }, { dependent: two }]));
    await suite.client.create(SiteKind, site(ns, { html: 'v1' }));
    for (const html of ['v1', 'v2', 'v3']) {
      if (html !== 'v1') await suite.client.patch(SiteKind, ResourceID.of('web', ns), { spec: { html } });
      await eventually(async () => {
        expect(await htmlOf(ns, 'web-one')).to.equal(html);
        expect(await htmlOf(ns, 'web-two')).to.equal(html);
      });
    }
    await eventually(async () => expect((await suite.client.get<Site>(SiteKind, ResourceID.of('web', ns)))?.status?.ready).to.equal(true));
    const failures = results.flatMap((r) => [...r.errors.values()].map(String));
    console.log(`      (workflow runs: ${results.length}; failed dependents: ${failures.length})`);
    expect(results.length).to.be.greaterThanOrEqual(3);
    expect(failures).to.deep.equal([]);
    // The later runs found each object (updated, not created again).
    expect(results.slice(1).flatMap((r) => [...r.results.values()].map((d) => ('action' in d ? d.action : d.status)))).to.not.include(
      'created',
    );
  });

  it('picks the object a discriminator accepts, and names every candidate when it accepts two', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    const front = page('front', { label: 'front', discriminate: true });
    const back = page('back', { label: 'back', discriminate: true });
    const seen: string[] = [];
    const results = await runSites(
      ns,
      new Workflow<Site>([
        { dependent: front, readyPostcondition: (cm) => (seen.push(`front:${cm.metadata!.name}`), true) },
        { dependent: back, readyPostcondition: (cm) => (seen.push(`back:${cm.metadata!.name}`), true) },
      ]),
    );
    const created = await suite.client.create(SiteKind, site(ns, { html: 'v1' }));
    await eventually(async () => expect(await htmlOf(ns, 'web-back')).to.equal('v1'));
    await suite.client.patch(SiteKind, ResourceID.of('web', ns), { spec: { html: 'v2' } });
    await eventually(async () => {
      expect(await htmlOf(ns, 'web-front')).to.equal('v2');
      expect(await htmlOf(ns, 'web-back')).to.equal('v2');
    });
    expect([...new Set(seen)].sort()).to.deep.equal(['back:web-back', 'front:web-front']);
    expect(results.flatMap((r) => [...r.errors.values()])).to.deep.equal([]);

    // Another object of the primary carries the front label: the front dependent cannot tell which is its own.
    const runs = results.length;
    await suite.client.create(Kinds.ConfigMap, {
      metadata: {
        name: 'web-impostor',
        namespace: ns,
        labels: { component: 'front' },
        ownerReferences: [{ apiVersion: 'deps.kindex.dev/v1', kind: 'Site', name: 'web', uid: created.metadata!.uid! }],
      },
    });
    await eventually(() => expect(results.slice(runs).some((r) => r.results.get('front')?.status === 'failed')).to.equal(true));
    const failed = results.slice(runs).find((r) => r.results.get('front')?.status === 'failed')!;
    const error = failed.errors.get('front');
    expect(error).to.be.instanceOf(AmbiguousDependentResourceError);
    expect((error as AmbiguousDependentResourceError).candidates).to.have.members([`${ns}/web-front`, `${ns}/web-impostor`]);
    expect(String(error)).to.contain('dependent "front"').and.contain(`${ns}/web`).and.contain('discriminator');
    expect(failed.results.get('back')?.status, 'the other dependent goes on').to.equal('ready');
  });

  // A <- B <- C, all ConfigMaps; `condition` on A is true while spec.chain is not false. Each
  // delete is recorded as it happens: the deletePostcondition runs right after its delete.
  async function chainDeletes(condition: 'reconcilePrecondition' | 'activationCondition') {
    const ns = await createNamespace(suite.server.kubeConfig);
    const deleted: string[] = [];
    const node = (name: string, dependsOn: string[], extra: Partial<WorkflowNode<Site>> = {}): WorkflowNode<Site> => ({
      dependent: page(name),
      dependsOn,
      deletePostcondition: () => (deleted.push(name), true),
      ...extra,
    });
    const results = await runSites(
      ns,
      new Workflow<Site>([node('c', ['b']), node('a', [], { [condition]: (s: Site) => s.spec?.chain !== false }), node('b', ['a'])]),
    );
    await suite.client.create(SiteKind, site(ns, { html: 'x' }));
    await eventually(async () => expect(await htmlOf(ns, 'web-c')).to.equal('x'));
    await suite.client.patch(SiteKind, ResourceID.of('web', ns), { spec: { chain: false } });
    await eventually(async () => {
      expect(await htmlOf(ns, 'web-c')).to.equal(undefined);
      expect(await htmlOf(ns, 'web-b')).to.equal(undefined);
    });
    const last = await eventually(() => {
      const r = results.at(-1)!;
      expect(r.results.get('b')?.status).to.not.equal('ready');
      return r;
    });
    return { ns, deleted, last, statuses: Object.fromEntries([...last.results].map(([k, r]) => [k, r.status])) };
  }

  it('deletes what depends on a dependent whose reconcile precondition turned false, children first (JOSDK rule 5)', async () => {
    const { ns, deleted, statuses } = await chainDeletes('reconcilePrecondition');
    expect(await htmlOf(ns, 'web-a')).to.equal(undefined);
    // The first run after the change deletes c, then b, then a; later runs find nothing left.
    expect(deleted.slice(0, 3)).to.deep.equal(['c', 'b', 'a']);
    expect(statuses).to.deep.equal({ c: 'deleted', a: 'deleted', b: 'deleted' });
  });

  it('deletes what depends on a dependent whose activation condition turned false, children first, and leaves that one (JOSDK rule 6)', async () => {
    const { ns, deleted, statuses } = await chainDeletes('activationCondition');
    expect(await htmlOf(ns, 'web-a'), 'an inactive dependent is not deleted').to.equal('x');
    expect(deleted.slice(0, 2)).to.deep.equal(['c', 'b']);
    expect(deleted).to.not.include('a');
    expect(statuses).to.deep.equal({ c: 'deleted', a: 'inactive', b: 'deleted' });
  });

  it('keeps what a dependent depends on while its deletePostcondition is false; independents are deleted regardless', async () => {
    const ns = await createNamespace(suite.server.kubeConfig);
    let lingering = true;
    // A <- B, A <- C; A's precondition turns false; C is not gone yet (say, a finalizer runs).
    const results = await runSites(
      ns,
      new Workflow<Site>([
        { dependent: page('a'), reconcilePrecondition: (s) => s.spec?.chain !== false },
        { dependent: page('b'), dependsOn: ['a'] },
        { dependent: page('c'), dependsOn: ['a'], deletePostcondition: () => !lingering },
      ]),
    );
    await suite.client.create(SiteKind, site(ns, { html: 'x' }));
    await eventually(async () => expect(await htmlOf(ns, 'web-c')).to.equal('x'));
    await suite.client.patch(SiteKind, ResourceID.of('web', ns), { spec: { chain: false } });
    // The first run that deleted c (later runs find b gone already).
    const waiting = await eventually(() => {
      const r = results.find((x) => x.results.get('c')?.status === 'notReady');
      expect(r, 'a run that deleted c').to.not.equal(undefined);
      return r!;
    });
    expect(waiting.results.get('b')).to.deep.equal({ status: 'deleted', existed: true });
    expect(waiting.results.get('a')).to.deep.include({ status: 'skipped' });
    expect(waiting.allReady).to.equal(false);
    expect(await htmlOf(ns, 'web-a')).to.equal('x');
    expect(await htmlOf(ns, 'web-b')).to.equal(undefined);

    lingering = false;
    await suite.client.patch(SiteKind, ResourceID.of('web', ns), { spec: { html: 'y' } });
    await eventually(async () => expect(await htmlOf(ns, 'web-a')).to.equal(undefined));
    expect(results.map((r) => r.results.get('a'))).to.deep.include({ status: 'deleted', existed: true });
  });
});
