/**
 * The Widget controller: keeps one ConfigMap per Widget holding `spec.message` (a dependent
 * resource, owned by the Widget so the garbage collector deletes it with it), and reports the
 * result in the Widget's `Ready` condition and in Kubernetes Events (`kubectl describe widget`).
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
import { Kinds, KubernetesDependentResource, Workflow, type KubeClient } from '@kindex/informer';
import { DEFAULT_KEY, Widgets, type Widget } from './widget.js';

/** The name of a Widget's ConfigMap. */
export const configMapName = (widget: Widget): string => `${widget.metadata?.name ?? ''}-widget`;

/**
 * The Widget's dependents: one ConfigMap, applied by server-side apply (nothing written when it
 * already matches) and owned by the Widget. Given to the controller as its `workflow` (see
 * src/operator.ts), the operator applies it before each reconcile, watches the ConfigMaps (one
 * edited or deleted by hand brings its Widget back), and `kindex manifests` grants the writes.
 */
export function createWidgetWorkflow(): Workflow<Widget> {
  const configMap = new KubernetesDependentResource<KubernetesObject, Widget>({
    kind: Kinds.ConfigMap,
    primaryKind: Widgets,
    name: 'configmap',
    desired: (widget) =>
      ({
        metadata: { name: configMapName(widget), labels: { 'app.kubernetes.io/managed-by': 'my-operator' } },
        data: { [widget.spec.key ?? DEFAULT_KEY]: widget.spec.message },
      }) as KubernetesObject,
  });
  return new Workflow<Widget>([{ dependent: configMap }]);
}

/** The reconciler: reports what the workflow did in the `Ready` condition and in Events. */
export function createWidgetReconciler(workflow: Workflow<Widget>): Reconciler<Widget, KubeClient> {
  return {
    reconcile: async (widget: Widget, context: Context<Widget, KubeClient>) => {
      // The workflow ran before this call; a dependent that failed failed the reconcile instead
      // (retried with backoff; updateErrorStatus reports it when the retries run out).
      const ready = workflow.resultOf(context)?.allReady ?? false;
      const conditions = setStatusCondition(widget.status?.conditions, {
        type: 'Ready',
        status: ready ? 'True' : 'False',
        reason: ready ? 'ConfigMapReady' : 'ConfigMapPending',
        message: ready ? `ConfigMap ${configMapName(widget)} holds the message` : 'waiting for the ConfigMap',
        observedGeneration: widget.metadata?.generation,
      });
      // An Event when the Widget becomes ready, not on every reconcile.
      if (ready && !isStatusConditionTrue(widget.status?.conditions, 'Ready')) {
        context
          .getEventRecorder()
          .record({ type: 'Normal', reason: 'ConfigMapReady', action: 'Reconcile', note: `wrote ConfigMap ${configMapName(widget)}` });
      }
      return UpdateControl.patchStatus<Widget>({ ...widget, status: { configMap: configMapName(widget), conditions } });
    },

    updateErrorStatus: (widget: Widget, context: Context<Widget, KubeClient>, error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      context.getEventRecorder().record({ type: 'Warning', reason: 'ReconcileFailed', action: 'Reconcile', note: message });
      const conditions = setStatusCondition(widget.status?.conditions, {
        type: 'Ready',
        status: 'False',
        reason: 'ReconcileFailed',
        message,
        observedGeneration: widget.metadata?.generation,
      });
      return ErrorStatusUpdateControl.patchStatus<Widget>({ ...widget, status: { ...widget.status, conditions } });
    },
  };
}
