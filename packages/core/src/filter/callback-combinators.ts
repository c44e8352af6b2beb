/**
 * kopf's callback helpers: combine value callbacks (`labels`, `annotations`, `value`, `old`,
 * `new`) or whole-event callbacks (`when`) into one. Semantics of Python's built-ins: `any_([])`
 * is false, `all_([])` and `none_([])` are true. Each short-circuits, so later callbacks may not run.
 *
 * @example
 * ```ts
 * import { all_, any_, kopfFilter, type KubernetesObject } from '@kindex/core';
 * type KopfExample = KubernetesObject & { spec?: { field?: string } };
 * const example = kopfFilter<KopfExample>({
 *   when: all_([({ name }) => name?.startsWith('kopf-') === true, ({ spec }) => spec?.field === 'value']),
 *   labels: { somelabel: any_([(v) => v?.startsWith('some') === true, (v) => v?.endsWith('label') === true]) },
 * });
 * ```
 * @module
 */

/**
 * A callback judging something: a value and the event context, or the context alone.
 *
 * @example
 * ```ts
 * import { all_, kopfFilter, type FilterContext, type Judge } from '@kindex/core';
 *
 * const named: Judge<[FilterContext]> = (ctx) => ctx.name?.startsWith('web-') === true;
 * const inShop: Judge<[FilterContext]> = (ctx) => ctx.namespace === 'shop';
 * const shopWeb = kopfFilter({ when: all_([named, inShop]) });
 * ```
 */
export type Judge<A extends readonly unknown[]> = (...args: A) => boolean;

/**
 * Passes when `fn` returns false (kopf's `not_`). Typing as {@link any_}.
 *
 * @example
 * ```ts
 * import { kopfFilter, not_, type FilterContext } from '@kindex/core';
 *
 * const notSystem = kopfFilter({ when: not_((ctx: FilterContext) => ctx.namespace === 'kube-system') });
 * ```
 */
export function not_<A extends readonly unknown[]>(fn: Judge<NoInfer<A>>): Judge<A>;
export function not_<A extends readonly unknown[]>(fn: Judge<A>): Judge<A>;
export function not_<A extends readonly unknown[]>(fn: Judge<A>): Judge<A> {
  return (...args) => !fn(...args);
}

/**
 * Passes when at least one callback returns true (kopf's `any_`); `any_([])` never passes.
 *
 * Callbacks may judge different contexts (one written for any object, one for a `Job`, one
 * taking only the value): each accepts the arguments the combination receives. Inside a filter
 * spec the combination takes its argument types from the spec (first overload), so untyped
 * lambdas are typed by it; standalone, they are inferred from the callbacks (second overload).
 *
 * @example
 * ```ts
 * import { any_, kopfFilter } from '@kindex/core';
 *
 * const webOrApi = kopfFilter({ labels: { tier: any_([(v) => v === 'web', (v) => v === 'api']) } });
 * ```
 */
export function any_<A extends readonly unknown[]>(fns: readonly Judge<NoInfer<A>>[]): Judge<A>;
export function any_<A extends readonly unknown[]>(fns: readonly Judge<A>[]): Judge<A>;
export function any_<A extends readonly unknown[]>(fns: readonly Judge<A>[]): Judge<A> {
  const list = fns.slice();
  return (...args) => list.some((fn) => fn(...args));
}

/**
 * Passes when every callback returns true (kopf's `all_`); `all_([])` always passes. Typing as {@link any_}.
 *
 * @example
 * ```ts
 * import { all_, kopfFilter, type FilterContext } from '@kindex/core';
 *
 * const liveWeb = kopfFilter({ when: all_([(ctx: FilterContext) => ctx.labels['app'] === 'web', (ctx: FilterContext) => ctx.meta.deletionTimestamp === undefined]) });
 * ```
 */
export function all_<A extends readonly unknown[]>(fns: readonly Judge<NoInfer<A>>[]): Judge<A>;
export function all_<A extends readonly unknown[]>(fns: readonly Judge<A>[]): Judge<A>;
export function all_<A extends readonly unknown[]>(fns: readonly Judge<A>[]): Judge<A> {
  const list = fns.slice();
  return (...args) => list.every((fn) => fn(...args));
}

/**
 * Passes when every callback returns false (kopf's `none_`); `none_([])` always passes. Typing as {@link any_}.
 *
 * @example
 * ```ts
 * import { kopfFilter, none_, type FilterContext } from '@kindex/core';
 *
 * const notInSystemNamespaces = kopfFilter({ when: none_([(ctx: FilterContext) => ctx.namespace === 'kube-system', (ctx: FilterContext) => ctx.namespace === 'kube-public']) });
 * ```
 */
export function none_<A extends readonly unknown[]>(fns: readonly Judge<NoInfer<A>>[]): Judge<A>;
export function none_<A extends readonly unknown[]>(fns: readonly Judge<A>[]): Judge<A>;
export function none_<A extends readonly unknown[]>(fns: readonly Judge<A>[]): Judge<A> {
  const list = fns.slice();
  return (...args) => !list.some((fn) => fn(...args));
}
