/**
 * The operator's definition: its name, the custom resources it owns and how it is built. This
 * module starts nothing: `src/main.ts` runs it, and `kindex manifests` (`npm run manifests`) reads
 * it to write the CRD, RBAC, Deployment and Services into config/.
 */
import { Operator, defineOperator } from '@kindex/informer';
import { Widgets } from './widget.js';
import { createWidgetReconciler, createWidgetWorkflow } from './widget-reconciler.js';
// kindex:webhook-start
import { registerWidgetWebhooks } from './widget-webhooks.js';
// kindex:webhook-end

/** Registers the operator's controllers; the tests call it on an Operator of their own. */
export function registerControllers(operator: Operator): void {
  const workflow = createWidgetWorkflow();
  // `workflow`: the operator applies the dependents before each reconcile and watches them.
  operator.register(createWidgetReconciler(workflow), { kind: Widgets, name: 'widgets', workflow });
}

/** The address the operator's servers listen on: `$BIND_ADDRESS`, else every interface. */
function bindAddress(): string {
  return process.env['BIND_ADDRESS'] || '0.0.0.0';
}

export default defineOperator({
  name: 'my-operator',
  customResources: [Widgets],
  gracefulShutdownTimeoutMs: 30_000,
  create: ({ kubeConfig, namespace }) => {
    const operator = new Operator({
      kubeConfig,
      fieldManager: 'my-operator',
      logger: 'info',
      // /metrics over HTTPS for callers a TokenReview and SubjectAccessReview let in (a
      // self-signed certificate unless you give certFile/keyFile); the kubelet's probes
      // /healthz and /readyz on a plain port of their own.
      // BIND_ADDRESS=127.0.0.1 keeps a run outside a pod on loopback; in a pod every interface
      // (the kubelet probes the pod's IP).
      server: { host: bindAddress(), port: 8443, secure: true, healthProbePort: 8081 },
      // One active replica at a time, on a Lease in the operator's namespace.
      leaderElection: { leaseName: 'my-operator', leaseNamespace: namespace },
      // kindex:webhook-start
      // Admission webhooks over HTTPS; `kindex manifests` mounts the serving certificate in certDir.
      webhooks: { host: bindAddress(), port: 9443, certDir: '/tmp/k8s-webhook-server/serving-certs' },
      // kindex:webhook-end
    });
    registerControllers(operator);
    // kindex:webhook-start
    registerWidgetWebhooks(operator.webhooks!);
    // kindex:webhook-end
    return operator;
  },
});
