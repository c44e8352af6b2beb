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
  // The reverse of dependsOn: who depends on each dependent (JOSDK's node "parents").
  readonly #dependentsOf: ReadonlyMap<string, readonly string[]>;
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

// What one reconcile run knows of a dependent (JOSDK's DetailBuilder).
interface NodeState {
  visited: boolean;
  executing: boolean;
  markedForDelete: boolean;
  ready: boolean;
  failed: boolean;
  // The deletePostcondition was false: what it depends on waits.
  notYetDeleted: boolean;
  // Evaluated at most once a run, as JOSDK caches condition results.
  active: boolean | undefined;
  result: DependentResult | undefined;
}

/**
 * One run of `Workflow.reconcile`, after JOSDK's WorkflowReconcileExecutor: top-level dependents
 * start; a dependent that becomes ready starts those that depend on it once all they depend on
 * are ready; a false reconcile precondition or activation condition marks the dependent and,
 * recursively, every dependent that depends on it for deletion, and deletion starts at the
 * marked ones nothing depends on and moves towards the dependent, one step per dependent whose
 * dependents are all deleted. State changes happen between awaits only, so the checks and the
 * starts they lead to need no lock.
 */
class ReconcileRun<P extends KubernetesObject> {
  readonly #nodes: ReadonlyMap<string, WorkflowNode<P>>;
  readonly #dependentsOf: ReadonlyMap<string, readonly string[]>;
  readonly #primary: P;
  readonly #context: Context<P, KubeClient>;
  readonly #state = new Map<string, NodeState>();
  readonly #running = new Set<Promise<void>>();

  constructor(
    nodes: ReadonlyMap<string, WorkflowNode<P>>,
    dependentsOf: ReadonlyMap<string, readonly string[]>,
    primary: P,
    context: Context<P, KubeClient>,
  ) {
    this.#nodes = nodes;
    this.#dependentsOf = dependentsOf;
    this.#primary = primary;
    this.#context = context;
    for (const name of nodes.keys())
      this.#state.set(name, {
        visited: false,
        executing: false,
        markedForDelete: false,
        ready: false,
        failed: false,
        notYetDeleted: false,
        active: undefined,
        result: undefined,
      });
  }

  async run(): Promise<ReadonlyMap<string, DependentResult>> {
    for (const [name, node] of this.#nodes) if ((node.dependsOn ?? []).length === 0) this.#handleReconcile(name);
    // Running nodes start others before they finish: wait until none is left.
    while (this.#running.size > 0) await Promise.all([...this.#running]);
    return this.#results();
  }

  #handleReconcile(name: string): void {
    const st = this.#state.get(name)!;
    const dependsOn = this.#nodes.get(name)!.dependsOn ?? [];
    const parentsReady = dependsOn.every((d) => this.#state.get(d)!.visited && this.#state.get(d)!.ready);
    const erroredParent = dependsOn.some((d) => this.#state.get(d)!.failed);
    if (!parentsReady || st.visited || st.executing || st.markedForDelete || erroredParent) return;
    const node = this.#nodes.get(name)!;
    let met: boolean;
    try {
      met = this.#isActive(name) && (node.reconcilePrecondition === undefined || node.reconcilePrecondition(this.#primary, this.#context));
    } catch (error) {
      this.#fail(st, error);
      return;
    }
    if (met) {
      this.#submit(name, () => this.#reconcileNode(name));
      return;
    }
    const bottom = new Set<string>();
    this.#markForDelete(name, bottom);
    for (const b of bottom) this.#handleDelete(b);
  }

  // Marks the dependent and everything depending on it; collects the marked ones nothing depends on.
  #markForDelete(name: string, bottom: Set<string>): void {
    this.#state.get(name)!.markedForDelete = true;
    const dependents = this.#dependentsOf.get(name)!;
    if (dependents.length === 0) bottom.add(name);
    for (const d of dependents) this.#markForDelete(d, bottom);
  }

  #handleDelete(name: string): void {
    const st = this.#state.get(name)!;
    if (!st.markedForDelete || st.visited || st.executing || !this.#allDependentsDeleted(name)) return;
    this.#submit(name, () => this.#deleteNode(name));
  }

  #allDependentsDeleted(name: string): boolean {
    return this.#dependentsOf.get(name)!.every((d) => this.#deletedCleanly(d));
  }

  #deletedCleanly(name: string): boolean {
    const s = this.#state.get(name)!;
    return s.visited && s.ready && !s.failed && !s.notYetDeleted;
  }

  async #reconcileNode(name: string): Promise<void> {
    const node = this.#nodes.get(name)!;
    const st = this.#state.get(name)!;
    const { action, resource } = await node.dependent.reconcile(this.#primary, this.#context);
    st.ready = node.readyPostcondition === undefined || node.readyPostcondition(resource, this.#primary, this.#context);
    st.visited = true;
    st.result = { status: st.ready ? 'ready' : 'notReady', action };
    if (st.ready) for (const d of this.#dependentsOf.get(name)!) this.#handleReconcile(d);
  }

  async #deleteNode(name: string): Promise<void> {
    const node = this.#nodes.get(name)!;
    const st = this.#state.get(name)!;
    let gone = true;
    if (this.#isActive(name)) {
      // Deleted even where garbage collection would remove it with the primary: the primary stays.
      const existed = await node.dependent.delete(this.#primary, this.#context);
      gone = node.deletePostcondition === undefined || node.deletePostcondition(this.#primary, this.#context);
      st.result = gone ? { status: 'deleted', existed } : { status: 'notReady', action: 'unchanged' };
    } else {
      st.result = { status: 'inactive' };
    }
    // JOSDK's isReady: no ready postcondition was evaluated, so a deleted dependent counts as ready.
    st.ready = true;
    st.notYetDeleted = !gone;
    st.visited = true;
    if (gone) for (const d of node.dependsOn ?? []) this.#handleDelete(d);
  }

  #isActive(name: string): boolean {
    const st = this.#state.get(name)!;
    const condition = this.#nodes.get(name)!.activationCondition;
    st.active ??= condition === undefined || condition(this.#primary, this.#context);
    return st.active;
  }

  // Starts the work on the next turn, as JOSDK submits it to an executor; it never rejects.
  #submit(name: string, work: () => Promise<void>): void {
    const st = this.#state.get(name)!;
    st.executing = true;
    const p: Promise<void> = Promise.resolve()
      .then(work)
      .catch((error: unknown) => this.#fail(st, error))
      .finally(() => {
        st.executing = false;
        this.#running.delete(p);
      });
    this.#running.add(p);
  }

  #fail(st: NodeState, error: unknown): void {
    st.failed = true;
    st.visited = true;
    st.result = { status: 'failed', error };
  }

  // Dependents the run never reached are skipped, saying what held them back.
  #results(): ReadonlyMap<string, DependentResult> {
    const out = new Map<string, DependentResult>();
    const resultOf = (name: string): DependentResult => {
      const known = out.get(name);
      if (known !== undefined) return known;
      const st = this.#state.get(name)!;
      let r: DependentResult;
      if (st.result !== undefined) r = st.result;
      else if (st.markedForDelete) {
        // Marked but never started: some dependent of it was not deleted cleanly.
        const waitingOn = this.#dependentsOf.get(name)!.find((d) => !this.#deletedCleanly(d))!;
        r = { status: 'skipped', because: `to be deleted after "${waitingOn}", which is ${resultOf(waitingOn).status}` };
      } else {
        // Never started: a dependent it depends on was not ready (each ready one tried it).
        const blocker = (this.#nodes.get(name)!.dependsOn ?? []).find((d) => resultOf(d).status !== 'ready')!;
        r = { status: 'skipped', because: `"${blocker}" is ${resultOf(blocker).status}` };
      }
      out.set(name, r);
      return r;
    };
    for (const name of this.#nodes.keys()) resultOf(name);
    return out;
  }
}
