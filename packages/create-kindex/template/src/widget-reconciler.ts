/**
 * The Widget reconciler: keeps one ConfigMap per Widget holding `spec.message` (a dependent
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

/** Builds the reconciler; register it with `operator.register(createWidgetReconciler(), { kind: Widgets })`. */
export function createWidgetReconciler(): Reconciler<Widget, KubeClient> {
  const configMap = new KubernetesDependentResource<KubernetesObject, Widget>({
    kind: Kinds.ConfigMap,
    primaryKind: Widgets,
    name: 'configmap',
    // What the ConfigMap should be: applied by server-side apply, and not written when it already is.
    desired: (widget) =>
      ({
        metadata: { name: configMapName(widget), labels: { 'app.kubernetes.io/managed-by': 'my-operator' } },
        data: { [widget.spec.key ?? DEFAULT_KEY]: widget.spec.message },
      }) as KubernetesObject,
  });
  const workflow = new Workflow<Widget>([{ dependent: configMap }]);

  return {
    // The ConfigMaps are watched too: a ConfigMap edited or deleted by hand brings its Widget back here.
    prepareEventSources: (context) => workflow.dependents.map((dependent) => dependent.eventSource(context)),

    reconcile: async (widget: Widget, context: Context<Widget, KubeClient>) => {
      const result = await workflow.reconcile(widget, context);
      // A failed write is retried with backoff; updateErrorStatus reports it when retries run out.
      result.throwIfFailed();
      const conditions = setStatusCondition(widget.status?.conditions, {
        type: 'Ready',
        status: result.allReady ? 'True' : 'False',
        reason: result.allReady ? 'ConfigMapReady' : 'ConfigMapPending',
        message: result.allReady ? `ConfigMap ${configMapName(widget)} holds the message` : 'waiting for the ConfigMap',
        observedGeneration: widget.metadata?.generation,
      });
      // An Event when the Widget becomes ready, not on every reconcile.
      if (result.allReady && !isStatusConditionTrue(widget.status?.conditions, 'Ready')) {
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
