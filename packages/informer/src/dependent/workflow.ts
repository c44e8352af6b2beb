/**
 * Workflows over dependent resources (JOSDK's Workflow): which dependents to reconcile, in which
 * order, and what came of each, for the reconciler to put into status.
 *
 * - `dependsOn`: a dependent runs only after every one it depends on was reconciled and is
 *   ready; dependents with no path between them run in parallel.
 * - `activationCondition` false: the dependent is left alone (for example, its CRD is not
 *   installed on this cluster) — nothing is read, written or deleted; its dependents are skipped.
 * - `reconcilePrecondition` false: the dependent's object is deleted (if it exists); its
 *   dependents are skipped.
 * - `readyPostcondition` false: reconciled but not ready; its dependents wait (skipped this round,
 *   reconciled again when the dependent's event arrives).
 * - An error marks the dependent failed; its dependents are skipped, the others go on.
 * - `cleanup` deletes in reverse order (dependents before what they depend on) the objects that no
 *   owner reference covers, or all with `deleteAll`; a `deletePostcondition` false reports the
 *   dependent as not yet deleted.
 *
 * @module
 */
import { type Context, type KubernetesObject, type OptionKeysOf, rejectUnknownOptions } from '@kindex/core';
import type { KubeClient } from '../client/kube-client.js';
import type { DependentAction, KubernetesDependentResource } from './kubernetes-dependent-resource.js';

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
  readonly activationCondition?: WorkflowCondition<P>;
  readonly reconcilePrecondition?: WorkflowCondition<P>;
  /** Readiness of the reconciled object (for example, a Deployment's available replicas). Defaults to ready. */
  readonly readyPostcondition?: (resource: KubernetesObject, primary: P, context: Context<P, KubeClient>) => boolean;
  /** Whether the object is gone for good after `cleanup` deleted it. Defaults to true. */
  readonly deletePostcondition?: WorkflowCondition<P>;
}

/** The keys of {@link WorkflowNode}: unknown ones are rejected, not ignored. */
export const WORKFLOW_NODE_KEYS = {
  dependent: true,
  dependsOn: true,
  activationCondition: true,
  reconcilePrecondition: true,
  readyPostcondition: true,
  deletePostcondition: true,
} as const satisfies OptionKeysOf<WorkflowNode<KubernetesObject>>;

/**
 * What a workflow did with one dependent.
 *
 * @example
 * ```ts
 * import type { DependentResult, WorkflowResult } from '@kindex/informer';
 * declare const result: WorkflowResult;
 *
 * const describe = (r: DependentResult): string =>
 *   r.status === 'failed' ? `failed: ${String(r.error)}` : r.status === 'skipped' ? `skipped: ${r.because}` : r.status;
 * for (const [name, r] of result.results) console.log(name, describe(r));
 * ```
 */
export type DependentResult =
  | { readonly status: 'ready'; readonly action: DependentAction }
  | { readonly status: 'notReady'; readonly action: DependentAction }
  | { readonly status: 'failed'; readonly error: unknown }
  | { readonly status: 'skipped'; readonly because: string }
  | { readonly status: 'inactive' }
  | { readonly status: 'deleted'; readonly existed: boolean };

/**
 * The outcome of a workflow run, per dependent name.
 *
 * @example
 * ```ts
 * import type { KubeClient, Workflow, WorkflowResult } from '@kindex/informer';
 * import type { Context, KubernetesObject } from '@kindex/core';
 * declare const workflow: Workflow;
 * declare const primary: KubernetesObject;
 * declare const context: Context<KubernetesObject, KubeClient>;
 *
 * const result: WorkflowResult = await workflow.reconcile(primary, context);
 * for (const [name, error] of result.errors) context.getLogger().warn({ dependent: name, error: String(error) }, 'dependent failed');
 * ```
 */
export class WorkflowResult {
  constructor(readonly results: ReadonlyMap<string, DependentResult>) {}

  /** True when every active dependent whose precondition held is reconciled and ready. */
  get allReady(): boolean {
    for (const r of this.results.values()) if (r.status === 'notReady' || r.status === 'failed' || r.status === 'skipped') return false;
    return true;
  }

  /** The errors of failed dependents, by name. */
  get errors(): ReadonlyMap<string, unknown> {
    const out = new Map<string, unknown>();
    for (const [name, r] of this.results) if (r.status === 'failed') out.set(name, r.error);
    return out;
  }

  /** How many dependents were created or updated (0 in a reconcile that changed nothing). */
  get writes(): number {
    let n = 0;
    for (const r of this.results.values()) if ((r.status === 'ready' || r.status === 'notReady') && r.action !== 'unchanged') n++;
    return n;
  }

  /** Throws an AggregateError of the failures, if any (to let the controller retry). */
  throwIfFailed(): void {
    if (this.errors.size > 0)
      throw new AggregateError([...this.errors.values()], `dependents failed: ${[...this.errors.keys()].join(', ')}`);
  }
}

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
  // Keyed by the reconcile's context, so a reconciler of a managed workflow can read its run.
  readonly #results = new WeakMap<Context<P, KubeClient>, WorkflowResult>();

  /** @throws {InvalidWorkflowError} for duplicate names, unknown `dependsOn` names and cycles. */
  constructor(nodes: readonly WorkflowNode<P>[]) {
    const map = new Map<string, WorkflowNode<P>>();
    nodes.forEach((n, i) => rejectUnknownOptions(`Workflow node [${i}] (${n.dependent?.name ?? 'no dependent'})`, n, WORKFLOW_NODE_KEYS));
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
  }

  /** The dependents, for `prepareEventSources` (`workflow.dependents.map((d) => d.eventSource(context))`). */
  get dependents(): KubernetesDependentResource<KubernetesObject, P>[] {
    return [...this.#nodes.values()].map((n) => n.dependent);
  }

  /**
   * Whether deleting a primary needs this workflow's `cleanup`: some dependent is one no owner
   * reference can cover (cluster-scoped, namespaced primary), so garbage collection will not
   * remove it. A controller managing the workflow then keeps a finalizer on its primaries.
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

  /** Reconciles every dependent in dependency order, independents in parallel. */
  async reconcile(primary: P, context: Context<P, KubeClient>): Promise<WorkflowResult> {
    const results = new Map<string, DependentResult>();
    const runs = new Map<string, Promise<DependentResult>>();
    const run = (name: string): Promise<DependentResult> => {
      let p = runs.get(name);
      if (p === undefined) {
        p = this.#reconcileNode(this.#nodes.get(name)!, primary, context, run).then((r) => {
          results.set(name, r);
          return r;
        });
        runs.set(name, p);
      }
      return p;
    };
    await Promise.all([...this.#nodes.keys()].map(run));
    const result = new WorkflowResult(new Map([...this.#nodes.keys()].map((k) => [k, results.get(k)!])));
    this.#results.set(context, result);
    return result;
  }

  async #reconcileNode(
    node: WorkflowNode<P>,
    primary: P,
    context: Context<P, KubeClient>,
    run: (name: string) => Promise<DependentResult>,
  ): Promise<DependentResult> {
    const before = await Promise.all((node.dependsOn ?? []).map(async (d) => [d, await run(d)] as const));
    const blocked = before.find(([, r]) => r.status !== 'ready');
    if (blocked !== undefined) return { status: 'skipped', because: `"${blocked[0]}" is ${blocked[1].status}` };
    try {
      if (node.activationCondition !== undefined && !node.activationCondition(primary, context)) return { status: 'inactive' };
      if (node.reconcilePrecondition !== undefined && !node.reconcilePrecondition(primary, context)) {
        return { status: 'deleted', existed: await node.dependent.delete(primary, context) };
      }
      const { action, resource } = await node.dependent.reconcile(primary, context);
      const ready = node.readyPostcondition === undefined || node.readyPostcondition(resource, primary, context);
      return { status: ready ? 'ready' : 'notReady', action };
    } catch (error) {
      return { status: 'failed', error };
    }
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
