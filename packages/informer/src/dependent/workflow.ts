/**
 * Workflows over dependent resources (JOSDK's Workflow): which dependents to reconcile, in which
 * order, and what came of each, for the reconciler to put into status. The reconcile follows
 * JOSDK's WorkflowReconcileExecutor and its workflow rules:
 *
 * - `dependsOn`: a dependent runs only after every one it depends on was reconciled and is
 *   ready; dependents with no path between them run in parallel.
 * - `reconcilePrecondition` false: the dependent's object is deleted (if it exists), and so,
 *   recursively, is every dependent that depends on it, children first: a dependent is deleted
 *   once all that depend on it are deleted without error and their `deletePostcondition` holds
 *   (JOSDK workflow rule 5). Dependents without a path between them are deleted in parallel.
 *   An owner reference does not spare the object: the primary stays, so garbage collection
 *   would not remove it. In the result a deleted dependent is `deleted`, one whose
 *   deletePostcondition is false `notReady`, and one still waiting on those depending on it
 *   `skipped`.
 * - `activationCondition` false: the dependent is left alone (for example, its CRD is not
 *   installed on this cluster) — nothing of it is read, written or deleted — but the dependents
 *   that depend on it are deleted as above (rule 6); it is `inactive` in the result. A dependent to delete whose own activation
 *   condition is false is left alone too.
 * - `readyPostcondition` false: reconciled but not ready; its dependents wait (skipped this round,
 *   reconciled again when the dependent's event arrives).
 * - An error marks the dependent failed; its dependents are skipped, the others go on. A condition
 *   that throws fails its dependent (JOSDK lets the exception escape the run).
 * - `cleanup` deletes in reverse order (dependents before what they depend on) the objects that no
 *   owner reference covers (cluster-scoped ones of a namespaced primary, those in a remote
 *   cluster), or all with `deleteAll`; a `deletePostcondition` false reports the dependent as
 *   not yet deleted.
 *
 * @module
 */
import type { Context, KubernetesObject } from '@kindex/core';
import type { KubeClient } from '../client/kube-client.js';
import type { KubernetesDependentResource } from './kubernetes-dependent-resource.js';
import { WORKFLOW_NODE_OPTIONS, type WorkflowNode } from './workflow-node.js';
import { WorkflowResult, type DependentResult } from './workflow-result.js';
import { ReconcileRun } from './internal/reconcile-run.js';

/**
 * Thrown when a workflow's `dependsOn` names an unknown dependent or forms a cycle.
 *
 * @example
 * ```ts
 * import { InvalidWorkflowError, Workflow, type KubernetesDependentResource } from '@kindex/informer';
 * declare const configMap: KubernetesDependentResource;
 *
 * try {
 *   new Workflow([{ dependent: configMap, dependsOn: ['no-such-dependent'] }]);
 * } catch (error) {
 *   if (error instanceof InvalidWorkflowError) console.error(error.message); // names the unknown dependency
 * }
 * ```
 */
export class InvalidWorkflowError extends Error {
  override readonly name = 'InvalidWorkflowError';
  readonly code = 'KINDEX_INVALID_WORKFLOW';
}

/**
 * An ordered set of dependents of primaries `P`.
 *
 * @example
 * ```ts
 * import { Workflow, type KubeClient, type KubernetesDependentResource } from '@kindex/informer';
 * import { UpdateControl, type Context, type KubernetesObject } from '@kindex/core';
 * declare const configMap: KubernetesDependentResource;
 * declare const deployment: KubernetesDependentResource;
 *
 * // The Deployment waits for its ConfigMap.
 * const workflow = new Workflow([
 *   { dependent: configMap },
 *   { dependent: deployment, dependsOn: [configMap.name] },
 * ]);
 *
 * async function reconcile(primary: KubernetesObject, context: Context<KubernetesObject, KubeClient>): Promise<UpdateControl> {
 *   const result = await workflow.reconcile(primary, context);
 *   result.throwIfFailed();
 *   return result.allReady ? UpdateControl.noUpdate() : UpdateControl.noUpdate().rescheduleAfter(10_000);
 * }
 * ```
 */
export class Workflow<P extends KubernetesObject = KubernetesObject> {
  readonly #nodes: ReadonlyMap<string, WorkflowNode<P>>;
  // The reverse of dependsOn: who depends on each dependent (JOSDK's node "parents").
  readonly #dependentsOf: ReadonlyMap<string, readonly string[]>;
  // Keyed by the reconcile's context, so a reconciler of a managed workflow can read its run.
  readonly #results = new WeakMap<Context<P, KubeClient>, WorkflowResult>();

  /** @throws {InvalidWorkflowError} for duplicate names, unknown `dependsOn` names and cycles. */
  constructor(nodes: readonly WorkflowNode<P>[]) {
    const map = new Map<string, WorkflowNode<P>>();
    nodes.forEach((n, i) => WORKFLOW_NODE_OPTIONS.check(n, `Workflow node [${i}] (${n.dependent?.name ?? 'no dependent'})`));
    for (const n of nodes) {
      if (map.has(n.dependent.name))
        throw new InvalidWorkflowError(`two dependents are named "${n.dependent.name}"; give one a name option`);
      map.set(n.dependent.name, n);
    }
    for (const n of nodes) {
      for (const d of n.dependsOn ?? []) {
        if (!map.has(d))
          throw new InvalidWorkflowError(
            `dependent "${n.dependent.name}" depends on "${d}", which is not in the workflow (known: ${[...map.keys()].join(', ')})`,
          );
      }
    }
    const visiting = new Set<string>();
    const done = new Set<string>();
    const visit = (name: string, path: string[]): void => {
      if (done.has(name)) return;
      if (visiting.has(name)) throw new InvalidWorkflowError(`dependsOn forms a cycle: ${[...path, name].join(' -> ')}`);
      visiting.add(name);
      for (const d of map.get(name)!.dependsOn ?? []) visit(d, [...path, name]);
      visiting.delete(name);
      done.add(name);
    };
    for (const name of map.keys()) visit(name, []);
    this.#nodes = map;
    const dependentsOf = new Map<string, string[]>([...map.keys()].map((k) => [k, []]));
    for (const n of nodes) for (const d of n.dependsOn ?? []) dependentsOf.get(d)!.push(n.dependent.name);
    this.#dependentsOf = dependentsOf;
  }

  /** The dependents, for `prepareEventSources` (`workflow.dependents.map((d) => d.eventSource(context))`). */
  get dependents(): KubernetesDependentResource<KubernetesObject, P>[] {
    return [...this.#nodes.values()].map((n) => n.dependent);
  }

  /**
   * Whether deleting a primary needs this workflow's `cleanup`: some dependent is one no owner
   * reference can cover (cluster-scoped of a namespaced primary, or in a remote cluster), so
   * garbage collection will not remove it. A controller managing the workflow then keeps a
   * finalizer on its primaries.
   */
  get needsCleanup(): boolean {
    return this.dependents.some((d) => !d.ownedByPrimary);
  }

  /**
   * What the run made with this reconcile's `context` did (set by {@link Workflow.reconcile} and
   * {@link Workflow.cleanup}): how a reconciler of a controller that manages the workflow (the
   * `workflow` controller option) reads its dependents' outcome to write status.
   */
  resultOf(context: Context<P, KubeClient>): WorkflowResult | undefined {
    return this.#results.get(context);
  }

  /**
   * Reconciles every dependent in dependency order, independents in parallel; deletes, children
   * first, the dependents of one whose reconcile precondition or activation condition is false.
   */
  async reconcile(primary: P, context: Context<P, KubeClient>): Promise<WorkflowResult> {
    const results = await new ReconcileRun(this.#nodes, this.#dependentsOf, primary, context).run();
    const result = new WorkflowResult(new Map([...this.#nodes.keys()].map((k) => [k, results.get(k)!])));
    this.#results.set(context, result);
    return result;
  }

  /**
   * Deletes dependents in reverse dependency order: those with `deleteAll`, else only the ones
   * garbage collection will not remove (no owner reference possible). Returns per dependent
   * whether it is deleted (`deleted`) or still waiting on its deletePostcondition (`notReady`).
   */
  async cleanup(primary: P, context: Context<P, KubeClient>, options: { deleteAll?: boolean } = {}): Promise<WorkflowResult> {
    const results = new Map<string, DependentResult>();
    const order = this.#reverseOrder();
    for (const name of order) {
      const node = this.#nodes.get(name)!;
      if (node.activationCondition !== undefined && !node.activationCondition(primary, context)) {
        results.set(name, { status: 'inactive' });
        continue;
      }
      const owned = node.dependent.ownedByPrimary;
      try {
        const existed = options.deleteAll || !owned ? await node.dependent.delete(primary, context) : false;
        const gone = node.deletePostcondition === undefined || node.deletePostcondition(primary, context);
        results.set(name, gone ? { status: 'deleted', existed } : { status: 'notReady', action: 'unchanged' });
      } catch (error) {
        results.set(name, { status: 'failed', error });
      }
    }
    const result = new WorkflowResult(new Map([...this.#nodes.keys()].map((k) => [k, results.get(k)!])));
    this.#results.set(context, result);
    return result;
  }

  // Dependents before what they depend on.
  #reverseOrder(): string[] {
    const order: string[] = [];
    const seen = new Set<string>();
    const visit = (name: string): void => {
      if (seen.has(name)) return;
      seen.add(name);
      for (const d of this.#nodes.get(name)!.dependsOn ?? []) visit(d);
      order.push(name);
    };
    for (const name of this.#nodes.keys()) visit(name);
    return order.reverse();
  }
}
