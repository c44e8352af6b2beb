import type { Context, KubernetesObject } from '@kindex/core';
import type { KubeClient } from '../../client/kube-client.js';
import type { WorkflowNode } from '../workflow-node.js';
import type { DependentResult } from '../workflow-result.js';

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
export class ReconcileRun<P extends KubernetesObject> {
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
