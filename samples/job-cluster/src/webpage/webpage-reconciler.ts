/**
 * The WebPage operator written with dependent resources (JOSDK's WebPage sample): a WebPage
 * produces a ConfigMap holding its HTML, an nginx Deployment mounting it, a Service in front of
 * the Deployment and, when `spec.exposed` and the cluster serves Ingresses, an Ingress. The
 * workflow orders them (the Deployment after the ConfigMap, the Service after the Deployment),
 * applies them by server-side apply and writes nothing when they already match; the reconciler
 * puts the per-dependent result into the WebPage's status, with a `Ready` condition (observed
 * generation included) and a Kubernetes Event when the page becomes ready or a reconcile fails.
 */
import {
  ErrorStatusUpdateControl,
  isStatusConditionTrue,
  setStatusCondition,
  UpdateControl,
  type Context,
  type KubernetesObject,
  type Reconciler,
} from '@kindex/core';
import { Kinds, KubernetesDependentResource, Workflow, type KubeClient, type WorkflowNode, type WorkflowResult } from '@kindex/informer';
import { DeploymentKind, IngressKind, WebPageKind, type WebPage } from './webpage-model.js';

const nameOf = (page: WebPage): string => page.metadata?.name ?? '';
const labelsOf = (page: WebPage): Record<string, string> => ({
  'app.kubernetes.io/name': 'webpage',
  'app.kubernetes.io/instance': nameOf(page),
});

function dependent(
  kind: typeof DeploymentKind,
  name: string,
  desired: (page: WebPage) => KubernetesObject,
): KubernetesDependentResource<KubernetesObject, WebPage> {
  return new KubernetesDependentResource<KubernetesObject, WebPage>({ kind, primaryKind: WebPageKind, name, desired });
}

/** Options of {@link createWebPageReconciler}. */
export interface WebPageReconcilerOptions {
  /** Whether the cluster serves networking.k8s.io/v1 Ingresses (the Ingress dependent is left out otherwise). */
  readonly ingressServed: boolean;
  /** Called with each workflow result, for the sample's timeline and counts. */
  readonly onResult?: (page: WebPage, result: WorkflowResult) => void;
}

/** The WebPage reconciler and its workflow. */
export function createWebPageReconciler(options: WebPageReconcilerOptions): Reconciler<WebPage, KubeClient> {
  const configMap = dependent(
    Kinds.ConfigMap,
    'configmap',
    (page) =>
      ({
        metadata: { name: `${nameOf(page)}-html`, labels: labelsOf(page) },
        data: { 'index.html': page.spec?.html ?? '' },
      }) as KubernetesObject,
  );
  const deployment = dependent(
    DeploymentKind,
    'deployment',
    (page) =>
      ({
        metadata: { name: nameOf(page), labels: labelsOf(page) },
        spec: {
          replicas: 1,
          selector: { matchLabels: labelsOf(page) },
          template: {
            metadata: { labels: labelsOf(page) },
            spec: {
              containers: [
                {
                  name: 'nginx',
                  image: 'nginx:1.27',
                  ports: [{ containerPort: 80 }],
                  volumeMounts: [{ name: 'html', mountPath: '/usr/share/nginx/html' }],
                },
              ],
              volumes: [{ name: 'html', configMap: { name: `${nameOf(page)}-html` } }],
            },
          },
        },
      }) as KubernetesObject,
  );
  const service = dependent(
    Kinds.Service,
    'service',
    (page) =>
      ({
        metadata: { name: nameOf(page), labels: labelsOf(page) },
        spec: { selector: labelsOf(page), ports: [{ port: 80 }] },
      }) as KubernetesObject,
  );
  const nodes: WorkflowNode<WebPage>[] = [
    { dependent: configMap },
    { dependent: deployment, dependsOn: ['configmap'] },
    { dependent: service, dependsOn: ['deployment'] },
  ];
  if (options.ingressServed) {
    const ingress = dependent(
      IngressKind,
      'ingress',
      (page) =>
        ({
          metadata: { name: nameOf(page), labels: labelsOf(page) },
          spec: {
            rules: [
              {
                http: {
                  paths: [
                    { path: `/${nameOf(page)}`, pathType: 'Prefix', backend: { service: { name: nameOf(page), port: { number: 80 } } } },
                  ],
                },
              },
            ],
          },
        }) as KubernetesObject,
    );
    nodes.push({ dependent: ingress, dependsOn: ['service'], reconcilePrecondition: (page) => page.spec?.exposed === true });
  }
  const workflow = new Workflow<WebPage>(nodes);

  return {
    prepareEventSources: (context) => workflow.dependents.map((d) => d.eventSource(context)),
    reconcile: async (page: WebPage, context: Context<WebPage, KubeClient>) => {
      const result = await workflow.reconcile(page, context);
      options.onResult?.(page, result);
      // A failed dependent is retried with backoff; updateErrorStatus reports it when retries run out.
      result.throwIfFailed();
      const dependents = Object.fromEntries([...result.results].map(([name, r]) => [name, r.status]));
      const waitingFor = Object.entries(dependents)
        .filter(([, status]) => status !== 'ready')
        .map(([name]) => name);
      const conditions = setStatusCondition(page.status?.conditions, {
        type: 'Ready',
        status: result.allReady ? 'True' : 'False',
        reason: result.allReady ? 'AllDependentsReady' : 'DependentsNotReady',
        message: result.allReady ? 'every dependent is ready' : `waiting for ${waitingFor.join(', ')}`,
        observedGeneration: page.metadata?.generation,
      });
      // An Event on the transition only: `kubectl describe webpage` shows when it became ready.
      if (result.allReady && !isStatusConditionTrue(page.status?.conditions, 'Ready')) {
        context
          .getEventRecorder()
          .record({ type: 'Normal', reason: 'AllDependentsReady', action: 'Reconcile', note: 'every dependent is ready' });
      }
      return UpdateControl.patchStatus<WebPage>({
        ...page,
        status: { htmlConfigMap: `${nameOf(page)}-html`, ready: result.allReady, dependents, conditions },
      });
    },
    updateErrorStatus: (page: WebPage, context: Context<WebPage, KubeClient>, error: unknown) => {
      const message = (error as Error)?.message ?? String(error);
      context.getEventRecorder().record({ type: 'Warning', reason: 'ReconcileFailed', action: 'Reconcile', note: message });
      const conditions = setStatusCondition(page.status?.conditions, {
        type: 'Ready',
        status: 'False',
        reason: 'ReconcileFailed',
        message,
        observedGeneration: page.metadata?.generation,
      });
      return ErrorStatusUpdateControl.patchStatus<WebPage>({
        ...page,
        status: { ...page.status, ready: false, errorMessage: message, conditions },
      });
    },
  };
}
