import type { KubernetesObject } from '@kindex/core';
import type { DefaultContext } from '@kindex/core/internal';

/**
 * The contexts one dispatch opened, released together when it ends (so the caches stop keeping
 * old versions for them). Almost every dispatch opens one: it sits in a field, and an array is
 * made only for a second (a growing array's first push allocates room for 17, the largest
 * allocation of a reconcile that writes nothing).
 */
export class OpenedContexts<P extends KubernetesObject, C> {
  #first: DefaultContext<P, C> | undefined = undefined;
  #more: DefaultContext<P, C>[] | undefined = undefined;

  /** Adds `context`; returns it. */
  add(context: DefaultContext<P, C>): DefaultContext<P, C> {
    if (this.#first === undefined) this.#first = context;
    else (this.#more ??= []).push(context);
    return context;
  }

  /** Releases every context added (each context's release is idempotent). */
  releaseAll(): void {
    this.#first?.release();
    if (this.#more !== undefined) for (const context of this.#more) context.release();
  }
}
