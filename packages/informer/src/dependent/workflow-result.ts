import type { DependentAction } from './kubernetes-dependent-resource.js';

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
