import { type Context, type KubernetesObject } from '@kindex/core';
import { defineOptions } from '@kindex/core/internal';
import Type from 'typebox';
import type { KubeClient } from '../client/kube-client.js';
import type { KubernetesDependentResource } from './kubernetes-dependent-resource.js';

/**
 * A condition on the primary, evaluated with the reconcile's context.
 *
 * @example
 * ```ts
 * import type { WorkflowCondition } from '@kindex/informer';
 * import type { KubernetesObject } from '@kindex/core';
 *
 * // Reconcile the dependent only once the primary is approved.
 * const approved: WorkflowCondition<KubernetesObject> = (primary) => primary.metadata?.labels?.['example.com/approved'] === 'true';
 * ```
 */
export type WorkflowCondition<P extends KubernetesObject> = (primary: P, context: Context<P, KubeClient>) => boolean;

/**
 * A dependent's place in a workflow.
 *
 * @example
 * ```ts
 * import { Workflow, type KubernetesDependentResource, type WorkflowNode } from '@kindex/informer';
 * import type { KubernetesObject } from '@kindex/core';
 * declare const ingress: KubernetesDependentResource;
 *
 * // Only WebApps that ask for an Ingress get one.
 * const node: WorkflowNode<KubernetesObject> = {
 *   dependent: ingress,
 *   activationCondition: (webApp) => webApp.metadata?.annotations?.['example.com/expose'] === 'true',
 * };
 * const workflow = new Workflow([node]);
 * ```
 */
export interface WorkflowNode<P extends KubernetesObject> {
  readonly dependent: KubernetesDependentResource<KubernetesObject, P>;
  /** Names of the dependents that must be reconciled and ready first. Defaults to none. */
  readonly dependsOn?: readonly string[];
  /**
   * Whether the dependent applies at all; while false it is neither reconciled nor deleted, and
   * the dependents that depend on it are deleted. Defaults to active.
   */
  readonly activationCondition?: WorkflowCondition<P>;
  /**
   * Whether the dependent's object should exist; while false it is deleted, and so are the
   * dependents that depend on it, children first. Defaults to true.
   */
  readonly reconcilePrecondition?: WorkflowCondition<P>;
  /** Readiness of the reconciled object (for example, a Deployment's available replicas). Defaults to ready. */
  readonly readyPostcondition?: (resource: KubernetesObject, primary: P, context: Context<P, KubeClient>) => boolean;
  /**
   * Whether the object is gone for good after the workflow deleted it (in `cleanup`, or in
   * `reconcile` for a false reconcile precondition); until it is, what it depends on is not
   * deleted. Defaults to true.
   */
  readonly deletePostcondition?: WorkflowCondition<P>;
}

const CONDITION = 'a function of (primary, context) returning a boolean';

/**
 * {@link WorkflowNode}'s keys and value checks: unknown keys are rejected, not ignored (the
 * dependent itself and the names in `dependsOn` are checked by the workflow).
 */
export const WORKFLOW_NODE_OPTIONS = defineOptions<WorkflowNode<KubernetesObject>>('Workflow node', {
  dependent: Type.Unknown(),
  dependsOn: Type.Optional(Type.Array(Type.String(), { description: "an array of the dependents' names" })),
  activationCondition: Type.Optional(Type.Function([Type.Unknown(), Type.Unknown()], Type.Boolean(), { description: CONDITION })),
  reconcilePrecondition: Type.Optional(Type.Function([Type.Unknown(), Type.Unknown()], Type.Boolean(), { description: CONDITION })),
  readyPostcondition: Type.Optional(
    Type.Function([Type.Unknown(), Type.Unknown(), Type.Unknown()], Type.Boolean(), {
      description: 'a function of (resource, primary, context) returning a boolean',
    }),
  ),
  deletePostcondition: Type.Optional(Type.Function([Type.Unknown(), Type.Unknown()], Type.Boolean(), { description: CONDITION })),
});
