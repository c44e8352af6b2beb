/**
 * `pnpm sample -- --webpage`: the WebPage operator (dependent resources) on a short scenario —
 * a WebPage is created and reconciled to ready, another writer labels its ConfigMap (a
 * reconcile that must write nothing), its HTML changes (the ConfigMap is re-applied). Returns
 * the figures the scenario measured.
 */
import { findStatusCondition, ResourceID, type Condition, type KubernetesObject } from '@kindex/core';
import { installCrds, Kinds, KubeClient, Operator, resourceKind, type WorkflowResult } from '@kindex/informer';
import { EventsV1Api, NetworkingV1Api, type KubeConfig } from '@kubernetes/client-node';
import { createWebPageReconciler } from './webpage-reconciler.js';
import { WebPageKind, type WebPage } from './webpage-model.js';

/** The kind of CustomResourceDefinitions, to install the WebPage CRD. */
export const CrdKind = resourceKind({
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
});

/** What the scenario measured. */
export interface WebPageFigures {
  /** Reconciles from the WebPage's creation to the first one that found every dependent ready. */
  readonly reconcilesToReady: number;
  /** Dependent writes of the reconciles triggered by a change that altered nothing desired. */
  readonly noChangeWrites: number;
  /** Reconciles that change triggered. */
  readonly noChangeReconciles: number;
  /** The dependents' results as the WebPage's status reports them at the end. */
  readonly dependents: Record<string, string>;
  /** The WebPage's `metadata.generation` at the end (2: created, then its HTML changed). */
  readonly generation: number | undefined;
  /** Its `Ready` condition at the end. */
  readonly ready: Condition | undefined;
  /** The Kubernetes Events regarding the WebPage, as the API server holds them. */
  readonly events: readonly {
    readonly type: string;
    readonly reason: string;
    readonly reportingController: string;
    readonly count: number;
  }[];
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Installs the WebPage CRD (generated from webpage-model.ts) by server-side apply and waits until it is Established. */
export async function installWebPageCrd(client: KubeClient): Promise<void> {
  await installCrds(client.kubeConfig, [WebPageKind.crd], { fieldManager: 'kindex-webpage-sample' });
}

/** Whether the cluster serves networking.k8s.io/v1 Ingresses (asked through discovery). */
export async function servesIngresses(kubeConfig: KubeConfig): Promise<boolean> {
  try {
    const resources = await kubeConfig.makeApiClient(NetworkingV1Api).getAPIResources();
    return resources.resources.some((r) => r.name === 'ingresses');
  } catch {
    return false;
  }
}

/** Runs the WebPage operator in `namespace` through the scenario; `log` gets one line per step. */
export async function playWebPage(
  kubeConfig: KubeConfig,
  namespace: string,
  log: (line: string) => void = () => {},
): Promise<WebPageFigures> {
  const client = new KubeClient(kubeConfig, { fieldManager: 'webpage-scenario' });
  await installWebPageCrd(client);
  const ingressServed = await servesIngresses(kubeConfig);
  const results: WorkflowResult[] = [];
  const operator = new Operator({ kubeConfig });
  operator.register<WebPage>(
    createWebPageReconciler({
      ingressServed,
      onResult: (page, result) => {
        results.push(result);
        const line = [...result.results].map(([name, r]) => `${name}=${r.status}${'action' in r ? `/${r.action}` : ''}`).join(' ');
        log(`reconcile #${results.length} of ${page.metadata?.name}: ${line}`);
      },
    }),
    { kind: WebPageKind, namespaces: [namespace], primaryWrites: 'apply' },
  );
  await operator.start();
  try {
    const id = ResourceID.of('hello', namespace);
    log(`create WebPage ${namespace}/hello${ingressServed ? '' : ' (no Ingress: networking.k8s.io/v1 not served)'}`);
    await client.create(WebPageKind, {
      apiVersion: 'sample.javaoperatorsdk/v1',
      kind: 'WebPage',
      metadata: { name: 'hello', namespace },
      spec: { html: '<h1>Hello</h1>', exposed: true },
    });
    await until('the WebPage reports ready', async () => (await client.get<WebPage>(WebPageKind, id))?.status?.ready === true);
    const reconcilesToReady = results.findIndex((r) => r.allReady) + 1;

    const before = results.length;
    log('another writer labels the ConfigMap (nothing the WebPage wants changes)');
    await client.patch(Kinds.ConfigMap, ResourceID.of('hello-html', namespace), { metadata: { labels: { 'touched-by': 'someone-else' } } });
    await until('the label change was reconciled', () => results.length > before);
    await new Promise((r) => setTimeout(r, 300));
    const quiet = results.slice(before);

    log('change the HTML');
    await client.patch(WebPageKind, id, { spec: { html: '<h1>Hello again</h1>' } });
    await until('the ConfigMap holds the new HTML', async () => {
      const cm = await client.get<KubernetesObject & { data?: Record<string, string> }>(
        Kinds.ConfigMap,
        ResourceID.of('hello-html', namespace),
      );
      return cm?.data?.['index.html'] === '<h1>Hello again</h1>';
    });
    // The reconcile of the HTML change reports the new generation in its Ready condition.
    await until('the Ready condition observed the new generation', async () => {
      const page = await client.get<WebPage>(WebPageKind, id);
      return findStatusCondition(page?.status?.conditions, 'Ready')?.observedGeneration === page?.metadata?.generation;
    });
    const final = await client.get<WebPage>(WebPageKind, id);
    const eventsApi = kubeConfig.makeApiClient(EventsV1Api);
    const regardingPage = async () =>
      (await eventsApi.listNamespacedEvent({ namespace })).items.filter((e) => e.regarding?.uid === final?.metadata?.uid);
    await until('the Event of the page becoming ready is written', async () => (await regardingPage()).length > 0);
    const events = (await regardingPage()).map((e) => ({
      type: e.type ?? '',
      reason: e.reason ?? '',
      reportingController: e.reportingController ?? '',
      count: e.series?.count ?? 1,
    }));
    log(`Events regarding the WebPage: ${events.map((e) => `${e.type} ${e.reason} x${e.count}`).join(', ')}`);
    return {
      generation: final?.metadata?.generation,
      ready: findStatusCondition(final?.status?.conditions, 'Ready'),
      events,
      reconcilesToReady,
      noChangeWrites: quiet.reduce((n, r) => n + r.writes, 0),
      noChangeReconciles: quiet.length,
      dependents: final?.status?.dependents ?? {},
    };
  } finally {
    await operator.stop({ drainTimeoutMs: 5_000 });
    await client.registry?.stopAll();
  }
}
